import Foundation
import Testing
import TypedDefaults

extension UserDefaultTypedKeys {
    /// A key whose name begins with capitals, as Apple-style names do: a `static let` here, where
    /// `#function` is "UserDefaultTypedKeys", so its own name is never taken for `#function` (a computed
    /// `static var URLHistory` writing "URLHistory" is: see `theVerdictDependsOnTheDeclarationAloneInEveryBuild`).
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static let URLHistory = UserDefaultTypedKey<[String]>("URLHistory", defaultValue: [])
    /// The same, with its name left out: refused in every launch.
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static var URLBookmarks: UserDefaultTypedKey<[String]> { .init(defaultValue: []) }
}

/// Two namespaces with a computed key of one property name: one stored name, in every launch.
enum ReaderSettings {
    static var fontScale: UserDefaultTypedKey<Double> { .init(defaultValue: 1) }
}

enum EditorSettings {
    static var fontScale: UserDefaultTypedKey<Double> { .init(defaultValue: 1) }
}

/// A nested type's `static let`s with their names left out: both would be "Keys".
enum SettingsScreen {
    enum Keys {
        static let first = UserDefaultTypedKey<Int>(defaultValue: 1)
        static let second = UserDefaultTypedKey<Int>(defaultValue: 2)
    }
}

/// An app's type, and keys named explicitly as a type is: declared elsewhere, legitimate; declared
/// inside the type it is named after, what `#function` gives there, so refused (the library cannot tell
/// the text written out from `#function`).
enum Onboarding {
    static let done = UserDefaultTypedKey<Bool>("Onboarding", defaultValue: false)
}

extension UserDefaultTypedKeys {
    static let onboardingShown = UserDefaultTypedKey<Bool>("Onboarding", defaultValue: false)
    static let themeTextCapitalized = UserDefaultTypedKey<String>("Theme", defaultValue: "system")
    static let themeChoice = UserDefaultTypedKey<Theme>("Theme", defaultValue: .system)
}

/// A lowercase-named type: a name left out in a `static let` here is "lowercaseKeys", which no rule
/// on the declaration's text can tell from a computed property's: accepted, in every build.
// swift-format-ignore: TypeNamesShouldBeCapitalized
enum lowercaseKeys {
    static let only = UserDefaultTypedKey<Int>(defaultValue: 1)
}

