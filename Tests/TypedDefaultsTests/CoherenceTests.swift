import Foundation
import Observation
import Testing
import TypedDefaults

@Suite("Every read path agrees with what is stored, in this process and across processes")
struct CoherenceTests {
    @Test(arguments: ["suite", "standard"])
    func hasKeySnapshotAndRemoveAllAgreeWithReadsAfterPlainAPIChanges(_ kind: String) throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        // The standard domain through a prefix of the test's own, so that removeAll touches only it.
        let store =
            kind == "suite"
            ? try #require(DefaultsStore(suiteName: suite))
            : DefaultsStore(storage: UserDefaults.standard, keyPrefix: suite + ".")
        let plain = kind == "suite" ? try #require(UserDefaults(suiteName: suite)) : UserDefaults.standard
        let written = UserDefaultTypedKey<Int>("written", defaultValue: 0)
        let plainOnly = UserDefaultTypedKey<Int>("plainOnly", defaultValue: 0)
        defer { store.removeAll() }

        // The library writes, the plain API removes.
        store[written] = 1
        plain.removeObject(forKey: store.keyPrefix + "written")
        #expect(store[written] == 0)
        #expect(!store.hasKey(written))
        #expect(store.snapshot()["written"] == nil)

        // The plain API writes (not saved), the library lists and removes it.
        plain.set(3, forKey: store.keyPrefix + "plainOnly")
        #expect(store[plainOnly] == 3)
        #expect(store.hasKey(plainOnly))
        #expect(store.snapshot()["plainOnly"] as? Int == 3)
        store.removeAll()
        #expect(store[plainOnly] == 0)
        #expect(!store.hasKey(plainOnly))
        #expect(store.snapshot().isEmpty)
    }

    @Test(arguments: Backend.allCases)
    func modifyFromEightThreadsLosesNoIncrement(_ backend: Backend) {
        withStore(backend) { store in
            let counter = UserDefaultTypedKey<Int>("counter", defaultValue: 0)
            let failures = Recorder<String>()
            DispatchQueue.concurrentPerform(iterations: 8) { _ in
                for _ in 0..<250 {
                    do {
                        try store.modify(counter) { $0 += 1 }
                    } catch {
                        failures.append("\(error)")
                    }
                }
            }
            #expect(failures.all.isEmpty)
            #expect(store[counter] == 2_000)
        }
    }

    @Test func modifyThatThrowsStoresNothing() throws {
        withStore(.inMemory) { store in
            struct Refused: Error {}
            let counter = UserDefaultTypedKey<Int>("counter", defaultValue: 0)
            store[counter] = 4
            #expect(throws: Refused.self) { try store.modify(counter) { _ in throw Refused() } }
            #expect(store[counter] == 4)
            #expect((try? store.modify(counter) { $0 *= 10 }) == 40)
            #expect(store[counter] == 40)
        }
    }
}

