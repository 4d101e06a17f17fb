import Foundation

/// `Codable` types store as JSON text: declare the conformance and nothing else.
///
/// ```swift
/// struct Profile: Codable, UserDefaultConvertible { var name: String; var age: Int }
/// ```
///
/// JSON text (keys sorted) keeps the value readable with `defaults read` and settable from a launch
/// argument. JSON stored as `Data`, as SwiftyUserDefaults writes it, reads too. A blob that does not
/// decode reads as the key's default.
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

func decodedJSON<Value: Decodable>(_ object: Any) -> Value? {
    let data: Data
    if let text = object as? String {
        data = Data(text.utf8)
    } else if let bytes = object as? Data {
        data = bytes
    } else {
        return nil
    }
    return try? JSONDecoder().decode(Value.self, from: data)
}

func encodedJSON<Value: Encodable>(_ value: Value) -> String? {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    guard let data = try? encoder.encode(value) else { return nil }
    return String(decoding: data, as: UTF8.self)
}
