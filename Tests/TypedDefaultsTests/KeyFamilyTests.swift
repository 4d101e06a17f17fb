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

/// An enum with a raw value that asks for the peers' JSON data.
private enum Mode: String, Codable, UserDefaultJSONData {
    case simple, advanced
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

    /// A listing decides by Unicode scalars where a prefix decides: a member id that begins with a
    /// combining mark, a joiner or a variation selector is listed by its family, and a store's prefix
    /// lists and removes such names. Before, `hasPrefix` merged the mark into the prefix's last character
    /// and 3 of these 4 ids were stored and readable but never listed.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory, .minimalCustom])
    func idsThatBeginWithAMarkAreListedByTheirFamilyAndPrefix(_ backend: Backend) {
        let ids = ["\u{301}accent", "\u{200D}joiner", "\u{FE0F}selector", "plain"]
        withStore(backend) { store in
            for id in ids { store[.forumTheme[id]] = .light }
            #expect(
                Set(UserDefaultTypedKeys.forumTheme.members(in: store).map { Array($0.unicodeScalars) })
                    == Set(ids.map { Array($0.unicodeScalars) }))
        }
        withStore(backend, keyPrefix: "p-") { store in
            for id in ids { store[UserDefaultTypedKey<Int>(id, defaultValue: 0)] = 1 }
            #expect(store.snapshot().count == ids.count, "\(store.snapshot().keys.map { Array($0.unicodeScalars) })")
            store.removeAll()
            #expect(store.snapshot().isEmpty)
            for id in ids {
                #expect(store[UserDefaultTypedKey<Int>(id, defaultValue: 0)] == 0, "\(id.unicodeScalars.map(\.value))")
            }
        }
    }

    /// An enum with a raw value that declares `UserDefaultJSONData` compiles and stores what it declares,
    /// JSON data; JSON text and a stored raw value (SwiftyUserDefaults' form for an enum) read too.
    @Test func anEnumWithARawValueInThePeersJSONFormStoresJSONData() throws {
        let store = DefaultsStore(storage: InMemoryStorage())
        let key = UserDefaultTypedKey<Mode>("mode", defaultValue: .simple)
        store[key] = .advanced
        let data = try #require(store.storage.object(forKey: "mode") as? Data)
        #expect(String(decoding: data, as: UTF8.self) == #""advanced""#)
        #expect(store[key] == .advanced)
        store.storage.set("advanced", forKey: "mode")
        #expect(store[key] == .advanced)
        store.storage.set("neither", forKey: "mode")
        #expect(store[key] == .simple)
        store.storage.set(#""advanced""#, forKey: "mode")
        #expect(store[key] == .advanced)
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
