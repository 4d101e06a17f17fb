import Foundation
import Testing
import TypedDefaults

// The Linux saver beside a plain-API writer: there is no saver on Apple platforms.
#if os(Linux)

    /// Foundation's `synchronize()` rewrites the suite's file in place from what it read earlier, without
    /// the lock, so it can drop a value a library process saved in between. The library process that
    /// saved it puts it back, also when it sees the drop only after another library process has saved
    /// over Foundation's file.
    @Suite("A library value a plain save dropped comes back")
    struct PlainSaveTests {
        @Test func aValueDroppedByAPlainSaveIsPutBackByItsWriterThatSawOnlyALaterLibrarySave() throws {
            try withTemporaryFolder { folder in
                let suite = uniqueSuiteName()
                let file = folder.appendingPathComponent(suite + ".plist")
                let environment = ["XDG_CONFIG_HOME": folder.path]
                // Started first: only lines pass between them while the clock of the put-back runs.
                let writer = try ProbeProcess(["watch", suite], environment: environment)
                let other = try ProbeProcess(["set-on-line", suite, "other"], environment: environment)
                let later = try ProbeProcess(["set-on-line", suite, "later"], environment: environment)
                defer {
                    kill(writer.process.processIdentifier, SIGCONT)
                    for probe in [writer, other, later] { probe.kill() }
                }
                try #require([writer, other, later].allSatisfy { $0.waitForLine("ready") })

                try writer.send("write 7")
                try #require(writer.waitForLine("wrote"))
                try #require(pollUntil { propertyList(at: file)?["count"] as? Int == 7 })
                // The writer sees nothing of what follows until it runs again. Stopped while this test holds the
                // suite's lock, so that it is not stopped holding it (its save may not have let go of it yet).
                let lock = open(folder.appendingPathComponent("." + suite + ".plist.lock").path, O_RDWR)
                try #require(lock >= 0)
                flock(lock, LOCK_EX)
                kill(writer.process.processIdentifier, SIGSTOP)
                flock(lock, LOCK_UN)
                close(lock)
                try other.send("go")
                try #require(other.waitForLine("saved"))
                // A plain save that read the file before the writer's save: written in place, as Foundation
                // writes, without "count".
                var stale = try #require(propertyList(at: file))
                stale["count"] = nil
                let handle = try FileHandle(forWritingTo: file)
                try handle.truncate(atOffset: 0)
                try handle.write(
                    contentsOf: PropertyListSerialization.data(fromPropertyList: stale, format: .xml, options: 0))
                try handle.close()
                // Another library process saves over it before the writer looks.
                try later.send("go")
                try #require(later.waitForLine("saved"))
                #expect(propertyList(at: file)?["count"] == nil)
                kill(writer.process.processIdentifier, SIGCONT)

                #expect(
                    pollUntil { propertyList(at: file)?["count"] as? Int == 7 },
                    "the writer took the drop for a removal: \(propertyList(at: file) ?? [:])")
                let seen = try writer.ask("check")
                #expect(seen?.hasPrefix("read=7 ") == true, "\(seen ?? "no answer")")
                #expect(propertyList(at: file)?["other"] as? Int == 1)
                #expect(propertyList(at: file)?["later"] as? Int == 1)
            }
        }
    }
#endif
