import Foundation
import Testing
import TypedDefaults

@Suite("Conflicting keys are reported")
struct KeyConflictTests {
    @Test func theHelperFindsNamesWithTwoTypesOrTwoDefaults() {
        let otherDefault = UserDefaultTypedKey<Int>("launchCount", defaultValue: 1)
        let conflicts = UserDefaultTypedKeys.conflicts(among: [
            .launchCount, .theme, .legacyTheme, otherDefault, .recent,
        ])
        #expect(conflicts.map(\.name) == ["theme", "launchCount"])
        #expect(conflicts[0].first.contains("Theme") && conflicts[0].second.contains("String"))
        #expect(conflicts[1].second.contains("defaultValue: 1"))
        #expect(UserDefaultTypedKeys.conflicts(among: [.launchCount, .launchCount, .theme]).isEmpty)
    }

    @Test func twoKeysWithTheSameSetBuiltInDifferentOrdersAgree() {
        let names = (0..<40).map { "tag\($0)" }
        var grown = Set<String>(minimumCapacity: 1_000)
        for name in names.reversed() { grown.insert(name) }
        let first = UserDefaultTypedKey<Set<String>>("setOrderTags", defaultValue: Set(names))
        let second = UserDefaultTypedKey<Set<String>>("setOrderTags", defaultValue: grown)
        #expect(UserDefaultTypedKeys.conflicts(among: [first, second]).isEmpty)
        // Stored in one order, so the plain API sees the same array for equal sets.
        withStore { store in
            store[first] = Set(names)
            let stored = store.storage.object(forKey: "setOrderTags") as? [String]
            store[second] = grown
            #expect(store.storage.object(forKey: "setOrderTags") as? [String] == stored)
        }
    }

    @Test(.enabled(if: isDebugBuild, "release builds warn instead of stopping"))
    func usingOneNameWithTwoTypesStopsADebugBuild() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = DefaultsStore(storage: InMemoryStorage())
            _ = store[.theme]
            _ = store[.legacyTheme]
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(#"two keys store "theme" differently"#), "\(message)")
        #expect(message.contains("UserDefaultTypedKey<Theme>") && message.contains("UserDefaultTypedKey<String>"))
    }

    @Test(.enabled(if: isDebugBuild, "release builds warn instead of stopping"))
    func usingOneNameWithTwoDefaultsInOneStoreStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            let store = DefaultsStore(storage: InMemoryStorage())
            _ = store[.launchCount]
            _ = store[UserDefaultTypedKey<Int>("launchCount", defaultValue: 1)]
        }
    }

    @Test(.enabled(if: isDebugBuild, "release builds warn instead of stopping"))
    func registeringConflictingKeysTogetherStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            DefaultsStore(storage: InMemoryStorage()).register([.launchCount, .theme, .legacyTheme])
        }
    }

    @Test(.enabled(if: isDebugBuild, "release builds warn instead of stopping"))
    func aNamelessStaticLetKeyStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            _ = UserDefaultTypedKeys.nameless.name
        }
    }
}
