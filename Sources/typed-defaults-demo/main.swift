// The README's first command: `swift run typed-defaults-demo`.
//
// Counts its launches in UserDefaults.standard and keeps a theme, a list of recent runs and a Codable
// profile. Run it twice: the count goes up. `-theme dark` shows dark for one run without storing it;
// `--reset` clears everything it stored. A run whose values could not be saved says so, where and why,
// on standard error, and exits with status 1; input it does not understand gets a usage line and
// status 2, and counts as no launch.
import Foundation
import TypedDefaults

enum Theme: String, CaseIterable, UserDefaultConvertible { case light, dark, system }

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

let usage = """
    usage: typed-defaults-demo [--reset] [-theme light|dark|system]
      --reset        remove every value the demo stored
      -theme VALUE   show VALUE for this run only (a launch argument overrides, and is not stored)
      --help, -h     show this text
    """

/// Errors go to standard error, each once: the library reports a failed save again when the process
/// exits (its last try), which would repeat what the demo already said.
final class ErrorPrinter: @unchecked Sendable {
    // @unchecked: `printed` is read and written only with `lock` held.
    private let lock = NSLock()
    private var printed: Set<String> = []

    func print(_ message: String) {
        let isNew = lock.withLock { printed.insert(message).inserted }
        if isNew { FileHandle.standardError.write(Data((message + "\n").utf8)) }
    }
}
let errors = ErrorPrinter()
ErrorReporting.setHandler { errors.print($0.description) }

/// Where the values are kept, as the message of a failed save says it.
func storageLocation() -> String {
    #if canImport(Darwin)
        return "UserDefaults.standard (this program's preferences)"
    #else
        // Foundation's rule on Linux (Linux.md): $XDG_CONFIG_HOME when absolute, else $HOME/.config.
        let environment = ProcessInfo.processInfo.environment
        let folder =
            environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.config"
        return folder + "/" + ProcessInfo.processInfo.processName + ".plist"
    #endif
}

/// Stops with a usage line: `problem` on standard error, status 2, nothing stored.
func refuse(_ problem: String) -> Never {
    FileHandle.standardError.write(Data(("typed-defaults-demo: " + problem + "\n" + usage + "\n").utf8))
    exit(2)
}

// Arguments: every one is known, or the run stops before it stores anything.
var reset = false
var remaining = CommandLine.arguments.dropFirst()[...]
while let argument = remaining.popFirst() {
    switch argument {
    case "--help", "-h":
        print(usage)
        exit(0)
    case "--reset": reset = true
    case "-theme":
        // Foundation reads `-theme VALUE` as a launch argument; a value that does not parse as a theme
        // would be ignored (the stored or default theme shows), so it is refused here instead.
        guard let value = remaining.popFirst() else { refuse("-theme needs a value: light, dark or system") }
        guard Theme(rawValue: value) != nil else {
            refuse("-theme \(value) is not a theme (light, dark or system); the launch argument would be ignored")
        }
    default: refuse("unknown argument \(argument)")
    }
}

if reset {
    Defaults.removeAll()
    do {
        try Defaults.flush()
    } catch {
        errors.print("\(error)")
        errors.print("typed-defaults-demo: nothing was removed from \(storageLocation())")
        exit(1)
    }
    print("Removed every stored value. The next run starts again from launch 1.")
    exit(0)
}

let settings = DemoSettings()
settings.launchCount += 1
let now = Date()
if settings.profile == nil {
    settings.profile = Profile(name: NSUserName(), firstLaunch: now)
}
let stamp = ISO8601DateFormatter().string(from: now)
settings.recentRuns = Array((["run \(settings.launchCount) at \(stamp)"] + settings.recentRuns).prefix(3))
// Saved now, not only at exit, so that this run can say whether its launch was kept.
var saveError: (any Error)?
do { try Defaults.flush() } catch { saveError = error }

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
if let saveError {
    errors.print("\(saveError)")
    errors.print(
        "typed-defaults-demo: launch \(settings.launchCount) was NOT saved to \(storageLocation()): the next run will show the same count"
    )
    exit(1)
}
print("\nRun it again: launchCount goes up by one. Try `-theme dark`, or `--reset` to start over.")
