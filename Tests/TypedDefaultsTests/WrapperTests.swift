import Foundation
import Testing
import TypedDefaults

@Suite("The @UserDefault wrapper")
struct WrapperTests {
    @Test func theWrapperUsesTheStandardStoreByDefault() {
        // The standard store is shared by the whole process: this test uses a name no other test uses,
        // and removes it.
        let key = UserDefaultTypedKey<Int>("wrapperTests.standardCount", defaultValue: 5)
        struct Settings: Sendable {
            @UserDefault(UserDefaultTypedKey<Int>("wrapperTests.standardCount", defaultValue: 5)) var count: Int
        }
        defer { Defaults.remove(key) }
        let settings = Settings()
        #expect(settings.count == 5)
        settings.count = 6
        #expect(Defaults[key] == 6)
        #expect(UserDefaults.standard.integer(forKey: "wrapperTests.standardCount") == 6)
        #expect(settings.$count.hasKey)
        settings.$count.remove()
        #expect(settings.count == 5)
        #expect(!Defaults.hasKey(key))
    }

    @Test(arguments: Backend.allCases)
    func theWrapperWritesThroughToACustomStore(_ backend: Backend) {
        withStore(backend) { store in
            struct Settings: Sendable {
                @UserDefault<Int> var launchCount: Int
                @UserDefault<Theme> var theme: Theme
                @UserDefault<[String]> var recent: [String]
                init(store: DefaultsStore) {
                    _launchCount = UserDefault(.launchCount, store: store)
                    _theme = UserDefault(.theme, store: store)
                    _recent = UserDefault(.recent, store: store)
                }
            }
            let settings = Settings(store: store)
            #expect(settings.launchCount == 0 && settings.theme == .system)
            settings.launchCount = 3  // a `let` writes through: the value lives in the store
            settings.theme = .dark
            settings.recent.append("x")
            #expect(store[.launchCount] == 3)
            #expect(store[.theme] == .dark)
            #expect(store[.recent] == ["x"])
            store[.launchCount] = 9
            #expect(settings.launchCount == 9)
        }
    }
}

/// A model holding wrappers, `Hashable` by synthesis (as with Foil's wrapper).
private struct HashableModel: Hashable {
    @UserDefault(.launchCount) var launchCount: Int
    @UserDefault(.theme) var theme: Theme
}

@Suite("The wrapper is Hashable by its key and store")
struct WrapperHashableTests {
    @Test func wrappersAreEqualByKeyAndStore() {
        let other = DefaultsStore(storage: InMemoryStorage())
        #expect(UserDefault(.launchCount) == UserDefault(.launchCount))
        #expect(UserDefault(.launchCount, store: other) != UserDefault(.launchCount))
        #expect(
            UserDefault(.launchCount, store: DefaultsStore(storage: other.storage, keyPrefix: "p."))
                != UserDefault(.launchCount, store: other))
        #expect(Set([HashableModel(), HashableModel()]).count == 1)
    }
}
