import Foundation
import Testing
import TypedDefaults

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

    @Test(arguments: [
        ("YES", true), ("y", true), ("T", true), ("true", true), ("NO", false), ("n", false), ("F", false),
        ("0", false),
    ])
    func aBoolLaunchArgumentReadsInEveryFormSwiftyUserDefaultsAccepted(_ text: String, _ expected: Bool) throws {
        let result = try ProbeProcess.run(["args", uniqueSuiteName(), "-verbose", text])
        #expect(result.lines.contains("verbose=\(expected)"))
    }
}
