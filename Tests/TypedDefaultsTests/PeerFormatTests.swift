import Foundation
import Testing
import TypedDefaults

/// A value of one type that each peer stored in its own way (see `shared/PEER-FORMATS.md`).
struct PeerForm: CustomTestStringConvertible, Sendable {
    let peer: String
    let family: String
    /// What the peer's `set(_:forKey:)` left in the suite.
    let stored: @Sendable () throws -> Any
    /// Reads the value stored under a name through a typed key, and says whether it is the one the
    /// peer stored.
    let readsBack: @Sendable (DefaultsStore, String) -> Bool
    var testDescription: String { "\(peer): \(family)" }
    /// A name of its own: a stored name keeps one value type in a process.
    var name: String { (peer + family).filter { $0.isLetter } }
}

enum Layout: String, Codable, UserDefaultConvertible { case grid, list }
enum Priority: Int, Codable, UserDefaultConvertible {
    case low = 1
    case high = 2
}

private func json<Value: Encodable>(_ value: Value, sorted: Bool = false) throws -> Data {
    let encoder = JSONEncoder()
    if sorted { encoder.outputFormatting = .sortedKeys }
    return try encoder.encode(value)
}

private func jsonText<Value: Encodable>(_ value: Value) throws -> String {
    String(decoding: try json(value, sorted: true), as: UTF8.self)
}

private func reads<Value: UserDefaultConvertible & Equatable>(_ expected: Value, default defaultValue: Value)
    -> @Sendable (DefaultsStore, String) -> Bool
{
    { store, name in store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)] == expected }
}

private let ada = Profile(name: "Ada", age: 36)
private let alan = Profile(name: "Alan", age: 41)
private let url = URL(string: "https://example.com/a?b=1")!

private let peerForms: [PeerForm] = [
    // sindresorhus/Defaults: Codable as JSON text, and Codable wins over the raw value.
    PeerForm(
        peer: "Defaults", family: "String enum, Codable", stored: { try jsonText(Layout.list) },
        readsBack: reads(Layout.list, default: .grid)),
    PeerForm(
        peer: "Defaults", family: "Int enum, Codable", stored: { try jsonText(Priority.high) },
        readsBack: reads(Priority.high, default: .low)),
    PeerForm(
        peer: "Defaults", family: "Codable struct", stored: { try jsonText(ada) }, readsBack: reads(ada, default: alan)),
    PeerForm(
        peer: "Defaults", family: "optional Codable struct", stored: { try jsonText(ada) },
        readsBack: reads(Optional(ada), default: nil)),
    PeerForm(
        peer: "Defaults", family: "array of Codable", stored: { try [jsonText(ada), jsonText(alan)] },
        readsBack: reads([ada, alan], default: [])),
    PeerForm(
        peer: "Defaults", family: "array of Codable enums", stored: { try [jsonText(Layout.list)] },
        readsBack: reads([Layout.list], default: [])),
    PeerForm(
        peer: "Defaults", family: "dictionary of Codable", stored: { try ["a": jsonText(ada)] },
        readsBack: reads(["a": ada], default: [:])),
    PeerForm(peer: "Defaults", family: "set", stored: { ["x", "y"] }, readsBack: reads(Set(["x", "y"]), default: [])),
    PeerForm(peer: "Defaults", family: "range", stored: { [2, 5] }, readsBack: reads(2..<5, default: 0..<1)),
    PeerForm(
        peer: "Defaults", family: "plist scalars", stored: { [1.5, 2.5] }, readsBack: reads([1.5, 2.5], default: [])),
    // SwiftyUserDefaults: raw values, and Codable as JSON Data (an array as one blob).
    PeerForm(
        peer: "SwiftyUserDefaults", family: "String enum, Codable", stored: { "list" },
        readsBack: reads(Layout.list, default: .grid)),
    PeerForm(
        peer: "SwiftyUserDefaults", family: "array of raw values", stored: { ["list", "grid"] },
        readsBack: reads([Layout.list, .grid], default: [])),
    PeerForm(
        peer: "SwiftyUserDefaults", family: "Codable struct", stored: { try json(ada) },
        readsBack: reads(ada, default: alan)),
    PeerForm(
        peer: "SwiftyUserDefaults", family: "array of Codable", stored: { try json([ada, alan]) },
        readsBack: reads([ada, alan], default: [])),
    PeerForm(
        peer: "SwiftyUserDefaults", family: "URL (archived on Apple platforms)",
        stored: { try NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: true) },
        readsBack: reads(url, default: URL(fileURLWithPath: "/"))),
    // Foil: raw values, and Codable as JSON Data.
    PeerForm(peer: "Foil", family: "Int enum", stored: { 2 }, readsBack: reads(Priority.high, default: .low)),
    PeerForm(peer: "Foil", family: "Codable struct", stored: { try json(ada) }, readsBack: reads(ada, default: alan)),
    PeerForm(
        peer: "Foil", family: "optional Codable struct", stored: { try json(ada) },
        readsBack: reads(Optional(ada), default: nil)),
    PeerForm(
        peer: "Foil", family: "array of Codable", stored: { try json([ada, alan]) },
        readsBack: reads([ada, alan], default: [])),
    PeerForm(
        peer: "Foil", family: "set of Codable", stored: { try json([ada]) }, readsBack: reads(Set([ada]), default: [])),
    PeerForm(
        peer: "Foil", family: "dictionary of Codable", stored: { try json(["a": ada]) },
        readsBack: reads(["a": ada], default: [:])),
]

@Suite("What SwiftyUserDefaults, Defaults and Foil stored reads back")
struct PeerFormatTests {
    /// The peer's form is stored with the plain API in a suite, as the peer's `set(_:forKey:)` left it;
    /// a typed key of the same value type reads the value the peer stored.
    @Test(arguments: peerForms)
    func readsWhatThePeerStored(_ form: PeerForm) throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        let plain = try #require(UserDefaults(suiteName: suite))
        plain.set(try form.stored(), forKey: form.name)
        let store = try #require(DefaultsStore(suiteName: suite))
        #expect(form.readsBack(store, form.name))
    }

    /// Reading the peer's form does not rewrite it: the app can still go back to the peer's version.
    @Test func readingLeavesThePeersFormInPlace() throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        let plain = try #require(UserDefaults(suiteName: suite))
        plain.set(#""list""#, forKey: "peerLayout")
        let store = try #require(DefaultsStore(suiteName: suite))
        #expect(store[UserDefaultTypedKey<Layout>("peerLayout", defaultValue: .grid)] == .list)
        #expect(plain.string(forKey: "peerLayout") == #""list""#)
    }
}
