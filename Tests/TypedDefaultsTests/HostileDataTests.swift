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

    @Test func a100000RandomPropertyListsGiveTheDefaultOrAFaithfulValue() {
        let seed: UInt64 = 0x7E57_DA7A
        var generator = PropertyListGenerator(random: SplitMix64(state: seed))
        var failures: [String] = []
        for _ in 0..<100_000 {
            let object = generator.value()
            for check in Self.checks {
                if let failure = check(object), failures.count < 10 { failures.append(failure) }
            }
        }
        #expect(failures.isEmpty, "seed \(seed): \(failures.joined(separator: "\n"))")
    }

    @Test func hostileValuesReadThroughAStoreGiveTheDefault() throws {
        try withStore { store in
            let key = UserDefaultTypedKey<[String: [Int]]>("hostileNested", defaultValue: ["d": [0]])
            for object in [["a": [1, 2, "3x"]], ["a": 5], [1, 2], "{a = (1, x);}", Data(), Double.nan] as [Any] {
                store.storage.set(object, forKey: "hostileNested")
                #expect(store[key] == ["d": [0]])
            }
            // Through the disk as well: what is saved and read back by Foundation still gives the default.
            store.storage.set(["a": [1, "deep"]], forKey: "hostileNested")
            try store.flush()
            #expect(store[key] == ["d": [0]])
        }
    }
}
