import Foundation
import Testing
import TypedDefaults

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
