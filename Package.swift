// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "TypedDefaults",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    products: [
        .library(name: "TypedDefaults", targets: ["TypedDefaults"]),
        .executable(name: "typed-defaults-demo", targets: ["typed-defaults-demo"]),
        .executable(name: "typed-defaults-bench", targets: ["typed-defaults-bench"]),
    ],
    targets: [
        .target(name: "TypedDefaults"),
        .executableTarget(name: "typed-defaults-demo", dependencies: ["TypedDefaults"]),
        .executableTarget(name: "typed-defaults-bench", dependencies: ["TypedDefaults"]),
        // A small program the tests start as a child process to prove persistence across processes.
        .executableTarget(name: "typed-defaults-probe", dependencies: ["TypedDefaults"]),
        .testTarget(name: "TypedDefaultsTests", dependencies: ["TypedDefaults", "typed-defaults-probe"]),
    ],
    swiftLanguageModes: [.v6]
)
