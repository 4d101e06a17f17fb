import Foundation
import Testing
import TypedDefaults

extension UserDefaultTypedKeys {
    static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }
    static var lastSearch: UserDefaultTypedKey<String?> { .init() }
    static let legacyTheme = UserDefaultTypedKey<String>("theme", defaultValue: "system")
    // Read only inside an exit test: Swift passes the type's name for `#function` in a `static let`.
    static let nameless = UserDefaultTypedKey<Int>(defaultValue: 0)
}

@Suite("Key prefixes and names from properties")
struct KeyNamingTests {
    @Test(arguments: Backend.allCases)
    func aPrefixAppliesToEveryStoredName(_ backend: Backend) {
        withStore(backend, keyPrefix: "app.") { store in
            store[.launchCount] = 3
            store[.username] = "ada"
            #expect(store.storage.object(forKey: "app.launchCount") as? Int == 3)
            #expect(store[.launchCount] == 3)
            let unprefixed = DefaultsStore(storage: store.storage)
            #expect(unprefixed[.launchCount] == 0)
            #expect(!unprefixed.hasKey(.launchCount))
            #expect(store.snapshot().keys.sorted() == ["launchCount", "username"])
        }
    }

    @Test(arguments: Backend.allCases)
    func computedKeysTakeTheirPropertyName(_ backend: Backend) {
        #expect(UserDefaultTypedKeys.sessions.name == "sessions")
        #expect(UserDefaultTypedKeys.lastSearch.name == "lastSearch")
        withStore(backend) { store in
            store[.sessions] += 2
            store[.lastSearch] = "swift"
            #expect(store[.sessions] == 2)
            #expect(store.storage.object(forKey: "sessions") as? Int == 2)
            #expect(store.storage.object(forKey: "lastSearch") as? String == "swift")
        }
    }

    @Test func twoStoresOverOneSuiteShareItsValues() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let first = try #require(DefaultsStore(suiteName: suiteName))
        let second = try #require(DefaultsStore(suiteName: suiteName, keyPrefix: "b."))
        first[.launchCount] = 1
        second[.launchCount] = 2
        #expect(first[.launchCount] == 1)
        #expect(second[.launchCount] == 2)
        #expect(first.snapshot()["b.launchCount"] as? Int == 2)
        #expect(second.snapshot().keys.sorted() == ["launchCount"])
    }
}

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

    @Test func usingOneNameWithTwoTypesStopsADebugBuild() async {
        await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let store = DefaultsStore(storage: InMemoryStorage())
            _ = store[.theme]
            _ = store[.legacyTheme]
        }
    }

    @Test func registeringConflictingKeysTogetherStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            DefaultsStore(storage: InMemoryStorage()).register([.launchCount, .theme, .legacyTheme])
        }
    }

    @Test func aNamelessStaticLetKeyStopsADebugBuild() async {
        await #expect(processExitsWith: .failure) {
            _ = UserDefaultTypedKeys.nameless.name
        }
    }
}

@Suite("Migration, snapshot and removeAll")
struct ManagementTests {
    @Test(arguments: Backend.allCases)
    func migrateMovesAndConvertsAnOldValue(_ backend: Backend) {
        withStore(backend) { store in
            store.storage.set("12", forKey: "kLaunchCount")
            #expect(store.migrate(from: "kLaunchCount", to: .launchCount))
            #expect(store[.launchCount] == 12)
            #expect(store.storage.object(forKey: "launchCount") as? Int == 12)
            #expect(store.storage.object(forKey: "kLaunchCount") == nil)
            // Safe on every launch: a second call finds nothing to move.
            #expect(!store.migrate(from: "kLaunchCount", to: .launchCount))
            #expect(store[.launchCount] == 12)
        }
    }

    @Test(arguments: Backend.allCases)
    func migrateNeverOverwritesAStoredValue(_ backend: Backend) {
        withStore(backend) { store in
            store[.theme] = .light
            store.storage.set("dark", forKey: "old_theme")
            #expect(!store.migrate(from: "old_theme", to: .theme))
            #expect(store[.theme] == .light)
            #expect(store.storage.object(forKey: "old_theme") as? String == "dark")
        }
    }

    @Test(arguments: Backend.allCases)
    func migrateLeavesAnUnreadableOldValueWhereItIs(_ backend: Backend) {
        withStore(backend) { store in
            store.storage.set("purple", forKey: "old_theme")
            #expect(!store.migrate(from: "old_theme", to: .theme))
            #expect(store[.theme] == .system)
            #expect(!store.hasKey(.theme))
            #expect(store.storage.object(forKey: "old_theme") as? String == "purple")
        }
    }

    @Test(arguments: Backend.allCases)
    func snapshotListsStoredValuesWithoutRegisteredDefaults(_ backend: Backend) {
        withStore(backend) { store in
            _ = store[.theme]  // registers the default
            store[.launchCount] = 4
            store[.recent] = ["a"]
            store[.profile] = Profile(name: "Ada", age: 36)
            let snapshot = store.snapshot()
            #expect(snapshot.keys.sorted() == ["launchCount", "profile", "recent"])
            #expect(snapshot["launchCount"] as? Int == 4)
            #expect(snapshot["recent"] as? [String] == ["a"])
            #expect(snapshot["profile"] as? String == #"{"age":36,"name":"Ada"}"#)
        }
    }

    @Test(arguments: Backend.allCases)
    func removeAllRemovesValuesUnderThePrefixAndKeepsDefaults(_ backend: Backend) {
        withStore(backend) { store in
            let prefixed = DefaultsStore(storage: store.storage, keyPrefix: "p.")
            store[.launchCount] = 1
            prefixed[.launchCount] = 2
            prefixed[.theme] = .dark
            prefixed.removeAll()
            #expect(prefixed[.launchCount] == 0)
            #expect(prefixed[.theme] == .system)
            #expect(prefixed.snapshot().isEmpty)
            #expect(store[.launchCount] == 1)
            store.removeAll()
            #expect(store.snapshot().isEmpty)
            #expect(store[.launchCount] == 0)
        }
    }
}
