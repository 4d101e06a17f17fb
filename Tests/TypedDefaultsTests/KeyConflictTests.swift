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

    @Test(.enabled(if: isDebugBuild, "release builds warn instead of stopping"))
    func usingOneNameWithTwoTypesStopsADebugBuild() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = DefaultsStore(storage: InMemoryStorage())
            _ = store[.theme]
            _ = store[.legacyTheme]
        }
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
