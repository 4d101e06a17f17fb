import Foundation
import Testing
import TypedDefaults

extension Theme: UserDefaultDictionaryKey {}

/// A user's own key type: `LosslessStringConvertible`, so declaring the conformance is all it takes.
struct Version: LosslessStringConvertible, Hashable, UserDefaultDictionaryKey {
    let major: Int
    let minor: Int
    init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }
    init?(_ description: String) {
        let parts = description.split(separator: ".").compactMap { Int($0) }
        guard parts.count == 2 else { return nil }
        self.init(major: parts[0], minor: parts[1])
    }
    var description: String { "\(major).\(minor)" }
}

@Suite("Dictionaries with keys other than String")
struct DictionaryKeyTests {
    @Test(arguments: Backend.allCases)
    func dictionariesRoundTrip(_ backend: Backend) {
        withStore(backend) { store in
            #expect(
                roundTrip([1: "one", -2: "minus two"], default: [:], in: store, name: "byInt") == [
                    1: "one", -2: "minus two",
                ])
            let id = UUID()
            #expect(roundTrip([id: 3], default: [:], in: store, name: "byUUID") == [id: 3])
            #expect(roundTrip([Theme.dark: true], default: [:], in: store, name: "byTheme") == [.dark: true])
            let versions = [Version(major: 1, minor: 2): ["a"], Version(major: 2, minor: 0): []]
            #expect(roundTrip(versions, default: [:], in: store, name: "byVersion") == versions)
            #expect(roundTrip([UInt8(7): [true: 1.5]], default: [:], in: store, name: "nestedKeys") == [7: [true: 1.5]])
        }
    }

    /// A property-list dictionary with the keys' text, so the plain API reads it.
    @Test func storedWithStringKeys() throws {
        try withSuite { suite, store in
            let id = try #require(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"))
            store[UserDefaultTypedKey<[Int: String]>("intKeyed", defaultValue: [:])] = [1: "one"]
            store[UserDefaultTypedKey<[UUID: Int]>("uuidKeyed", defaultValue: [:])] = [id: 3]
            store[UserDefaultTypedKey<[Theme: Int]>("themeKeyed", defaultValue: [:])] = [.dark: 2]
            let plain = try #require(UserDefaults(suiteName: suite))
            #expect(plain.dictionary(forKey: "intKeyed") as? [String: String] == ["1": "one"])
            #expect(plain.dictionary(forKey: "uuidKeyed") as? [String: Int] == [id.uuidString: 3])
            #expect(plain.dictionary(forKey: "themeKeyed") as? [String: Int] == ["dark": 2])
        }
    }

    /// A stored key that reads as no `Key`, or two stored keys for one key, make the whole value read
    /// as the default, as a wrong element does anywhere.
    @Test(arguments: [["1": "a", "x": "b"], ["1": "a", "01": "b"], ["99999999999999999999": "a"]])
    func anUnreadableKeyReadsAsTheDefault(_ stored: [String: String]) {
        let storage = InMemoryStorage()
        storage.set(stored, forKey: "byInt")
        let store = DefaultsStore(storage: storage)
        #expect(store[UserDefaultTypedKey<[Int: String]>("byInt", defaultValue: [0: "default"])] == [0: "default"])
    }

    /// Two keys with one text cannot both be stored: the write is refused and reported, not half done.
    @Test func keysWithOneTextAreNotStored() {
        struct Loose: LosslessStringConvertible, Hashable, UserDefaultDictionaryKey {
            let value: Int
            init(value: Int) { self.value = value }
            init?(_ description: String) { nil }
            var description: String { "same" }
        }
        let store = DefaultsStore(storage: InMemoryStorage())
        let key = UserDefaultTypedKey<[Loose: Int]>("loose", defaultValue: [:])
        #expect(throws: DefaultsError.self) { try store.set([Loose(value: 1): 1, Loose(value: 2): 2], for: key) }
        #expect(!store.hasKey(key))
    }

    /// `Int.init` and friends stay unambiguous where users pass them as functions.
    @Test func integerInitializersStayUnambiguous() {
        #expect(["1", "x"].compactMap(Int.init) == [1])
        #expect(Optional("7").flatMap(UInt32.init) == 7)
    }
}
