// swift-tools-version: 6.1
// What the compiler says to the Apple-only spellings a user brings from a peer (Combine's operators on
// Foil's `$x`): `.ci/check-apple-diagnostics` type-checks this package for iOS with the kit and requires
// each `// expect:` line's error, and nothing else. In a hidden folder, so that the kit's run over the
// whole repository (which must find 0 errors) does not take it as a nested package.
import PackageDescription

let package = Package(
    name: "AppleDiagnostics",
    platforms: [.macOS(.v10_15), .iOS(.v13), .tvOS(.v13), .watchOS(.v6), .visionOS(.v1)],
    dependencies: [.package(name: "TypedDefaults", path: "../..")],
    targets: [
        .target(
            name: "AppleDiagnostics",
            dependencies: [.product(name: "TypedDefaults", package: "TypedDefaults")],
            path: "Sources/apple-diagnostics")
    ],
    swiftLanguageModes: [.v6]
)
