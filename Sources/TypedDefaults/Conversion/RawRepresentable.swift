import Foundation

/// Enums with raw values and option sets store their raw value: declare the conformance and nothing
/// else.
///
/// ```swift
/// enum Theme: String, UserDefaultConvertible { case light, dark, system }
/// ```
///
/// A stored raw value that names no case reads as the key's default.
extension UserDefaultConvertible where Self: RawRepresentable, RawValue: UserDefaultConvertible {
    /// Reads the raw value, then the case it names.
    @inlinable public init?(userDefaultsObject object: Any) {
        guard let rawValue = RawValue(userDefaultsObject: object) else { return nil }
        self.init(rawValue: rawValue)
    }
    /// The raw value's form: an enum stores its raw value, so the plain API reads it.
    @inlinable public var userDefaultsObject: Any? { rawValue.userDefaultsObject }
}

/// A type that is both `RawRepresentable` and `Codable` (`enum Mood: String, Codable`) stores its raw
/// value, as the plain API expects; this more specific extension settles which of the two applies.
///
/// It also reads the JSON that sindresorhus/Defaults stores for such a type (`"\"dark\""`, the JSON
/// text of the raw value), so values a migrating app's users saved are kept.
extension UserDefaultConvertible where Self: RawRepresentable & Codable, RawValue: UserDefaultConvertible {
    /// Reads the raw value, then the case it names; else the value as JSON.
    @inlinable public init?(userDefaultsObject object: Any) {
        if let rawValue = RawValue(userDefaultsObject: object), let value = Self(rawValue: rawValue) {
            self = value
        } else if let value: Self = decodedJSON(object) {
            self = value
        } else {
            return nil
        }
    }
    /// The raw value's form.
    @inlinable public var userDefaultsObject: Any? { rawValue.userDefaultsObject }
}

/// A type with a raw value that also declares ``UserDefaultJSONData`` (`enum Mode: String, Codable,
/// UserDefaultJSONData`) stores what it declares, JSON `Data`; this most specific extension settles which
/// of the two applies. It reads JSON stored as data or text, and a stored raw value too (what
/// SwiftyUserDefaults writes for such a type).
extension UserDefaultConvertible where Self: RawRepresentable & UserDefaultJSONData, RawValue: UserDefaultConvertible {
    /// Reads the value as JSON; else the raw value, then the case it names.
    public init?(userDefaultsObject object: Any) {
        if let value: Self = decodedJSON(object) {
            self = value
        } else if let rawValue = RawValue(userDefaultsObject: object), let value = Self(rawValue: rawValue) {
            self = value
        } else {
            return nil
        }
    }
    /// The value encoded as JSON `Data` (keys sorted), or `nil` when encoding fails.
    public var userDefaultsObject: Any? { encodedJSON(self).map { Data($0.utf8) } }
}
