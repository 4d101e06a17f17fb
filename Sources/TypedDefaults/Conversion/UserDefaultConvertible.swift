/// A type that can be stored in a defaults store.
///
/// A conforming type converts to and from a property-list object: `Bool`, a number, `String`,
/// `Data`, `Date`, an array of property-list objects, or a dictionary of them with `String` keys.
///
/// The library conforms the standard types, optionals, arrays, sets and dictionaries of storable
/// types. `RawRepresentable` and `Codable` types get both requirements for free: declare the
/// conformance and nothing else.
///
/// ```swift
/// enum Theme: String, UserDefaultConvertible { case light, dark, system }
/// struct Profile: Codable, UserDefaultConvertible { var name: String; var age: Int }
/// ```
public protocol UserDefaultConvertible: Sendable {
    /// Creates a value from a stored property-list object, or returns `nil` when the object does not
    /// represent a value of this type. A read that gets `nil` returns the key's default.
    init?(userDefaultsObject: Any)

    /// The value's property-list form.
    ///
    /// `nil` means "no value": for `Optional.none` the store removes the stored value. For any other
    /// value, `nil` means it could not be converted (a `Codable` value that fails to encode); the store
    /// then keeps what was stored and reports the failure.
    var userDefaultsObject: Any? { get }
}
