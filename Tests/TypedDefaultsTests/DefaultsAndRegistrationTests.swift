import Foundation
import Testing
import TypedDefaults

@Suite("Defaults, removal and registration")
struct DefaultsAndRegistrationTests {
    @Test(arguments: Backend.allCases)
    func unsetKeysReadTheirDefault(_ backend: Backend) {
        withStore(backend) { store in
            #expect(store[.launchCount] == 0)
            #expect(store[.username] == nil)
            #expect(store[.theme] == .system)
            #expect(store[.permissions] == [.read])
            #expect(!store.hasKey(.launchCount))
        }
    }

    @Test(arguments: Backend.allCases)
    func nilRemovesAndRemoveRestoresTheDefault(_ backend: Backend) {
        withStore(backend) { store in
            store[.username] = "ada"
            #expect(store.hasKey(.username))
            store[.username] = nil
            #expect(!store.hasKey(.username))
            #expect(store[.username] == nil)

            store[.theme] = .dark
            #expect(store.hasKey(.theme))
            store.remove(.theme)
            #expect(!store.hasKey(.theme))
            #expect(store[.theme] == .system)
        }
    }

    /// Another party's `register(defaults:)` for a key's name (an app's preview code, a test) is a
    /// registration like the key's own: the last one made gives the default, through the key and the plain
    /// API alike, and a stored value still wins over it.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory, .minimalCustom])
    func anotherPartysRegistrationIsTheDefaultThroughTheKeyToo(_ backend: Backend) {
        withStore(backend) { store in
            // A name of its own: `UserDefaults` keeps one registration domain for every suite.
            let key = UserDefaultTypedKey<Int>("registeredElsewhere.\(backend)", defaultValue: 0)
            #expect(store[key] == 0)
            store.storage.register(defaults: [key.name: 5])
            #expect(store[key] == 5)
            #expect(store.storage.object(forKey: key.name) as? Int == 5)
            store[key] = 1
            #expect(store[key] == 1)
            store.remove(key)
            #expect(store[key] == 5)
        }
    }

    // A backend that cannot list its values cannot tell these apart (documented); the others must.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aStoredValueEqualToTheDefaultCountsAsStored(_ backend: Backend) {
        withStore(backend) { store in
            store[.launchCount] = 0
            #expect(store.hasKey(.launchCount))
        }
    }

    @Test func registeredDefaultIsVisibleToThePlainAPIButNeverStored() throws {
        try withSuite { suiteName, store in
            let plain = try #require(UserDefaults(suiteName: suiteName))
            let key = UserDefaultTypedKey<Int>("registered", defaultValue: 7)
            _ = store[key]
            #expect(plain.integer(forKey: "registered") == 7)
            #expect(plain.persistentDomain(forName: suiteName)?["registered"] == nil)
            #expect(store.snapshot().isEmpty)
            store[key] = 8
            store.remove(key)
            #expect(plain.integer(forKey: "registered") == 7)
        }
    }

    @Test func registrationHappensOncePerStoredName() {
        let storage = CountingStorage()
        let first = DefaultsStore(storage: storage)
        let second = DefaultsStore(storage: storage)
        for _ in 0..<100 {
            _ = first[.launchCount]
            _ = second[.launchCount]
            first[.launchCount] += 1
        }
        #expect(storage.registerCalls == 1)
        #expect(second[.launchCount] == 100)
    }

    @Test func aComputedKeyRegistersOnceAsAStaticLetKeyDoes() {
        // `sessions` is a computed `static var`: every access makes a new key object.
        let storage = CountingStorage()
        let store = DefaultsStore(storage: storage)
        for _ in 0..<100 { store[.sessions] += 1 }
        #expect(storage.registerCalls == 1)
        #expect(store[.sessions] == 100)
    }

    @Test func registeringKeysTogetherIsOneStorageCallAndShowsTheDefaultsAtOnce() {
        let storage = CountingStorage()
        let store = DefaultsStore(storage: storage)
        store.register([.launchCount, .theme, .username, .permissions, .launchCount])
        #expect(storage.registerCalls == 1)
        // Visible to the plain API before any typed read; an optional key has nothing to register.
        #expect(storage.object(forKey: "launchCount") as? Int == 0)
        #expect(storage.object(forKey: "theme") as? String == "system")
        #expect(storage.object(forKey: "username") == nil)
        _ = store[.launchCount]
        store[.theme] = .dark
        store.register([.theme])
        #expect(storage.registerCalls == 1)
        #expect(store[.theme] == .dark)
    }

    @Test func registeringKeysOnASuiteShowsTheirDefaultsToThePlainAPI() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let store = try #require(DefaultsStore(suiteName: suiteName, keyPrefix: "bulk."))
        let plain = try #require(UserDefaults(suiteName: suiteName))
        let keys = (0..<100).map { UserDefaultTypedKey<Int>("n\($0)", defaultValue: $0 * 2) }
        store.register(keys)
        #expect(plain.integer(forKey: "bulk.n21") == 42)
        #expect(plain.persistentDomain(forName: suiteName)?["bulk.n21"] == nil)
        #expect(keys.map { store[$0] } == (0..<100).map { $0 * 2 })
    }
}
