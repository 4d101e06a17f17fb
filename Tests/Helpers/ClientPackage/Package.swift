// swift-tools-version: 6.1
// A separate client of TypedDefaults, as a user's package would be. CI builds it in Swift 6 language
// mode with warnings as errors and runs it: it uses exactly the public API the issues pin and checks
// that it behaves as commented.
import PackageDescription

let package = Package(
    name: "TypedDefaultsClient",
    // The library's minimums: SwiftPM refuses a dependency that requires more than its client.
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    dependencies: [.package(name: "TypedDefaults", path: "../../..")],
    targets: [
        .executableTarget(
            name: "typed-defaults-client",
            dependencies: [.product(name: "TypedDefaults", package: "TypedDefaults")])
    ],
    swiftLanguageModes: [.v6]
)
