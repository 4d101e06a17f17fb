import Foundation
import Testing
import TypedDefaults

@Suite("Hostile stored data never traps")
struct HostileDataTests {
    static let checks: [@Sendable (Any) -> String?] = [
        { checkFaithful(Bool.self, $0) }, { checkFaithful(Int.self, $0) }, { checkFaithful(Int8.self, $0) },
        { checkFaithful(Int16.self, $0) }, { checkFaithful(Int32.self, $0) }, { checkFaithful(Int64.self, $0) },
        { checkFaithful(UInt.self, $0) }, { checkFaithful(UInt8.self, $0) }, { checkFaithful(UInt16.self, $0) },
        { checkFaithful(UInt32.self, $0) }, { checkFaithful(UInt64.self, $0) }, { checkFaithful(Float.self, $0) },
        { checkFaithful(Double.self, $0) }, { checkFaithful(String.self, $0) }, { checkFaithful(Data.self, $0) },
        { checkFaithful(Date.self, $0) }, { checkFaithful(URL.self, $0) }, { checkFaithful(UUID.self, $0) },
        { checkFaithful(Theme.self, $0) }, { checkFaithful(Level.self, $0) }, { checkFaithful(Mood.self, $0) },
        { checkFaithful(Permissions.self, $0) }, { checkFaithful(Profile.self, $0) },
        { checkFaithful(Int?.self, $0) }, { checkFaithful([Int].self, $0) }, { checkFaithful(Set<String>.self, $0) },
        { checkFaithful([String: Double].self, $0) }, { checkFaithful([[String: [Int]]].self, $0) },
        { checkFaithful([Profile]?.self, $0) }, { checkFaithful([URL].self, $0) }, { checkFaithful([Date].self, $0) },
    ]

    /// 100,000 in the long run (`runsLongTests`), the first 10,000 of them in `swift test`.
    @Test func randomPropertyListsGiveTheDefaultOrAFaithfulValue() {
        let seed: UInt64 = 0x7E57_DA7A
        var generator = PropertyListGenerator(random: SplitMix64(state: seed))
        var failures: [String] = []
        for _ in 0..<(runsLongTests ? 100_000 : 10_000) {
            let object = generator.value()
            for check in Self.checks {
                if let failure = check(object), failures.count < 10 { failures.append(failure) }
            }
        }
        #expect(failures.isEmpty, "seed \(seed): \(failures.joined(separator: "\n"))")
    }

    @Test func hostileValuesReadThroughAStoreGiveTheDefault() {
        withStore { store in
            let key = UserDefaultTypedKey<[String: [Int]]>("hostileNested", defaultValue: ["d": [0]])
            for object in [["a": [1, 2, "3x"]], ["a": 5], [1, 2], "{a = (1, x);}", Data(), Double.nan] as [Any] {
                store.storage.set(object, forKey: "hostileNested")
                #expect(store[key] == ["d": [0]])
            }
        }
    }

    #if os(Linux)
        /// Through the disk as well: a suite file holding hostile values, read by Foundation at a store's
        /// first use, gives the defaults.
        @Test func hostileValuesInTheSuitesFileGiveTheDefault() throws {
            let suite = uniqueSuiteName()
            defer { DefaultsStore.removeSuite(named: suite) }
            let hostile: [String: Any] = [
                "hostileNested": ["a": [1, "deep"]], "hostileCount": "3x", "hostileFlag": [true],
            ]
            try PropertyListSerialization.data(fromPropertyList: hostile, format: .xml, options: 0)
                .write(to: testConfigHome.appendingPathComponent(suite + ".plist"))
            let store = try #require(DefaultsStore(suiteName: suite))
            #expect(
                store[UserDefaultTypedKey<[String: [Int]]>("hostileNested", defaultValue: ["d": [0]])] == ["d": [0]])
            #expect(store[UserDefaultTypedKey<Int>("hostileCount", defaultValue: -1)] == -1)
            #expect(store[UserDefaultTypedKey<Bool>("hostileFlag", defaultValue: true)] == true)
            // The file was read: the plain API sees what it holds.
            #expect(store.storage.object(forKey: "hostileCount") as? String == "3x")
        }
    #endif

}
