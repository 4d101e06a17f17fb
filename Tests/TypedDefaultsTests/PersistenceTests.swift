import Foundation
import Testing
import TypedDefaults

/// What `typed-defaults-probe dump` prints after `typed-defaults-probe write`: every date to the
/// microsecond, every URL exactly.
let fixtureLines = [
    "count=42",
    "date=1700000000.123456",
    "dates=0.001000,1800000000.500000",
    "theme=dark",
    "profile=Ada@-4000000000.250000",
    "urls=https://example.com/p?q=1&r=a%20b#frag https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4 "
        + "mailto:ada@example.com?subject=Hi%20there ftp://user@ftp.example.com:2121/pub/file.txt "
        + "file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt",
    "urlsByName=file:file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt first:https://example.com/p?q=1&r=a%20b#frag",
    "homepage=https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4",
]

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

    @Test func valuesSurviveASIGKILLOneSecondAfterTheWrite() throws {
        try withProcessSuite { suite in
            let writer = try ProbeProcess(["write", suite, "wait"])
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

    @Test func flushWritesTheValuesToDiskNow() throws {
        try withProcessSuite { suite in
            let store = try #require(DefaultsStore(suiteName: suite))
            store[UserDefaultTypedKey<Int>("count", defaultValue: 0)] = 42
            try store.flush()
            #expect(try ProbeProcess.run(["dump", suite]).lines.first == "count=42")
        }
    }
}

@Suite("Launch arguments override typed values")
struct LaunchArgumentTests {
    @Test func everyTypeWithATextFormReadsItsLaunchArgument() throws {
        let result = try ProbeProcess.run([
            "args", uniqueSuiteName(),
            "-count", "3", "-verbose", "YES", "-ratio", "2.5", "-scale", "1.5", "-name", "ada",
            "-site", "https://x.example/a?b=1", "-when", "2026-01-01T00:00:00.250Z", "-theme", "dark",
            "-list", #"(a, "b c")"#, "-map", "{a = 1; b = 2;}", "-small", "300",
        ])
        #expect(
            result.lines == [
                "count=3", "small=0", "verbose=true", "ratio=2.5", "scale=1.5", "name=ada",
                "site=https://x.example/a?b=1", "when=1767225600.25", "theme=dark", #"list=["a", "b c"]"#,
                #"map=[(key: "a", value: 1), (key: "b", value: 2)]"#,
                // Launch arguments are never stored.
                "stored=[]",
            ])
    }
}
