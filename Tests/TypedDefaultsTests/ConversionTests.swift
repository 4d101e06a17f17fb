import Foundation
import Testing
import TypedDefaults

/// Writes `value` through a fresh key and reads it back through another key object of the same name,
/// so the read goes through storage, not through any cache of the written value.
func roundTrip<Value: UserDefaultConvertible & Equatable>(
    _ value: Value, default defaultValue: Value, in store: DefaultsStore, name: String = "value"
) -> Value {
    store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)] = value
    return store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)]
}

@Suite("Built-in types round-trip on every backend")
struct BuiltInTypeTests {
    @Test(arguments: Backend.allCases)
    func scalars(_ backend: Backend) {
        withStore(backend) { store in
            #expect(roundTrip(true, default: false, in: store, name: "bool") == true)
            #expect(roundTrip(-42, default: 0, in: store, name: "int") == -42)
            #expect(roundTrip(Int8.min, default: 0, in: store, name: "int8") == Int8.min)
            #expect(roundTrip(Int16.max, default: 0, in: store, name: "int16") == Int16.max)
            #expect(roundTrip(Int32.min, default: 0, in: store, name: "int32") == Int32.min)
            #expect(roundTrip(Int64.min, default: 0, in: store, name: "int64") == Int64.min)
            #expect(roundTrip(UInt.max, default: 0, in: store, name: "uint") == UInt.max)
            #expect(roundTrip(UInt8.max, default: 0, in: store, name: "uint8") == UInt8.max)
            #expect(roundTrip(UInt16.max, default: 0, in: store, name: "uint16") == UInt16.max)
            #expect(roundTrip(UInt32.max, default: 0, in: store, name: "uint32") == UInt32.max)
            #expect(roundTrip(UInt64.max, default: 0, in: store, name: "uint64") == UInt64.max)
            #expect(roundTrip(Float(0.1), default: 0, in: store, name: "float") == Float(0.1))
            #expect(roundTrip(Double.pi, default: 0, in: store, name: "double") == Double.pi)
            #expect(roundTrip("héllo ✓", default: "", in: store, name: "string") == "héllo ✓")
        }
    }

    @Test(arguments: Backend.allCases)
    func foundationTypes(_ backend: Backend) throws {
        try withStore(backend) { store in
            let data = Data([0, 1, 2, 255])
            #expect(roundTrip(data, default: Data(), in: store, name: "data") == data)
            let date = Date(timeIntervalSince1970: 1_700_000_000.123456)
            #expect(roundTrip(date, default: .distantPast, in: store, name: "date") == date)
            let url = try #require(URL(string: "https://example.com/p?q=1#top"))
            #expect(roundTrip(url, default: URL(fileURLWithPath: "/"), in: store, name: "url") == url)
            let uuid = UUID()
            #expect(roundTrip(uuid, default: UUID(), in: store, name: "uuid") == uuid)
        }
    }

    @Test(arguments: Backend.allCases)
    func rawRepresentableAndCodable(_ backend: Backend) {
        withStore(backend) { store in
            store[.theme] = .dark
            #expect(store[.theme] == .dark)
            store[.mood] = .busy
            #expect(store[.mood] == .busy)
            store[.permissions] = [.read, .write]
            #expect(store[.permissions] == [.read, .write])
            let profile = Profile(name: "Ada", age: 36)
            store[.profile] = profile
            #expect(store[.profile] == profile)
            #expect(roundTrip(Level.high, default: .low, in: store, name: "level") == .high)
        }
    }

    @Test(arguments: Backend.allCases)
    func collectionsAndNesting(_ backend: Backend) {
        withStore(backend) { store in
            #expect(roundTrip(["a", "b"], default: [], in: store, name: "array") == ["a", "b"])
            #expect(roundTrip(Set([1, 2, 3]), default: [], in: store, name: "set") == Set([1, 2, 3]))
            #expect(roundTrip(["x": 1.5], default: [:], in: store, name: "dict") == ["x": 1.5])
            let nested: [[String: [Int]]] = [["a": [1, 2]], ["b": []]]
            #expect(roundTrip(nested, default: [], in: store, name: "nested") == nested)
            let profiles: [Profile]? = [Profile(name: "A", age: 1), Profile(name: "B", age: 2)]
            #expect(roundTrip(profiles, default: nil, in: store, name: "profiles") == profiles)
            let themes: [String: [Theme]] = ["day": [.light], "night": [.dark, .system]]
            #expect(roundTrip(themes, default: [:], in: store, name: "themes") == themes)
            let optionalInts: Int?? = .some(.some(3))
            #expect(roundTrip(optionalInts, default: nil, in: store, name: "optionalOptional") == optionalInts)
            let dates = [Date(timeIntervalSince1970: 1.5), Date(timeIntervalSince1970: 2.25)]
            #expect(roundTrip(dates, default: [], in: store, name: "dates") == dates)
        }
    }

