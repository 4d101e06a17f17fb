import Foundation
import Testing
import TypedDefaults

@Suite("Interoperability with the plain UserDefaults API")
struct PlainAPIInteropTests {
    @Test func valuesAreStoredInTheirNativeForm() throws {
        try withSuite { suiteName, store in
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
    }

    @Test func valuesWrittenByThePlainAPIReadThroughKeys() throws {
        try withSuite { suiteName, store in
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
}
