import Foundation
import Testing
import TypedDefaults

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
        try withSuite { suiteName, first in
            let second = try #require(DefaultsStore(suiteName: suiteName, keyPrefix: "b."))
            first[.launchCount] = 1
            second[.launchCount] = 2
            #expect(first[.launchCount] == 1)
            #expect(second[.launchCount] == 2)
            #expect(first.snapshot()["b.launchCount"] as? Int == 2)
            #expect(second.snapshot().keys.sorted() == ["launchCount"])
        }
    }
}
