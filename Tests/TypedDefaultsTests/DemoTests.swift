import Foundation
import Testing

/// The README's first command, run as a user runs it: a real process with a HOME of its own.
@Suite("The demo tells the truth: failures on standard error, once, and a non-zero status")
struct DemoTests {
    typealias Run = ProbeProcess.Output

    /// Runs the demo built beside the probe, with `home` as HOME and no XDG_CONFIG_HOME unless given.
    private func demo(_ arguments: [String], home: URL, configHome: String? = nil) throws -> Run {
        var environment = ["HOME": home.path]
        environment["XDG_CONFIG_HOME"] = configHome
        return try ProbeProcess.run(
            arguments, environment: environment, unsetting: configHome == nil ? ["XDG_CONFIG_HOME"] : [],
            program: "typed-defaults-demo")
    }

    private func launchCount(in run: Run) -> String? {
        run.standardOutput.split(separator: "\n").first { $0.hasPrefix("launchCount") }?
            .split(separator: " ").last.map(String.init)
    }

    private func occurrences(of text: String, in string: String) -> Int {
        string.components(separatedBy: text).count - 1
    }

    @Test func twoRunsCountTwoLaunchesAndExitZero() throws {
        try withTemporaryFolder { home in
            let first = try demo([], home: home)
            let second = try demo([], home: home)
            #expect(first.status == 0 && second.status == 0, "\(first.standardError)\(second.standardError)")
            #expect(launchCount(in: first) == "1")
            #expect(launchCount(in: second) == "2")
            #expect(second.standardOutput.contains("goes up by one"))
        }
    }

    /// Before, a run that could not save printed the table and "launchCount goes up by one" and exited 0.
    #if os(Linux)
        @Test func aRunThatCannotSaveSaysSoWhereAndWhyAndExitsOne() throws {
            try withTemporaryFolder { home in
                // A configuration folder below a regular file: no user, root included, can make it.
                let blocker = home.appendingPathComponent("not-a-folder")
                try Data().write(to: blocker)
                let configHome = blocker.appendingPathComponent("config").path
                let run = try demo([], home: home, configHome: configHome)
                #expect(run.status == 1)
                #expect(!run.standardOutput.contains("goes up by one"))
                #expect(run.standardError.contains("launch 1 was NOT saved to \(configHome)/typed-defaults-demo.plist"))
                #expect(run.standardError.contains("Not a directory"))
                #expect(occurrences(of: "could not save suite", in: run.standardError) == 1, "\(run.standardError)")
            }
        }

        /// Before, `--reset` printed "Could not save" on standard output and the save at exit printed it
        /// again on standard error.
        @Test func aResetThatCannotSaveReportsOnceOnStandardError() throws {
            try withTemporaryFolder { home in
                #expect(try demo([], home: home).status == 0)
                // The suite's lock file replaced by a folder: the next save cannot open it.
                let lock = home.appendingPathComponent(".config/.typed-defaults-demo.plist.lock")
                try? FileManager.default.removeItem(at: lock)
                try FileManager.default.createDirectory(at: lock, withIntermediateDirectories: false)
                let run = try demo(["--reset"], home: home)
                #expect(run.status == 1)
                #expect(run.standardOutput.isEmpty, "\(run.standardOutput)")
                #expect(occurrences(of: "could not save suite", in: run.standardError) == 1, "\(run.standardError)")
                #expect(run.standardError.contains("nothing was removed"))
            }
        }
    #endif

    /// Before, unknown flags and a theme that is not one were accepted, and the run counted as a launch.
    @Test(arguments: [["--bogus"], ["-theme", "purple"], ["-theme"], ["--reset", "extra"]])
    func inputItDoesNotUnderstandGetsAUsageLineAndCountsNoLaunch(_ arguments: [String]) throws {
        try withTemporaryFolder { home in
            let refused = try demo(arguments, home: home)
            #expect(refused.status == 2)
            #expect(refused.standardError.contains("usage: typed-defaults-demo"))
            #expect(refused.standardOutput.isEmpty)
            let next = try demo([], home: home)
            #expect(launchCount(in: next) == "1", "the refused run counted as a launch")
        }
    }

    @Test func aValidThemeShowsForOneRunWithoutBeingStored() throws {
        try withTemporaryFolder { home in
            let run = try demo(["-theme", "dark"], home: home)
            #expect(run.status == 0)
            #expect(run.standardOutput.contains("dark  (not stored"))
            #expect(try demo([], home: home).standardOutput.contains("system  (not stored"))
        }
    }
}
