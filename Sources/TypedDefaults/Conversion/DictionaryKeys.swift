import Foundation

/// A type that can be the key of a storable dictionary: `[Int: String]`, `[UUID: Date]`, `[Theme: Bool]`.
///
/// A property list's dictionaries have string keys, so a dictionary is stored with each key's text,
/// and the plain API reads it as `[String: Any]`. The library conforms `String`, every integer type,
/// `Bool` and `UUID`. For an enum with a `String` or integer raw value, or any
/// `LosslessStringConvertible` type, declare the conformance and nothing else:
///
/// ```swift
/// enum Theme: String, UserDefaultConvertible, UserDefaultDictionaryKey { case light, dark }
/// let perWindow = UserDefaultTypedKey<[Theme: Int]>("perWindow", defaultValue: [:])
/// ```
///
/// A stored key that does not read as `Key` makes the whole dictionary read as the key's default.
public protocol UserDefaultDictionaryKey: Hashable, Sendable {
    /// The key `text` stands for, or `nil` when it names no key. (A static method, not an initializer:
    /// a one-argument `String` initializer would make `Int.init` ambiguous in users' code.)
    static func fromDictionaryKey(_ text: String) -> Self?
    /// The text the key is stored under.
    var dictionaryKey: String { get }
}

extension UserDefaultDictionaryKey where Self: LosslessStringConvertible {
    /// Reads the key's `description`.
    public static func fromDictionaryKey(_ text: String) -> Self? { Self(text) }
    /// The key's `description`.
    public var dictionaryKey: String { description }
}

extension UserDefaultDictionaryKey where Self: RawRepresentable, RawValue: UserDefaultDictionaryKey {
    /// Reads the raw value's text, then the case it names.
    public static func fromDictionaryKey(_ text: String) -> Self? {
        RawValue.fromDictionaryKey(text).flatMap(Self.init(rawValue:))
    }
    /// The raw value's text.
    public var dictionaryKey: String { rawValue.dictionaryKey }
}

/// A type that is both (an enum that also describes itself) stores its raw value, as an enum does
/// elsewhere; this more specific extension settles which of the two applies.
extension UserDefaultDictionaryKey
where Self: RawRepresentable & LosslessStringConvertible, RawValue: UserDefaultDictionaryKey {
    /// Reads the raw value's text, then the case it names.
    public static func fromDictionaryKey(_ text: String) -> Self? {
        RawValue.fromDictionaryKey(text).flatMap(Self.init(rawValue:))
    }
    /// The raw value's text.
    public var dictionaryKey: String { rawValue.dictionaryKey }
}

extension String: UserDefaultDictionaryKey {
    /// The text itself.
    public static func fromDictionaryKey(_ text: String) -> String? { text }
    /// The text itself.
    public var dictionaryKey: String { self }
}

extension Bool: UserDefaultDictionaryKey {}
extension Int: UserDefaultDictionaryKey {}
extension Int8: UserDefaultDictionaryKey {}
extension Int16: UserDefaultDictionaryKey {}
extension Int32: UserDefaultDictionaryKey {}
extension Int64: UserDefaultDictionaryKey {}
extension UInt: UserDefaultDictionaryKey {}
extension UInt8: UserDefaultDictionaryKey {}
extension UInt16: UserDefaultDictionaryKey {}
extension UInt32: UserDefaultDictionaryKey {}
extension UInt64: UserDefaultDictionaryKey {}

extension UUID: UserDefaultDictionaryKey {
    /// Reads the UUID's string form, in either case.
    public static func fromDictionaryKey(_ text: String) -> UUID? { UUID(uuidString: text) }
    /// The UUID's string form, as `uuidString` gives it.
    public var dictionaryKey: String { uuidString }
}
