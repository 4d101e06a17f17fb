// The README's first command: `swift run typed-defaults-demo`.
//
// Counts its launches in UserDefaults.standard and keeps a theme, a list of recent runs and a Codable
// profile. Run it twice: the count goes up. `-theme dark` shows dark for one run without storing it;
// `--reset` clears everything it stored.
import Foundation
import TypedDefaults

enum Theme: String, UserDefaultConvertible { case light, dark, system }

struct Profile: Codable, Equatable, UserDefaultConvertible {
    var name: String
    var firstLaunch: Date
}

extension UserDefaultTypedKeys {
    static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
    static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .system)
    static let recentRuns = UserDefaultTypedKey<[String]>("recentRuns", defaultValue: [])
    static let profile = UserDefaultTypedKey<Profile?>("profile")
}

struct DemoSettings: Sendable {
    @UserDefault(.launchCount) var launchCount: Int
    @UserDefault(.theme) var theme: Theme
    @UserDefault(.recentRuns) var recentRuns: [String]
    @UserDefault(.profile) var profile: Profile?
}

let arguments = CommandLine.arguments.dropFirst()
if arguments.contains("--help") || arguments.contains("-h") {
    print(
        """
        usage: typed-defaults-demo [--reset] [-theme light|dark|system]
          --reset        remove every value the demo stored
          -theme VALUE   show VALUE for this run only (a launch argument overrides, and is not stored)
        """)
    exit(0)
}

if arguments.contains("--reset") {
    Defaults.removeAll()
    do {
        try Defaults.flush()
        print("Removed every stored value. The next run starts again from launch 1.")
        exit(0)
    } catch {
        print("Could not save: \(error)")
        exit(1)
    }
}

let settings = DemoSettings()
settings.launchCount += 1
let now = Date()
if settings.profile == nil {
    settings.profile = Profile(name: NSUserName(), firstLaunch: now)
}
let stamp = ISO8601DateFormatter().string(from: now)
settings.recentRuns = Array((["run \(settings.launchCount) at \(stamp)"] + settings.recentRuns).prefix(3))

let profileText = settings.profile.map {
    "\($0.name), first launch \(ISO8601DateFormatter().string(from: $0.firstLaunch))"
}
let themeNote = Defaults.hasKey(.theme) ? "" : "  (not stored: default or launch argument)"
let rows: [(String, String, String)] = [
    ("launchCount", "Int", "\(settings.launchCount)"),
    ("theme", "Theme", settings.theme.rawValue + themeNote),
    ("recentRuns", "[String]", settings.recentRuns.joined(separator: "\n" + String(repeating: " ", count: 27))),
    ("profile", "Profile?", profileText ?? "nil"),
]

print("TypedDefaults demo: values kept in UserDefaults.standard\n")
print(
    "key".padding(toLength: 13, withPad: " ", startingAt: 0) + "type".padding(toLength: 14, withPad: " ", startingAt: 0)
        + "value")
print(String(repeating: "-", count: 72))
for (key, type, value) in rows {
    print(
        key.padding(toLength: 13, withPad: " ", startingAt: 0) + type.padding(toLength: 14, withPad: " ", startingAt: 0)
            + value)
}
print("\nRun it again: launchCount goes up by one. Try `-theme dark`, or `--reset` to start over.")
