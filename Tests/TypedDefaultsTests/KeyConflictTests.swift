import Foundation
import Testing
import TypedDefaults

@Suite("Conflicting keys are reported")
struct KeyConflictTests {
    @Test func theHelperFindsNamesWithTwoTypesOrTwoDefaults() {
        let otherDefault = UserDefaultTypedKey<Int>("launchCount", defaultValue: 1)
        let conflicts = UserDefaultTypedKeys.conflicts(among: [
            .launchCount, .theme, .themeNumber, otherDefault, .recent,
        ])
        #expect(conflicts.map(\.name) == ["theme", "launchCount"])
        #expect(conflicts[0].first.contains("Theme") && conflicts[0].second.contains("Int"))
        #expect(conflicts[1].second.contains("defaultValue: 1"))
        #expect(UserDefaultTypedKeys.conflicts(among: [.launchCount, .launchCount, .theme]).isEmpty)
    }

    /// An `@AppStorage` string and the app's enum key of one name, during a move: each one's values read
    /// back as the other's, so they are one key to the conflict check, the store and a debug build.
    @Test func aStringKeyAndAnEnumKeyThatStoreTheSameTextAreNoConflict() async {
        #expect(UserDefaultTypedKeys.conflicts(among: [.theme, .themeText]).isEmpty)
        // Whatever the defaults: each key reads its own when nothing is stored.
        let differentDefault = UserDefaultTypedKey<String>("theme", defaultValue: "dark")
        #expect(UserDefaultTypedKeys.conflicts(among: [.theme, differentDefault]).isEmpty)
        // In a child process: a conflict would stop a debug build.
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            store.register([.theme, .themeText])
            guard store[.theme] == .system, store[.themeText] == "system" else { exit(1) }
            store[.themeText] = "dark"
            guard store[.theme] == .dark else { exit(2) }
            store[.theme] = .light
            guard store[.themeText] == "light", store.hasKey(.theme), store.hasKey(.themeText) else { exit(3) }
        }
    }

    /// Two keys of one name are no conflict only when each one's values read back as the other's: a
    /// type and its raw value's type, optional or not, whatever the defaults. Every other pair of types
    /// is a conflict, even when both defaults store alike. Before, any two types whose defaults stored
    /// the same property list passed (two `Codable` structs whose defaults both encode as `{}`, arrays
    /// of two element types defaulting to `[]`, all-optional structs), and one overwrote the other's
    /// values with no report; and a `String` key and its enum key with different defaults conflicted.
    @Test func twoTypesOfOneNameAreNoConflictExactlyWhenTheirValuesConvertBothWays() {
        struct Profile: Codable, UserDefaultConvertible { var name: String? }
        struct Window: Codable, UserDefaultConvertible { var width: Int? }
        enum Level: Int, UserDefaultConvertible {
            case low = 1
            case high
        }
        enum Mode: String, UserDefaultConvertible { case system, dark }
        func conflict(_ first: some UserDefaultTypedKeys, _ second: some UserDefaultTypedKeys) -> Bool {
            !UserDefaultTypedKeys.conflicts(among: [first, second]).isEmpty
        }
        let name = "conversionPairs"
        // Convert both ways: no conflict, whatever the defaults.
        #expect(
            !conflict(
                UserDefaultTypedKey<String>(name, defaultValue: "dark"),
                UserDefaultTypedKey<Theme>(name, defaultValue: .system)))
        #expect(!conflict(UserDefaultTypedKey<Theme>(name, defaultValue: .light), UserDefaultTypedKey<String?>(name)))
        #expect(
            !conflict(
                UserDefaultTypedKey<Int>(name, defaultValue: 0), UserDefaultTypedKey<Level>(name, defaultValue: .high)))
        #expect(!conflict(UserDefaultTypedKey<Level?>(name), UserDefaultTypedKey<Int?>(name)))
        // Everything else: a conflict, defaults that store alike included.
        #expect(
            conflict(
                UserDefaultTypedKey<Profile>(name, defaultValue: Profile()),
                UserDefaultTypedKey<Window>(name, defaultValue: Window())))
        #expect(
            conflict(
                UserDefaultTypedKey<[Int]>(name, defaultValue: []),
                UserDefaultTypedKey<[String]>(name, defaultValue: [])))
        #expect(conflict(UserDefaultTypedKey<Profile?>(name), UserDefaultTypedKey<Window?>(name)))
        #expect(
            conflict(
                UserDefaultTypedKey<Theme>(name, defaultValue: .system),
                UserDefaultTypedKey<Mode>(name, defaultValue: .system)))
        #expect(
            conflict(
                UserDefaultTypedKey<Int>(name, defaultValue: 1), UserDefaultTypedKey<Level>(name, defaultValue: .low))
                == false)
        #expect(
            conflict(
                UserDefaultTypedKey<Double>(name, defaultValue: 1), UserDefaultTypedKey<Level>(name, defaultValue: .low)
            ))
        #expect(
            conflict(
                UserDefaultTypedKey<String>(name, defaultValue: "1"), UserDefaultTypedKey<Int>(name, defaultValue: 1)))
    }

    /// The pair the rule is for, in use: a `String` key and the enum key of one name with different
    /// defaults; each reads its own default, and each reads the other's writes. (In a child process: a
    /// conflict would stop a debug build.)
    @Test func aStringKeyAndAnEnumKeyWithDifferentDefaultsShareValues() async {
        await #expect(processExitsWith: .success) {
            let store = DefaultsStore(storage: InMemoryStorage())
            let text = UserDefaultTypedKey<String>("themeDefaults", defaultValue: "dark")
            let theme = UserDefaultTypedKey<Theme>("themeDefaults", defaultValue: .system)
            guard store[theme] == .system, store[text] == "dark" else { exit(1) }
            store[text] = "light"
            guard store[theme] == .light else { exit(2) }
            store[theme] = .dark
            guard store[text] == "dark", store.hasKey(text) else { exit(3) }
        }
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
            _ = store[.themeNumber]
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(#"two keys store "theme" differently"#), "\(message)")
        #expect(message.contains("UserDefaultTypedKey<Theme>") && message.contains("UserDefaultTypedKey<Int>"))
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
            DefaultsStore(storage: InMemoryStorage()).register([.launchCount, .theme, .themeNumber])
        }
    }

    /// Keys made without a name where Swift's `#function` is not theirs (a `static let`, a function) are
    /// refused in every build: no write lands under the name they would share, reads give each its own
    /// default, and the refusal is reported. Before, a debug build stopped and a release build stored
    /// both `static let` keys under "UserDefaultTypedKeys", one overwriting the other.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func namelessKeysAreRefusedInEveryBuild(_ backend: Backend) {
        withReportedErrors { reported in
            withStore(backend) { store in
                let local = UserDefaultTypedKey<Int>(defaultValue: 1)
                #expect(local.name == "namelessKeysAreRefusedInEveryBuild(_:)")
                #expect(UserDefaultTypedKeys.nameless.name == "UserDefaultTypedKeys")
                #expect(AppKeys.nameless.name == "AppKeys")
                store[.nameless] = 3
                store[.namelessToo] = 4
                store[AppKeys.nameless] = "x"
                #expect(throws: DefaultsError.namelessKey(key: local.description)) { try store.set(2, for: local) }
                #expect(throws: DefaultsError.self) { try store.modify(.nameless) { $0 += 1 } }
                store.remove(.namelessToo)
                let reads: [Int] = [store[.nameless], store[.namelessToo], store[local], store[AppKeys.namelessLimit]]
                #expect(reads == [0, 5, 1, 9])
                #expect(store[AppKeys.nameless] == nil && !store.hasKey(.nameless))
                for name in ["UserDefaultTypedKeys", "AppKeys", local.name] {
                    #expect(store.storage.object(forKey: name) == nil, "\(name)")
                }
                #expect(!store.migrate(from: "old", to: .nameless))
                let refused = reported.all.filter { if case .namelessKey = $0 { true } else { false } }
                #expect(refused.count >= 4, "\(reported.all)")
            }
        }
    }

    /// One rule for what a nameless key's user hears (GettingStarted): the declaration once, to
    /// `ErrorReporting`, when the key is made, even if it is only read; each refused write then as any
    /// failed write: thrown by `set`, reported by the subscript.
    @Test func aNamelessKeyIsReportedOnceWhenMadeThenAtEachRefusedWriteByItsOwnRoute() {
        withReportedErrors { reported in
            withStore(.inMemory) { store in
                let key = UserDefaultTypedKey<Int>(defaultValue: 1)
                #expect(reported.all == [.namelessKey(key: key.description)])
                #expect(key.description.contains("KeyConflictTests.swift:"))
                #expect(store[key] == 1)
                #expect(reported.all.count == 1)
                for _ in 0..<2 {
                    #expect(throws: DefaultsError.namelessKey(key: key.description)) { try store.set(2, for: key) }
                }
                #expect(reported.all.count == 1, "a thrown write was reported too: \(reported.all)")
                store[key] = 3
                #expect(reported.all.count == 2)
            }
        }
    }

    /// A computed `static var` takes its property's name, and an explicit name is never refused, even
    /// one that begins with a capital letter.
    @Test func namedAndComputedKeysAreNotRefused() {
        withStore { store in
            store[.sessions] = 2
            let capitalized = UserDefaultTypedKey<Int>("AppleLikeName", defaultValue: 0)
            store[capitalized] = 7
            let reads: [Int] = [store[.sessions], store[capitalized]]
            #expect(reads == [2, 7])
            #expect(store.storage.object(forKey: "sessions") as? Int == 2)
        }
    }
}
