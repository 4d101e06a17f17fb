import Foundation

/// `Codable` types store as JSON text: declare the conformance and nothing else.
///
/// ```swift
/// struct Profile: Codable, UserDefaultConvertible { var name: String; var age: Int }
/// ```
///
/// JSON text (keys sorted) keeps the value readable with `defaults read` and settable from a launch
/// argument. JSON stored as `Data`, as SwiftyUserDefaults and Foil write it, reads too; so does a
/// collection of `Codable` values they stored as one JSON blob. A blob that does not decode reads as
/// the key's default.
extension UserDefaultConvertible where Self: Codable {
    /// Decodes JSON stored as text or data.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = decodedJSON(object) else { return nil }
        self = value
    }

    /// The value encoded as JSON text, or `nil` when encoding fails (a `Double.nan` field, say); the
    /// store then keeps what was stored and reports the failure.
    public var userDefaultsObject: Any? { encodedJSON(self) }
}

@usableFromInline func decodedJSON<Value: Decodable & Sendable>(_ object: Any) -> Value? {
    if let text = object as? String {
        return DecodedJSONCache.value(for: text) { try? JSONDecoder().decode(Value.self, from: Data(text.utf8)) }
    }
    guard let data = object as? Data else { return nil }
    return try? JSONDecoder().decode(Value.self, from: data)
}

/// Decoded values by type and JSON text, so reading a value that has not changed does not decode the
/// same bytes again. Keyed by the text itself: when another writer changes the stored JSON, the new
/// text misses the cache and decodes, so a stale value is never returned.
enum DecodedJSONCache {
    struct Key: Hashable {
        let type: ObjectIdentifier
        let text: String
    }
    /// Bounds the memory: past this many entries the cache starts again from empty.
    static let capacity = 512

    static func value<Value: Sendable>(for text: String, decode: () -> Value?) -> Value? {
        let key = Key(type: ObjectIdentifier(Value.self), text: text)
        if let cached = ProcessState.withState({ $0.decodedJSON[key] }) as? Value { return cached }
        guard let value = decode() else { return nil }
        let dropped = ProcessState.withState { state -> [Key: any Sendable] in
            var dropped: [Key: any Sendable] = [:]
            if state.decodedJSON.count >= capacity { swap(&dropped, &state.decodedJSON) }
            if let replaced = state.decodedJSON.updateValue(value, forKey: key) { dropped[key] = replaced }
            return dropped
        }
        // Freed here, past the lock: a decoded value may be the app's object, whose `deinit` may read
        // the store (and this cache).
        withExtendedLifetime(dropped) {}
        return value
    }
}

/// `object` decoded as `Value` when it is JSON `Data` and `Value` is `Decodable`: how SwiftyUserDefaults
/// and Foil store a `Codable` array, set or dictionary, as one blob. Collections are storable for any
/// storable element, so whether `Value` decodes is asked at run time.
func decodedJSONData<Value>(_ object: Any, as type: Value.Type) -> Value? {
    guard let data = object as? Data, let decodable = Value.self as? any Decodable.Type else { return nil }
    return (try? JSONDecoder().decode(decodable, from: data)) as? Value
}

func encodedJSON<Value: Encodable>(_ value: Value) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(value) else { return nil }
    return String(decoding: data, as: UTF8.self)
}

/// Declared by a `Codable` type to store its values as JSON `Data`, the form SwiftyUserDefaults and
/// Foil write, instead of JSON text: for an app that keeps those libraries beside this one while it
/// moves over, whose keys read their default for JSON text.
///
/// ```swift
/// struct Wallet: Codable, UserDefaultJSONData { var currency: String }
/// ```
///
/// Both forms read back either way.
public protocol UserDefaultJSONData: UserDefaultConvertible, Codable {}

extension UserDefaultConvertible where Self: UserDefaultJSONData {
    /// Decodes JSON stored as data or text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = decodedJSON(object) else { return nil }
        self = value
    }

    /// The value encoded as JSON `Data` (keys sorted), or `nil` when encoding fails.
    public var userDefaultsObject: Any? { encodedJSON(self).map { Data($0.utf8) } }
}