#if os(Linux)

    /// The answer of a watching probe to "check", taken apart.
    private struct Seen {
        let reads: String
        let events: Set<String>
        /// The value of the name `marker` the reader holds: a hand edit that sets it has been seen.
        let marker: String

        init?(_ line: String?) {
            guard let line, let range = line.range(of: " events="), let end = line.range(of: " marker=") else {
                return nil
            }
            reads = String(line[..<range.lowerBound])
            events = Set(line[range.upperBound..<end.lowerBound].split(separator: ",").map(String.init))
            marker = String(line[end.upperBound...])
        }
    }

    /// What `reader` answers to "check", asked again until `condition` holds of it or the wait's limit
    /// passes: the last answer.
    private func check(_ reader: ProbeProcess, until condition: (Seen) -> Bool) -> Seen? {
        var seen: Seen?
        _ = pollUntil {
            seen = Seen(try? reader.ask("check"))
            return seen.map(condition) ?? false
        }
        return seen
    }

    /// A suite in a configuration folder of the test's own, first written by the probe command `first`,
    /// and a probe watching it.
    private struct WatchedSuite {
        let suite: String
        let configHome: URL
        let file: URL
        let environment: [String: String]
        let reader: ProbeProcess

        static func with(firstWriting first: String, _ body: (WatchedSuite) throws -> Void) throws {
            try withTemporaryFolder { configHome in
                let suite = uniqueSuiteName()
                let environment = ["XDG_CONFIG_HOME": configHome.path]
                let written = try ProbeProcess.run([first, suite], environment: environment)
                #expect(written.status == 0, "\(written.standardError)")
                #expect(written.lines == (first == "flush" ? ["flushed"] : []))
                let reader = try ProbeProcess(["watch", suite], environment: environment)
                #expect(reader.waitForLine("ready"))
                try body(
                    WatchedSuite(
                        suite: suite, configHome: configHome, file: configHome.appendingPathComponent(suite + ".plist"),
                        environment: environment, reader: reader))
            }
        }

        /// Edits the file by hand: sets `changes` and `marker` (a rename, as an editor saving atomically
        /// does). Returns what the reader holds once it has brought in the whole edit. A reader brings names
        /// in one by one and may answer between two of them, so the edit's own marker only says the reader
        /// is looking at it; a second edit, written then, is looked at once the first is all in, and its
        /// marker (`-marker`) says so.
        func edit(
            _ changes: [String: Any], marker: Int, format: PropertyListSerialization.PropertyListFormat = .binary
        ) throws -> Seen? {
            var seen: Seen?
            for (step, marker) in [marker, -marker].enumerated() {
                var values = try #require(propertyList(at: file))
                if step == 0 { values.merge(changes) { _, new in new } }
                values["marker"] = marker
                try PropertyListSerialization.data(fromPropertyList: values, format: format, options: 0)
                    .write(to: file, options: .atomic)
                seen = check(reader) { $0.marker == "\(marker)" }
            }
            return seen
        }
    }

    @Suite("A running process sees what other processes save (Linux)")
    struct CrossProcessCoherenceTests {
        /// The window the library promises between another process's save and every read path here.
        static let window: TimeInterval = 0.2
        /// What one question to the probe may take beyond the window: a round trip through two pipes.
        static let askTime: TimeInterval = 0.1

        @Test func aValueAnotherProcessSavedIsSeenByEveryReadPathAndObserver() throws {
            try withProcessSuite { suite in
                let reader = try ProbeProcess(["watch", suite])
                #expect(reader.waitForLine("ready"))
                #expect(try ProbeProcess.run(["flush", suite]).lines == ["flushed"])
                let saved = Date()
                let seen = check(reader) {
                    $0.reads == "read=1 wrapper=1 hasKey=true snapshot=1" && $0.events.count == 3
                }
                // A claim about time: not measured under ThreadSanitizer, which slows every process.
                if !runsUnderThreadSanitizer {
                    #expect(Date().timeIntervalSince(saved) < Self.window + Self.askTime, "not seen within the window")
                }
                #expect(seen?.reads == "read=1 wrapper=1 hasKey=true snapshot=1")
                #expect(seen?.events == ["update 0", "callback 0->1", "update 1"])
                try reader.send("quit")
                #expect(reader.finish().status == 0)
            }
        }

        /// `hasKey` of a value equal to the key's default, which reads cannot tell from the default: on
        /// Linux it is answered from what the library knows the file holds, without a copy of the domain.
        @Test func aDefaultEqualValueAnotherProcessSavedCountsAsStored() throws {
            try withProcessSuite { suite in
                let reader = try ProbeProcess(["watch", suite])
                let writer = try ProbeProcess(["watch", suite])
                #expect(reader.waitForLine("ready") && writer.waitForLine("ready"))
                #expect(Seen(try reader.ask("check"))?.reads == "read=0 wrapper=0 hasKey=false snapshot=none")
                #expect(try writer.ask("write 0") == "wrote")
                let seen = check(reader) { $0.reads == "read=0 wrapper=0 hasKey=true snapshot=0" }
                #expect(seen?.reads == "read=0 wrapper=0 hasKey=true snapshot=0")
                #expect(try writer.ask("write 5") == "wrote")
                _ = check(reader) { $0.reads.hasPrefix("read=5") }
                #expect(try writer.ask("remove") == "removed")
                let removed = check(reader) { $0.reads == "read=0 wrapper=0 hasKey=false snapshot=none" }
                #expect(removed?.reads == "read=0 wrapper=0 hasKey=false snapshot=none")
                for probe in [reader, writer] {
                    try probe.send("quit")
                    #expect(probe.finish().status == 0)
                }
            }
        }

        @Test func aTrackedReadHearsOfAValueAnotherProcessSaved() throws {
            try withProcessSuite { suite in
                let store = try #require(DefaultsStore(suiteName: suite))
                let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
                let fired = Recorder<Int>()
                withObservationTracking {
                    _ = store[count]
                } onChange: {
                    fired.append(1)
                }
                #expect(try ProbeProcess.run(["flush", suite]).lines == ["flushed"])
                let saved = Date()
                #expect(pollUntil { fired.all == [1] })
                // A claim about time: not measured under ThreadSanitizer, which slows every process.
                if !runsUnderThreadSanitizer {
                    #expect(Date().timeIntervalSince(saved) < Self.window, "not seen within the window")
                }
                #expect(fired.all == [1])
                #expect(store[count] == 1)
            }
        }

        /// A name this process has not used yet is put aside when another process saves it (bringing in
        /// every name many writers save cost each of them more than its own work), and reads back at its
        /// first use and in a listing.
        @Test func aValueSavedElsewhereForANameNotUsedHereReadsBackAtFirstUseAndInAListing() throws {
            try withProcessSuite { suite in
                let store = try #require(DefaultsStore(suiteName: suite))
                let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
                #expect(store[count] == 0)
                // One save of the fixture: "count", used here, and names this process has not used.
                #expect(try ProbeProcess.run(["write", suite, "return"]).status == 0)
                #expect(pollUntil { store[count] == 42 })
                #expect(store[UserDefaultTypedKey<[Date]>("dates", defaultValue: [])].count == 2)
                let listed = store.snapshot()
                #expect((listed["homepage"] as? String)?.hasPrefix("https://") == true)
                #expect(listed.count == fixtureLines.count)
            }
        }

        /// Stored values are compared by kind and bits, not `==`: a NaN that did not change is not a
        /// change when another process saves something else.
        @Test func aNaNIsNotAChangeWhenAnotherProcessSavesSomethingElse() throws {
            try withProcessSuite { suite in
                let store = try #require(DefaultsStore(suiteName: suite))
                let ratio = UserDefaultTypedKey<Double>("ratio", defaultValue: 0)
                let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
                store[ratio] = .nan
                try store.flush()
                let heard = Recorder<String>()
                let token = store.observe(ratio) { change in
                    heard.append("\(change.oldValue)->\(change.newValue)")
                }
                defer { token.cancel() }
                #expect(store[count] == 0)
                for _ in 0..<3 {
                    #expect(try ProbeProcess.run(["flush", suite]).lines == ["flushed"])
                    #expect(pollUntil { store[count] == 1 })
                    store[count] = 0
                    try store.flush()
                }
                #expect(heard.all.isEmpty)
                #expect(store[ratio].isNaN)
            }
        }

        @Test(arguments: [true, false])
        func aHandEditOfTheFileIsSeen(atomically: Bool) throws {
            try WatchedSuite.with(firstWriting: "flush") { watched in
                let (file, reader) = (watched.file, watched.reader)

                // An editor: the whole file written again, by a rename or in place.
                var values = try #require(propertyList(at: file))
                values["count"] = 9
                let data = try PropertyListSerialization.data(fromPropertyList: values, format: .xml, options: 0)
                try data.write(to: file, options: atomically ? .atomic : [])
                let edited = Date()
                let seen = check(reader) {
                    $0.reads == "read=9 wrapper=9 hasKey=true snapshot=9" && $0.events.contains("update 9")
                }
                // A claim about time: not measured under ThreadSanitizer, which slows every process.
                if !runsUnderThreadSanitizer {
                    #expect(Date().timeIntervalSince(edited) < Self.window + Self.askTime, "not seen within the window")
                }
                #expect(seen?.reads == "read=9 wrapper=9 hasKey=true snapshot=9")
                #expect(seen?.events.contains("callback 1->9") == true && seen?.events.contains("update 9") == true)
                try reader.send("quit")
                #expect(reader.finish().status == 0)
            }
        }

        @Test func aWriteNotSavedYetWinsOverTheFileUntilItIsSaved() throws {
            try WatchedSuite.with(firstWriting: "flush") { watched in
                let (file, reader) = (watched.file, watched.reader)

                // Hold the suite's file lock, so the reader's write cannot be saved yet.
                let lockPath = watched.configHome.appendingPathComponent("." + watched.suite + ".plist.lock").path
                let lock = open(lockPath, O_RDWR)
                try #require(lock >= 0 && flock(lock, LOCK_EX) == 0)
                #expect(try reader.ask("write 5") == "wrote")
                let seen = try watched.edit(["count": 7], marker: 1)
                #expect(seen?.marker == "-1", "the reader never looked at the edit")
                #expect(seen?.reads == "read=5 wrapper=5 hasKey=true snapshot=5")

                // Once saved, the write is the file's value too.
                flock(lock, LOCK_UN)
                close(lock)
                try reader.send("quit")
                #expect(reader.finish().status == 0)
                #expect(propertyList(at: file)?["count"] as? Int == 5)
            }
        }

        /// A change of a value's type alone (an integer to a Boolean and back) is a change: compared by
        /// kind and bits, not by `==`, which takes `1` and `true` for one value.
        @Test func aChangeOfTypeAloneIsBroughtIn() throws {
            try WatchedSuite.with(firstWriting: "flush") { watched in
                // (Not a whole real: Foundation on Linux hands back a stored `1.0` as `1`.)
                for (marker, (value, shown)) in [(1, (true as Any, "true")), (2, (1 as Any, "1"))] {
                    let seen = try watched.edit(["count": value], marker: marker, format: .xml)
                    #expect(seen?.marker == "\(-marker)", "the reader never looked at the edit")
                    #expect(seen?.reads.hasSuffix("snapshot=\(shown)") == true, "\(seen?.reads ?? "nothing")")
                }
                try watched.reader.send("quit")
                #expect(watched.reader.finish().status == 0)
            }
        }

        @Test func aFileBrokenByHandLosesNoValueTheRunningProcessKnew() throws {
            try WatchedSuite.with(firstWriting: "write") { watched in
                let (suite, reader) = (watched.suite, watched.reader)

                try Data("half a file".utf8).write(to: watched.file)
                #expect(try reader.ask("write 5") == "wrote")
                try reader.send("quit")
                #expect(reader.finish().status == 0)

                let dump = try ProbeProcess.run(["dump", suite], environment: watched.environment).lines
                #expect(dump == ["count=5"] + fixtureLines.dropFirst())
                let kept = try FileManager.default.contentsOfDirectory(atPath: watched.configHome.path)
                    .filter { $0.hasPrefix(suite + ".plist.unreadable-") }
                #expect(kept.count == 1)
            }
        }

        /// Foundation reads a suite's file at its first read; reads racing with that one saw an empty
        /// suite (one run in six with four threads).
        @Test func threadsReadingASavedSuiteAtOnceAllSeeItsValues() throws {
            let suites = (0..<20).map { uniqueSuiteName() + ".\($0)" }
            defer { suites.forEach(DefaultsStore.removeSuite(named:)) }
            let environment = ProcessInfo.processInfo.environment
            let configHome =
                environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (environment["HOME"] ?? "") + "/.config"
            try FileManager.default.createDirectory(atPath: configHome, withIntermediateDirectories: true)
            let saved = try PropertyListSerialization.data(fromPropertyList: ["count": 1], format: .binary, options: 0)
            for suite in suites {
                try saved.write(to: URL(fileURLWithPath: configHome).appendingPathComponent(suite + ".plist"))
            }
            let reads = Recorder<Int>()
            for suite in suites {
                let store = try #require(DefaultsStore(suiteName: suite))
                let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
                DispatchQueue.concurrentPerform(iterations: 4) { _ in reads.append(store[count]) }
            }
            #expect(reads.all == Array(repeating: 1, count: 80))
        }

        /// A process that opened the suite before another saved must not take the file's new value for
        /// one it holds: its first `modify` reads what was saved.
        @Test func aValueSavedAfterTheSuiteWasOpenedIsWhatTheFirstModifyReads() throws {
            try withProcessSuite { suite in
                let late = try ProbeProcess(["modify", suite, "1"])
                #expect(late.waitForLine("ready"))
                #expect(try ProbeProcess.run(["flush", suite]).lines == ["flushed"])
                try late.send("go")
                #expect(late.finish().status == 0)
                #expect(try ProbeProcess.run(["dump", suite]).lines.first == "count=2")
            }
        }

        @Test func fourProcessesModifyingOneKeyKeepEveryIncrement() throws {
            try withProcessSuite { suite in
                let writers = try (0..<4).map { _ in try ProbeProcess(["modify", suite, "250"]) }
                #expect(writers.allSatisfy { $0.waitForLine("ready") })
                for writer in writers { try writer.send("go") }
                let ended = writers.map { $0.finish() }
                #expect(ended.map(\.status) == [0, 0, 0, 0], "\(ended.map(\.standardError))")
                let dump = try ProbeProcess.run(["dump", suite]).lines
                #expect(dump.first == "count=1000", "\(dump)")
            }
        }
    }

#endif
