import Foundation
import Testing
import TypedDefaults

@Suite("Values survive the process that wrote them")
struct PersistenceTests {
    @Test(arguments: ["return", "exit"])
    func valuesWrittenWithoutSynchronizeSurviveANormalExit(_ ending: String) throws {
        try withProcessSuite { suite in
            let writer = try ProbeProcess.run(["write", suite, ending])
            #expect(writer.status == 0, "\(writer.standardError)")
            let reader = try ProbeProcess.run(["dump", suite])
            #expect(reader.lines == fixtureLines)
        }
    }

    /// With the app keeping Dispatch's `.utility` queue busy too: the save must not wait for it. On a
    /// thread of its own: the second before the kill holds none of Swift Testing's threads.
    @Test(.timeLimit(.minutes(2)), arguments: ["wait", "busy-wait"])
    func valuesSurviveASIGKILLOneSecondAfterTheWrite(_ ending: String) async throws {
        try await onThreadOfItsOwn {
            try withProcessSuite { suite in
                let writer = try ProbeProcess(["write", suite, ending])
                #expect(writer.waitForLine("written"))
                // The claim is about a kill one second after the write: the second is the claim's, not a guess.
                Thread.sleep(forTimeInterval: 1)
                writer.kill()
                let ended = writer.finish()
                #expect(ended.reason == .uncaughtSignal)
                let reader = try ProbeProcess.run(["dump", suite])
                #expect(reader.lines == fixtureLines)
            }
        }
    }

    @Test func twoProcessesWritingOneSuiteAtOnceKeepEveryValue() throws {
        try withProcessSuite { suite in
            let count = 150
            let first = try ProbeProcess(["burst", suite, "a", "\(count)"])
            let second = try ProbeProcess(["burst", suite, "b", "\(count)"])
            #expect(first.waitForLine("ready") && second.waitForLine("ready"))
            try first.send("go")
            try second.send("go")
            let results = [first.finish(), second.finish()]
            #expect(results.map(\.status) == [0, 0], "\(results.map(\.standardError))")
            #expect(try ProbeProcess.run(["count", suite, "a"]).lines == ["\(count)"])
            #expect(try ProbeProcess.run(["count", suite, "b"]).lines == ["\(count)"])
        }
    }

    // The Linux saver's own files: there is no saver on Apple platforms.
    #if os(Linux)
        /// `exit()` inside a `modify` transform, which holds the suite's locks: the exit-time save saves
        /// under them instead of waiting for them forever.
        @Test func exitInsideModifyExitsAndSavesWhatWasWritten() throws {
            try withProcessSuite { suite in
                let probe = try ProbeProcess(["exit-in-modify", suite])
                #expect(pollUntil { !probe.process.isRunning }, "the probe hung at exit")
                if probe.process.isRunning { probe.kill() }
                let ended = probe.finish()
                #expect(ended.status == 0, "\(ended.standardError)")
                #expect(try ProbeProcess.run(["dump", suite]).lines == fixtureLines)
            }
        }

        /// `exit()` from a SIGINT handler that interrupts writes and saves, twenty times: every process
        /// ends, having saved what it could or said why not.
        @Test func exitFromASignalHandlerNeverHangs() throws {
            try withProcessSuite { suite in
                var hung = 0
                for _ in 0..<20 {
                    let probe = try ProbeProcess(["sigint", suite])
                    #expect(probe.waitForLine("ready"))
                    Foundation.kill(probe.process.processIdentifier, SIGINT)
                    if !pollUntil(waitLimit, { !probe.process.isRunning }) {
                        hung += 1
                        probe.kill()
                    }
                    _ = probe.finish()
                }
                #expect(hung == 0, "\(hung) of 20 processes hung at exit")
            }
        }
        @Test func aFailedSaveIsReportedNotSwallowed() throws {
            // A configuration folder below a regular file cannot be created, even by root.
            let blocker = FileManager.default.temporaryDirectory.appendingPathComponent("typed-defaults-\(UUID())")
            try Data("not a folder".utf8).write(to: blocker)
            defer { try? FileManager.default.removeItem(at: blocker) }
            let result = try ProbeProcess.run(
                ["flush", uniqueSuiteName()], environment: ["XDG_CONFIG_HOME": blocker.path + "/config"])
            #expect(result.status == 1)
            #expect(result.standardOutput.contains("error: TypedDefaults: could not save suite"))
            // The value is still pending at exit, so the exit save reports it too.
            #expect(result.standardError.contains("could not save suite"))
        }

        @Test func anUnreadableFileIsKeptAsideNotOverwritten() throws {
            let configHome = FileManager.default.temporaryDirectory.appendingPathComponent("typed-defaults-\(UUID())")
            try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: configHome) }
            let suite = uniqueSuiteName()
            let garbage = Data("<plist>half a file, or someone else's bytes".utf8)
            try garbage.write(to: configHome.appendingPathComponent(suite + ".plist"))
            let environment = ["XDG_CONFIG_HOME": configHome.path]

            let result = try ProbeProcess.run(["flush", suite], environment: environment)
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardError.contains("was not a property list; it is kept as"))
            #expect(try ProbeProcess.run(["dump", suite], environment: environment).lines.first == "count=1")
            let kept = try FileManager.default.contentsOfDirectory(atPath: configHome.path)
                .filter { $0.hasPrefix(suite + ".plist.unreadable-") }
            #expect(kept.count == 1)
            let keptBytes = try kept.first.map { try Data(contentsOf: configHome.appendingPathComponent($0)) }
            #expect(keptBytes == garbage)
        }
    #endif

    @Test func flushWritesTheValuesToDiskNow() throws {
        try withProcessSuite { suite in
            let store = try #require(DefaultsStore(suiteName: suite))
            store[UserDefaultTypedKey<Int>("count", defaultValue: 0)] = 42
            try store.flush()
            #expect(try ProbeProcess.run(["dump", suite]).lines.first == "count=42")
        }
    }
}
