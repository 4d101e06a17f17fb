import Foundation
import Testing

@Suite("The files an Apple project needs ship with the library")
struct PackageFilesTests {
    /// The privacy manifest is copied into the library's resource bundle, on Linux as on Apple
    /// platforms, and declares the UserDefaults API with reason CA92.1.
    @Test func privacyManifestIsBundledAndDeclaresUserDefaults() throws {
        let manifest = try #require(Self.bundledPrivacyManifest(), "no PrivacyInfo.xcprivacy in a TypedDefaults bundle")
        let data = try Data(contentsOf: manifest)
        let plist = try #require(
            try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["NSPrivacyTracking"] as? Bool == false)
        let types = try #require(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
        let userDefaults = types.filter {
            $0["NSPrivacyAccessedAPIType"] as? String == "NSPrivacyAccessedAPICategoryUserDefaults"
        }
        #expect(userDefaults.count == 1)
        #expect(userDefaults.first?["NSPrivacyAccessedAPITypeReasons"] as? [String] == ["CA92.1"])
    }

    /// The manifest in the library's resource bundle beside the built products
    /// (`TypedDefaults_TypedDefaults.resources` on Linux, `.bundle` on Apple platforms).
    private static func bundledPrivacyManifest() -> URL? {
        guard let products = ProbeProcess.productsDirectory else { return nil }
        let bundles =
            (try? FileManager.default.contentsOfDirectory(at: products, includingPropertiesForKeys: nil)) ?? []
        for bundle in bundles where bundle.lastPathComponent.hasPrefix("TypedDefaults_TypedDefaults.") {
            let enumerator = FileManager.default.enumerator(at: bundle, includingPropertiesForKeys: nil)
            while let file = enumerator?.nextObject() as? URL {
                if file.lastPathComponent == "PrivacyInfo.xcprivacy" { return file }
            }
        }
        return nil
    }
}
