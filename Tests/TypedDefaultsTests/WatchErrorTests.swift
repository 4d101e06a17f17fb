import Foundation
import Testing

#if os(Linux)
    /// Runs `body` with the path of a plain file to give a probe as its `HOME`: its configuration folder
    /// cannot be made or watched.
    func withHomeThatIsAFile(_ body: (String) throws -> Void) throws {
        try withTemporaryFolder { root in
            let file = root.appendingPathComponent("home-is-a-file")
            try Data("x".utf8).write(to: file)
            try body(file.path)
        }
    }

    /// A suite that cannot be watched says why: its folder is missing, not a folder or not accessible.
    /// "No inotify watch is left" is kept for the system's limits. Before, every refusal of
    /// `inotify_add_watch` was reported as "no inotify watch is left (Not a directory)".
    @Suite("A suite that cannot be watched names the cause")
    struct WatchErrorTests {
        @Test func aHomeThatIsAFileIsNamedAsNotAFolder() throws {
            try withHomeThatIsAFile { home in
                let output = try ProbeProcess.run(
                    ["write", uniqueSuiteName()], environment: ["HOME": home], unsetting: ["XDG_CONFIG_HOME"])
                #expect(
                    output.standardError.contains("its folder \(home)/.config is not a folder"),
                    "\(output.standardError)")
                #expect(!output.standardError.contains("no inotify watch is left"), "\(output.standardError)")
            }
        }

        @Test func aFolderThatCannotBeMadeIsNamedAsMissing() throws {
            // Nothing can be made below /proc, for root either.
            let home = "/proc/typed-defaults-no-such-home-\(UUID())"
            let output = try ProbeProcess.run(
                ["write", uniqueSuiteName()], environment: ["HOME": home], unsetting: ["XDG_CONFIG_HOME"])
            #expect(
                output.standardError.contains("its folder \(home)/.config does not exist and cannot be made"),
                "\(output.standardError)")
            #expect(!output.standardError.contains("no inotify watch is left"), "\(output.standardError)")
        }
    }
#endif