/// A capitalized computed key that writes its own name, which is also what `#function` gives there.
enum CapitalizedComputed {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    static var URLFavorites: UserDefaultTypedKey<[String]> { .init("URLFavorites", defaultValue: []) }
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
            store[.onboardingShown] = true
            #expect(store[.onboardingShown])
            let function = UserDefaultTypedKey<Int>("makeKey()", defaultValue: 0)
            try store.set(5, for: function)
            #expect(store[function] == 5)
            let family = UserDefaultKeyFamily<Int>("subscript", defaultValue: { _ in 0 })
            store[family["(_:)"]] = 6
            #expect(store.storage.object(forKey: "subscript(_:)") as? Int == 6)
        }
    }

    /// A key named as a type is, declared outside that type, is never refused, whichever key of the
    /// name a launch uses first: a `String` key "Theme" and the enum key "Theme" (an `@AppStorage` string
    /// and the app's enum, during a move), with an enum `Theme` in the module. Before, the one used second
    /// in a launch was refused as nameless (its writes dropped), so which one worked changed from launch
    /// to launch. Each order in a process of its own: the old rule's record lived for the process.
    @Test func aKeyNamedAsATypeIsAcceptedWhenTheEnumKeyIsUsedFirst() async {
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            store[.themeChoice] = .dark
            guard store[.themeChoice] == .dark, store[.themeTextCapitalized] == "dark" else { exit(1) }
            store[.themeTextCapitalized] = "light"
            guard store[.themeChoice] == .light else { exit(2) }
        }
    }

    @Test func aKeyNamedAsATypeIsAcceptedWhenTheStringKeyIsUsedFirst() async {
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            store[.themeTextCapitalized] = "dark"
            guard store[.themeChoice] == .dark, store[.themeTextCapitalized] == "dark" else { exit(1) }
            store[.themeTextCapitalized] = "light"
            guard store[.themeChoice] == .light else { exit(2) }
            store[.themeChoice] = .system
            guard store[.themeTextCapitalized] == "system", store.storage.object(forKey: "Theme") as? String == "system"
            else {
                exit(3)
            }
        }
    }

    /// Names left out are judged by one rule in every launch, whichever key a launch uses first: two
    /// computed keys of one property name in two namespaces are one stored name (each reads the other's
    /// writes), and a nested type's `static let`s, both named after the type, are both refused. Before,
    /// the first used in a launch took the name and the other was refused, so a launch that used the
    /// other first read and wrote the value under it. Each order in a process of its own: the old rule's
    /// record lived for the process.
    @Test func leftOutNamesAreJudgedAlikeWhenTheEditorKeyIsUsedFirst() async {
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            store[EditorSettings.fontScale] = 2
            guard store[ReaderSettings.fontScale] == 2 else { exit(1) }
            store[ReaderSettings.fontScale] = 3
            guard store[EditorSettings.fontScale] == 3 else { exit(2) }
            store[SettingsScreen.Keys.first] = 10
            store[SettingsScreen.Keys.second] = 20
            guard store.storage.object(forKey: "Keys") == nil, store[SettingsScreen.Keys.first] == 1 else { exit(3) }
        }
    }

    @Test func leftOutNamesAreJudgedAlikeWhenTheReaderKeyIsUsedFirst() async {
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            store[ReaderSettings.fontScale] = 2
            guard store[EditorSettings.fontScale] == 2 else { exit(1) }
            store[SettingsScreen.Keys.second] = 20
            store[SettingsScreen.Keys.first] = 10
            guard store.storage.object(forKey: "Keys") == nil, store[SettingsScreen.Keys.second] == 2 else { exit(3) }
        }
    }

    @Test func keysThatWouldShareANameAreRefusedAndReported() {
        withReportedErrors { reported in
            withStore(.inMemory) { store in
                #expect(unnamedGlobal.name == "TypedDefaultsTests")
                store[unnamedGlobal] = 30
                store[unnamedGlobalToo] = 40
                store[WalletKeys.currency] = "USD"
                store[WalletKeys.showBalance] = false
                // Nothing landed under a shared name, and each key reads its own default.
                #expect(store.storage.object(forKey: "TypedDefaultsTests") == nil)
                let reads: [Int] = [store[unnamedGlobal], store[unnamedGlobalToo]]
                #expect(reads == [3, 4])
                // `#function` written out in `static let`s: both "WalletKeys" keys are refused, in every
                // launch, whichever is used first (before, the first used kept the name, so a launch that
                // used the other first read its value); and so is a key named as its own type.
                store[Onboarding.done] = true
                store[.URLBookmarks] = ["a"]
                #expect(store.storage.object(forKey: "URLBookmarks") == nil)
                #expect(store.storage.object(forKey: "WalletKeys") == nil)
                #expect(store.storage.object(forKey: "Onboarding") == nil)
                #expect(store[WalletKeys.currency] == "EUR" && store[WalletKeys.showBalance] == true)
                #expect(store[Onboarding.done] == false)
                let refused = reported.all.filter { if case .namelessKey = $0 { true } else { false } }
                #expect(refused.count >= 6, "\(reported.all)")
                #expect(refused.contains { "\($0)".contains("NamelessKeyRuleTests.swift:") })
            }
        }
    }

    /// The verdict is a function of the declaration's text, the same in a debug and a release build
    /// (`.ci/run` runs this suite in both): a capitalized name that is `#function` in a `static let` is
    /// refused, and so is a capitalized computed key writing its own name (the two cannot be told apart);
    /// a lowercase-named type's left-out name is accepted. Before, `Onboarding.done` was refused in a
    /// debug build and accepted in a release build (it read back 7 there): the runtime keeps no record
    /// of a type only used as a namespace in a release build.
    @Test func theVerdictDependsOnTheDeclarationAloneInEveryBuild() {
        withReportedErrors { reported in
            withStore(.inMemory) { store in
                store[Onboarding.done] = true
                store[CapitalizedComputed.URLFavorites] = ["a"]
                store[lowercaseKeys.only] = 7
                #expect(store[Onboarding.done] == false)
                #expect(store.storage.object(forKey: "Onboarding") == nil)
                #expect(store[CapitalizedComputed.URLFavorites] == [])
                #expect(store.storage.object(forKey: "URLFavorites") == nil)
                #expect(lowercaseKeys.only.name == "lowercaseKeys")
                #expect(store[lowercaseKeys.only] == 7)
                let refused = reported.all.compactMap { error -> String? in
                    if case .namelessKey(let key) = error { key } else { nil }
                }
                #expect(refused.contains { $0.contains("\"Onboarding\"") })
                #expect(refused.contains { $0.contains("\"URLFavorites\"") })
                #expect(!refused.contains { $0.contains("lowercaseKeys") })
            }
        }
    }
}
