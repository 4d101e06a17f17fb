import Foundation
import Testing
import TypedDefaults

extension UserDefaultTypedKeys {
    /// A computed key whose property name begins with capitals, as Apple-style names do.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static var URLHistory: UserDefaultTypedKey<[String]> { .init(defaultValue: []) }
}

/// An app's type whose one key is named, explicitly, as the type is.
enum Onboarding {
    static let done = UserDefaultTypedKey<Bool>("Onboarding", defaultValue: false)
}

/// A lowercase-named type: a name left out in a `static let` here is "lowercaseKeys".
// swift-format-ignore: TypeNamesShouldBeCapitalized
enum lowercaseKeys {
    static let first = UserDefaultTypedKey<Int>(defaultValue: 1)
    static let second = UserDefaultTypedKey<Int>(defaultValue: 2)
}

/// `#function` written out in `static let`s, as a SwiftyUserDefaults port has it: every key is
/// explicitly named "WalletKeys".
enum WalletKeys {
    static let currency = UserDefaultTypedKey<String>(#function, defaultValue: "EUR")
    static let showBalance = UserDefaultTypedKey<Bool>(#function, defaultValue: true)
}

// Unnamed at file scope: Swift gives the module's name.
let unnamedGlobal = UserDefaultTypedKey<Int>(defaultValue: 3)
let unnamedGlobalToo = UserDefaultTypedKey<Int>(defaultValue: 4)

/// A key is refused as nameless only where its name could be shared by accident; legitimate names are
/// never refused. Before: a capitalized computed key, an explicit name equal to a type's or a function's,
/// and a family member named "subscript(_:)" were refused, while unnamed global keys (all named after the
/// module) and unnamed `static let` keys of a lowercase-named type shared one stored value.
@Suite("Nameless keys: refused where a name could be shared, never otherwise")
struct NamelessKeyRuleTests {
    @Test func legitimateNamesAreNeverRefused() throws {
        try withStore(.inMemory) { store in
            store[.URLHistory] = ["a"]
            #expect(store[.URLHistory] == ["a"])
            #expect(store.storage.object(forKey: "URLHistory") as? [String] == ["a"])
            store[Onboarding.done] = true
            #expect(store[Onboarding.done])
            let function = UserDefaultTypedKey<Int>("makeKey()", defaultValue: 0)
            try store.set(5, for: function)
            #expect(store[function] == 5)
            let family = UserDefaultKeyFamily<Int>("subscript", defaultValue: { _ in 0 })
            store[family["(_:)"]] = 6
            #expect(store.storage.object(forKey: "subscript(_:)") as? Int == 6)
        }
    }

    @Test func keysThatWouldShareANameAreRefusedAndReported() {
        withReportedErrors { reported in
            withStore(.inMemory) { store in
                #expect(unnamedGlobal.name == "TypedDefaultsTests")
                #expect(lowercaseKeys.first.name == "lowercaseKeys")
                store[unnamedGlobal] = 30
                store[unnamedGlobalToo] = 40
                store[lowercaseKeys.first] = 10
                store[lowercaseKeys.second] = 20
                store[WalletKeys.currency] = "USD"
                store[WalletKeys.showBalance] = false
                // Nothing landed under a shared name, and each key reads its own default.
                for name in ["TypedDefaultsTests", "lowercaseKeys"] {
                    #expect(store.storage.object(forKey: name) == nil, "\(name)")
                }
                let reads = [
                    store[unnamedGlobal], store[unnamedGlobalToo], store[lowercaseKeys.first],
                    store[lowercaseKeys.second],
                ]
                #expect(reads == [3, 4, 1, 2])
                // One of the explicit "WalletKeys" keys keeps the name; the other is refused, so the two
                // never share a value.
                let walletStored = store.storage.object(forKey: "WalletKeys")
                #expect(walletStored is String || walletStored is Bool)
                #expect(store[WalletKeys.currency] == "USD" || store[WalletKeys.showBalance] == false)
                #expect(!(store[WalletKeys.currency] == "USD" && store[WalletKeys.showBalance] == false))
                let refused = reported.all.filter { if case .namelessKey = $0 { true } else { false } }
                #expect(refused.count >= 5, "\(reported.all)")
                #expect(refused.contains { "\($0)".contains("NamelessKeyRuleTests.swift:") })
            }
        }
    }
}
