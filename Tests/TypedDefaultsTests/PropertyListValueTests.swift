import Foundation
import Testing
import TypedDefaults

@Suite("PropertyListValue: any property list, in native form")
struct PropertyListValueTests {
    static let sample: [String: PropertyListValue] = [
        "a": 1,
        "b": [true, 2.5, "x"],
        "c": ["nested": ["deeper": [.int(Int.max), -1]], "empty": [], "none": [:]],
        "d": .date(Date(timeIntervalSince1970: 1_700_000_000.25)),
        "e": .data(Data([0, 255])),
        "f": false,
        "g": 3.0,
    ]

    @Test func literalsBuildTheCases() {
        let value: PropertyListValue = ["a": 1, "b": [true, 2.5, "x"]]
        #expect(value == .dictionary(["a": .int(1), "b": .array([.bool(true), .double(2.5), .string("x")])]))
        #expect(value["b"]?[2] == "x")
        #expect(value["b"]?[3] == nil)
        #expect(value["missing"] == nil)
        #expect(PropertyListValue.int(1) != .double(1))
    }

    @Test(arguments: Backend.allCases)
    func roundTripsNested(_ backend: Backend) {
        withStore(backend) { store in
            #expect(roundTrip(Self.sample, default: [:], in: store, name: "extras") == Self.sample)
            #expect(roundTrip(PropertyListValue("text"), default: 0, in: store, name: "single") == "text")
        }
    }

    /// Native form: the plain API reads an ordinary dictionary, and a value another program stored
    /// reads as its cases.
    @Test func storedInNativeForm() throws {
        try withSuite { suite, store in
            let key = UserDefaultTypedKey<[String: PropertyListValue]>("nativeExtras", defaultValue: [:])
            store[key] = ["a": 1, "b": [true, 2.5, "x"]]
            let plain = try #require(UserDefaults(suiteName: suite))
            let stored = try #require(plain.dictionary(forKey: "nativeExtras"))
            #expect(stored["a"] as? Int == 1)
            #expect((stored["b"] as? [Any])?.count == 3)
            plain.set(["n": 2, "s": "t", "l": [1.5]], forKey: "nativeExtras")
            #expect(store[key] == ["n": 2, "s": "t", "l": [1.5]])
        }
    }

    /// Booleans, integers and reals keep their kind through the saved file, where they come back as
    /// `NSNumber`s (as every value does on Apple platforms).
    @Test func kindsSurviveTheSavedFile() throws {
        try withSuite { suite, store in
            let key = UserDefaultTypedKey<[String: PropertyListValue]>("savedExtras", defaultValue: [:])
            store[key] = Self.sample
            let file = PropertyListSerialization.self
            let data = try file.data(
                fromPropertyList: try #require(store.storage.object(forKey: "savedExtras")), format: .binary, options: 0
            )
            let parsed = try file.propertyList(from: data, format: nil)
            #expect(PropertyListValue(userDefaultsObject: parsed) == .dictionary(Self.sample))
        }
    }

    /// Anything that is not a property list reads as the default.
    @Test func notAPropertyListReadsAsTheDefault() {
        let storage = InMemoryStorage()
        storage.set(["a": NSObject()], forKey: "odd")
        let store = DefaultsStore(storage: storage)
        #expect(store[UserDefaultTypedKey<PropertyListValue>("odd", defaultValue: "default")] == "default")
    }
}

@Suite("PropertyListValue nested deeper than a suite's file holds is refused")
struct DeepPropertyListValueTests {
    /// `levels` arrays, one inside the other, around an integer; built without recursion.
    static func nested(_ levels: Int) -> PropertyListValue {
        var value: PropertyListValue = .int(1)
        for _ in 0..<levels { value = .array([value]) }
        return value
    }

    @Test func theDeepestValueAFileHoldsIsSavedAndReadBack() throws {
        try withSuite { suite, store in
            let key = UserDefaultTypedKey<PropertyListValue?>("deepest")
            let value = Self.nested(PropertyListValue.maximumNesting)
            try store.set(value, for: key)
            try store.flush()
            #expect(store[key] == value)
            #if os(Linux)
                // The saved file reads back in Foundation: the whole suite, not only this key.
                let file = testConfigHome.appendingPathComponent(suite + ".plist")
                #expect(propertyList(at: file)?["deepest"] != nil)
            #endif
        }
    }

    @Test(arguments: [PropertyListValue.maximumNesting + 1, 5_000])
    func aDeeperValueIsRefusedWithAClearErrorAndNothingElseIsLost(_ levels: Int) throws {
        try withSuite { _, store in
            let key = UserDefaultTypedKey<PropertyListValue?>("tooDeep")
            let other = UserDefaultTypedKey<Int>("other", defaultValue: 0)
            store[other] = 3
            store[key] = .string("kept")
            #expect {
                try store.set(Self.nested(levels), for: key)
            } throws: { error in
                "\(error)".contains("nested more than \(PropertyListValue.maximumNesting) levels")
            }
            try store.flush()
            #expect(store[key] == .string("kept"))
            #expect(store[other] == 3)
        }
    }
}
