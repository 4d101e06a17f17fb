// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TypedDefaults",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    // The library, and the `typed-defaults` command (`swift build -c release --product typed-defaults`
    // gives one binary to copy onto a server). The demo, the benchmark and the probe are executable
    // targets only, which `swift run` finds in this package and which packages that depend on it do not see.
    products: [
        .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
        .executable(name: "typed-defaults", targets: ["typed-defaults"]),
    ],
    targets: [
        // The privacy manifest declares the UserDefaults API and its reason (CA92.1: values the app
        // itself reads and writes), which App Store review asks of apps and the libraries they ship.
        .target(name: "TypedDefaults", resources: [.copy("PrivacyInfo.xcprivacy")]),
        .executableTarget(name: "typed-defaults-demo", dependencies: ["TypedDefaults"]),
        // Reads and edits a suite from the shell; its arguments are parsed by hand (no dependency).
        .executableTarget(name: "typed-defaults", dependencies: ["TypedDefaults"]),
        .executableTarget(name: "typed-defaults-bench", dependencies: ["TypedDefaults"]),
        // A small program the tests start as a child process to prove persistence across processes.
        .executableTarget(
            name: "typed-defaults-probe", dependencies: ["TypedDefaults", "ProbeSettings"], path: "Tests/Helpers/Probe"),
        // An app's settings module for the probe: keys and a wrapper that must follow the app's
        // `DefaultsStore.bootstrap` from another module.
        .target(name: "ProbeSettings", dependencies: ["TypedDefaults"], path: "Tests/Helpers/ProbeSettings"),
        // Removes, when the test run exits, the files its suites left in the real configuration folder
        // (`$XDG_CONFIG_HOME` or `$HOME/.config`): Foundation reads that folder before any test runs.
        .target(name: "TestEnvironment", path: "Tests/Helpers/TestEnvironment"),
        .testTarget(
            name: "TypedDefaultsTests",
            dependencies: [
                "TypedDefaults", "typed-defaults-probe", "typed-defaults-demo", "typed-defaults", "TestEnvironment",
                "ProbeSettings",
            ]),
    ],
    swiftLanguageModes: [.v6]
)
