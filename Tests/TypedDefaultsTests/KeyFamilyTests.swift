import Foundation
import Testing
import TypedDefaults

extension UserDefaultTypedKeys {
    /// A family: a theme per forum, dark by default for the forum named "night".
    static let forumTheme = UserDefaultKeyFamily<Theme>(
        "forumTheme-", defaultValue: { $0 == "night" ? .dark : .system })
}

/// A `Codable` value kept in the peers' form, JSON data.
private struct Wallet: Codable, Equatable, UserDefaultJSONData {
    var currency: String
}

@Suite("Key families, and Codable values in the peers' form")
struct KeyFamilyTests {
    /// Members of a family are keys built at run time from one declaration: each reads the family's
    /// default for it, writes under the family's prefix, is observed like any key, and the family lists
    /// the members stored.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aFamilysMembersAreKeysWithOneDefaultRule(_ backend: Backend) {
        withStore(backend) { store in
            #expect(store[.forumTheme["swift"]] == .system)
            #expect(store[.forumTheme["night"]] == .dark)
            let heard = Recorder<Theme>()
            let token = store.observe(.forumTheme["swift"]) { heard.append($0.newValue) }
            defer { token.cancel() }
            store[.forumTheme["swift"]] = .light
            store[.forumTheme["night"]] = .light
            #expect(heard.all == [.light])
            #expect(store.storage.object(forKey: "forumTheme-swift") as? String == "light")
            #expect(UserDefaultTypedKeys.forumTheme.members(in: store) == ["night", "swift"])
            store.remove(.forumTheme["night"])
            #expect(store[.forumTheme["night"]] == .dark)
            #expect(UserDefaultTypedKeys.forumTheme.members(in: store) == ["swift"])
        }
    }

    /// A type that declares `UserDefaultJSONData` is stored as JSON data, which SwiftyUserDefaults and
    /// Foil read; it reads back, and so does JSON text.
    @Test func aCodableValueInThePeersFormIsStoredAsJSONData() throws {
        let store = DefaultsStore(storage: InMemoryStorage())
        let key = UserDefaultTypedKey<Wallet?>("wallet")
        store[key] = Wallet(currency: "EUR")
        let data = try #require(store.storage.object(forKey: "wallet") as? Data)
        #expect(try JSONDecoder().decode(Wallet.self, from: data) == Wallet(currency: "EUR"))
        #expect(store[key] == Wallet(currency: "EUR"))
        store.storage.set(#"{"currency":"USD"}"#, forKey: "wallet")
        #expect(store[key] == Wallet(currency: "USD"))
    }
}
