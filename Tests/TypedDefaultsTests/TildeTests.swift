import Foundation
import Testing

#if os(Linux)
    /// A path stored as `~/x` reads as a file under `$HOME`, the home the library saves suites under
    /// (Linux.md), not the password file's. Before, it read as `file:///<password-file home>/x`.
    @Suite("A tilde in a stored path is the library's home")
    struct TildeTests {
        @Test func aTildeResolvesAgainstHOME() throws {
            try withTemporaryFolder { root in
                let home = root.appendingPathComponent("home").path
                let output = try ProbeProcess.run(
                    ["read-url", "-", "~/notes/a.txt", "~", "/abs/path"], environment: ["HOME": home])
                #expect(
                    output.lines == [
                        URL(fileURLWithPath: home + "/notes/a.txt").absoluteString,
                        URL(fileURLWithPath: home).absoluteString, "file:///abs/path",
                    ], "\(output.standardError)")
            }
        }

        @Test func aTildeWithoutAHomeIsTheRootFolder() throws {
            let output = try ProbeProcess.run(["read-url", "-", "~/x"], unsetting: ["HOME"])
            #expect(output.lines == ["file:///x"], "\(output.standardError)")
        }
    }
#endif