    @Test(arguments: Backend.allCases)
    func inPlaceMutationThroughTheSubscript(_ backend: Backend) {
        withStore(backend) { store in
            store[.launchCount] += 1
            store[.launchCount] += 1
            store[.recent].append("a.txt")
            store[.recent].append("b.txt")
            store[.scores]["ada"] = 3
            #expect(store[.launchCount] == 2)
            #expect(store[.recent] == ["a.txt", "b.txt"])
            #expect(store[.scores] == ["ada": 3])
        }
    }
}

/// A storage that counts its `register(defaults:)` calls.
final class CountingStorage: KeyValueStorage, @unchecked Sendable {
    let inner = InMemoryStorage()
    private let lock = NSLock()
    private var calls = 0
    var registerCalls: Int { lock.withLock { calls } }
    func object(forKey key: String) -> Any? { inner.object(forKey: key) }
    func set(_ object: Any?, forKey key: String) { inner.set(object, forKey: key) }
    func removeObject(forKey key: String) { inner.removeObject(forKey: key) }
    func register(defaults: [String: Any]) {
        lock.withLock { calls += 1 }
        inner.register(defaults: defaults)
    }
}

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

    @Test(arguments: Backend.allCases)
    func aStoredValueEqualToTheDefaultCountsAsStored(_ backend: Backend) {
        // A backend that cannot list its values cannot tell these apart; the others must.
        guard backend != .minimalCustom else { return }
        withStore(backend) { store in
            store[.launchCount] = 0
            #expect(store.hasKey(.launchCount))
        }
    }

    @Test func registeredDefaultIsVisibleToThePlainAPIButNeverStored() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let store = try #require(DefaultsStore(suiteName: suiteName))
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

@Suite("Reads see every change, whoever makes it")
struct ReadFreshnessTests {
    @Test(arguments: Backend.allCases)
    func aKeyReadsChangesMadeThroughTheStorageAndOtherStores(_ backend: Backend) {
        withStore(backend) { store in
            // Registered defaults are process-wide for UserDefaults: a name no other test uses.
            let name = "fresh.\(UUID().uuidString)"
            let key = UserDefaultTypedKey<Int>(name, defaultValue: 1)
            #expect(store[key] == 1)
            store.storage.set(5, forKey: name)
            #expect(store[key] == 5)
            store.storage.set("6", forKey: name)
            #expect(store[key] == 6)
            store.storage.set("six", forKey: name)
            #expect(store[key] == 1)
            store.storage.removeObject(forKey: name)
            store.storage.register(defaults: [name: 9])
            #expect(store[key] == 9)
            DefaultsStore(storage: store.storage)[key] = 3
            #expect(store[key] == 3)
            store[key] = 4
            #expect(store.storage.object(forKey: name) as? Int == 4)
            #expect(store[key] == 4)
        }
    }

    @Test(arguments: Backend.allCases)
    func readersOnOtherThreadsNeverSeeAValueGoBack(_ backend: Backend) {
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var writerFinished = false
            var problems: [String] = []
        }
        withStore(backend) { store in
            let key = UserDefaultTypedKey<Int>("sequence", defaultValue: 0)
            let last = 2_000
            let shared = Shared()
            let readersDone = DispatchSemaphore(value: 0)
            for _ in 0..<3 {
                Thread.detachNewThread {
                    var previous = 0
                    while !shared.lock.withLock({ shared.writerFinished }) {
                        let value = store[key]
                        if value < previous {
                            shared.lock.withLock { shared.problems.append("\(previous) then \(value)") }
                        }
                        previous = value
                    }
                    let final = store[key]
                    if final != last { shared.lock.withLock { shared.problems.append("read \(final) at the end") } }
                    readersDone.signal()
                }
            }
            for value in 1...last { store[key] = value }
            shared.lock.withLock { shared.writerFinished = true }
            for _ in 0..<3 { readersDone.wait() }
            #expect(shared.problems.isEmpty)
        }
    }
}

