import Foundation
import Testing
import TypedDefaults

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