@Suite("Interoperability with the plain UserDefaults API")
struct PlainAPIInteropTests {
    @Test func valuesAreStoredInTheirNativeForm() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let store = try #require(DefaultsStore(suiteName: suiteName))
        let plain = try #require(UserDefaults(suiteName: suiteName))
        store[.launchCount] = 3
        store[.theme] = .dark
        store[.recent] = ["a", "b"]
        store[.scores] = ["x": 1]
        store[UserDefaultTypedKey<Set<String>>("tags", defaultValue: [])] = ["only"]
        store[UserDefaultTypedKey<Double>("ratio", defaultValue: 0)] = 0.25
        store[UserDefaultTypedKey<Bool>("flag", defaultValue: false)] = true
        #expect(plain.integer(forKey: "launchCount") == 3)
        #expect(plain.string(forKey: "theme") == "dark")
        #expect(plain.stringArray(forKey: "recent") == ["a", "b"])
        #expect(plain.dictionary(forKey: "scores")?["x"].flatMap { $0 as? Int } == 1)
        #expect(plain.stringArray(forKey: "tags") == ["only"])
        #expect(plain.double(forKey: "ratio") == 0.25)
        #expect(plain.bool(forKey: "flag"))
    }

    @Test func valuesWrittenByThePlainAPIReadThroughKeys() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let store = try #require(DefaultsStore(suiteName: suiteName))
        let plain = try #require(UserDefaults(suiteName: suiteName))
        plain.set(5, forKey: "launchCount")
        plain.set("light", forKey: "theme")
        plain.set(["x", "y"], forKey: "recent")
        plain.set(["k": 2], forKey: "scores")
        plain.set("ada", forKey: "username")
        #expect(store[.launchCount] == 5)
        #expect(store[.theme] == .light)
        #expect(store[.recent] == ["x", "y"])
        #expect(store[.scores] == ["k": 2])
        #expect(store[.username] == "ada")
    }
}

@Suite("Wrong stored data reads as the default")
struct BadStoredDataTests {
    @Test(arguments: Backend.allCases)
    func wrongTypesGiveTheDefault(_ backend: Backend) {
        withStore(backend) { store in
            func check<Value: UserDefaultConvertible & Equatable>(_ defaultValue: Value, _ stored: Any) {
                let name = "bad.\(Value.self)"
                store.storage.set(stored, forKey: name)
                #expect(store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)] == defaultValue)
            }
            check(false, "maybe")
            check(7, "seven")
            check(Int8(7), 300)
            check(UInt64(7), -1)
            check(Int(7), 2.5)
            check(Int(7), Double.nan)
            check(Int32(7), Double.infinity)
            check(Float(7), 1e300)
            check(Double(7), ["not a number"])
            check("default", 42)
            check(Data([1]), "text")
            check(Date(timeIntervalSince1970: 0), "not a date")
            check(URL(fileURLWithPath: "/default"), 3)
            check(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "not-a-uuid")
            check(Theme.system, "purple")
            check(Level.low, 9)
            check(Mood.calm, "sleepy")
            check(Profile(name: "d", age: 0), "{not json")
            check(Profile(name: "d", age: 0), Data())
            check(Profile(name: "d", age: 0), #"{"name": "x"}"#)
            check([1, 2], [1, "two"])
            check(["a": 1], ["a": "one"])
            check(Set(["a"]), 5)
            check([["a": [1]]], [["a": [1, "deep"]]])
            check([Profile(name: "d", age: 0)], ["{}"])
        }
    }

    @Test(arguments: Backend.allCases)
    func aWrongValueUnderAnOptionalKeyReadsAsNil(_ backend: Backend) {
        withStore(backend) { store in
            store.storage.set(42, forKey: "username")
            #expect(store[.username] == nil)
            store.storage.set(["a": 1], forKey: "profile")
            #expect(store[.profile] == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func aValueWithoutPropertyListFormIsRefusedAndTheStoredValueKept(_ backend: Backend) {
        struct Measurement: Codable, Equatable, UserDefaultConvertible { var value: Double }
        withStore(backend) { store in
            let key = UserDefaultTypedKey<Measurement>("measurement", defaultValue: Measurement(value: 0))
            store[key] = Measurement(value: 1)
            #expect(throws: DefaultsError.unconvertibleValue(key: "measurement", type: "Measurement")) {
                try store.set(Measurement(value: .nan), for: key)
            }
            #expect(store[key] == Measurement(value: 1))
        }
    }
}
