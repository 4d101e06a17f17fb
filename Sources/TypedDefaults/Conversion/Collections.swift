import Foundation

// Collections store their elements' property-list forms. A collection reads only when every element
// reads: one wrong element anywhere, however deep, makes the whole value read as the key's default.
// Text in property-list syntax, as launch arguments deliver it on Linux ("(a, b)", "{a = 1;}"), is
// parsed first.

/// Whether a value of `type` can hold a real at any depth (`Double`, `[[Float]]`, `[String: [Double]]`,
/// `Double?`). A cast to such a type bridges every `NSNumber` inside, a stored `true` as the real 1.0
/// on Apple platforms, where every number is one; the collections' fast paths skip those types.
func canHoldReals(_ type: Any.Type) -> Bool {
    if type is any BinaryFloatingPoint.Type { return true }
    if let container = type as? any RealHolding.Type { return container.holdsReals }
    return false
}

/// A generic container whose elements decide `canHoldReals`.
protocol RealHolding {
    static var holdsReals: Bool { get }
}

extension Array: RealHolding {
    static var holdsReals: Bool { canHoldReals(Element.self) }
}
extension Set: RealHolding {
    static var holdsReals: Bool { canHoldReals(Element.self) }
}
extension Dictionary: RealHolding {
    static var holdsReals: Bool { canHoldReals(Value.self) }
}
extension Optional: RealHolding {
    static var holdsReals: Bool { canHoldReals(Wrapped.self) }
}

func convertedElements<Element: UserDefaultConvertible>(_ object: Any) -> [Element]? {
    // Fast path: elements stored as exactly `Element` (strings, numbers, dates) need no conversion. A
    // cast fails at the first element of another type, and the conversion below handles those. Not for
    // elements that hold reals at any depth, unless the array is a Swift one of exactly `Element`: a
    // cast bridges every `NSNumber`, and on Apple platforms, where every number is one, it read a stored
    // `true` as the real 1.0 (`[[true]]` as `[[1.0]]`), against the numbers' rule (`Numbers.swift`);
    // the other element types bridge as that rule reads them.
    if type(of: object) == [Element].self || !canHoldReals(Element.self),
        let values = object as? [Element]
    {
        return values
    }
    if let values = decodedJSONData(object, as: [Element].self) { return values }
    if let values: [Element] = unarchivedArray(object) { return values }
    guard let elements = object as? [Any] ?? parsingPropertyListText(object) as? [Any] else { return nil }
    var values: [Element] = []
    values.reserveCapacity(elements.count)
    for element in elements {
        guard let element = unboxed(element), let value = Element(userDefaultsObject: element) else {
            return nil
        }
        values.append(value)
    }
    return values
}

extension Optional: UserDefaultConvertible where Wrapped: UserDefaultConvertible {
    /// Reads the wrapped type; an object that does not read gives `nil`, which is the default of an
    /// optional key.
    // Inlinable, as the read path is: generic code would look up `Optional` metadata on every read.
    @inlinable public init?(userDefaultsObject object: Any) {
        guard let value = Wrapped(userDefaultsObject: object) else { return nil }
        self = .some(value)
    }
    /// The wrapped value's form, or `nil` (remove) for `.none`.
    @inlinable public var userDefaultsObject: Any? {
        guard case .some(let value) = self else { return nil }
        return value.userDefaultsObject
    }
}

extension Array: UserDefaultConvertible where Element: UserDefaultConvertible {
    /// Reads an array whose every element reads as `Element`.
    public init?(userDefaultsObject object: Any) {
        guard let values: [Element] = convertedElements(object) else { return nil }
        self = values
    }
    /// A property-list array of the elements' forms; `nil` elements are left out.
    public var userDefaultsObject: Any? {
        let objects = compactMap(\.userDefaultsObject)
        // An element that failed to convert (not a nil optional) makes the whole array unstorable.
        return objects.count == count || Element.self is any OptionalBox.Type ? objects : nil
    }
}

extension Set: UserDefaultConvertible where Element: UserDefaultConvertible {
    /// Reads an array whose every element reads as `Element`.
    public init?(userDefaultsObject object: Any) {
        guard let values: [Element] = convertedElements(object) else { return nil }
        self = Set(values)
    }
    /// A property-list array of the elements' forms, in one order for equal sets however they were
    /// built: equal sets store equal arrays, so two keys with the same default set agree.
    public var userDefaultsObject: Any? {
        guard let objects = Array(self).userDefaultsObject as? [Any] else { return nil }
        return objects.map { (key: canonicalText($0), object: $0) }.sorted { $0.key < $1.key }.map(\.object)
    }
}

/// Text that is equal for equal property lists and differs for different ones: the order in which a
/// set's elements are stored.
func canonicalText(_ object: Any) -> String {
    switch unboxed(object) {
    case let text as String: return "s" + text.debugDescription
    case let data as Data: return "d" + data.map { String($0, radix: 16) }.joined(separator: ".")
    case let date as Date: return "t\(date.timeIntervalSinceReferenceDate.bitPattern)"
    case let array as [Any]: return "a(" + array.map(canonicalText).joined(separator: ",") + ")"
    case let dictionary as [String: Any]:
        let entries = dictionary.map { $0.key.debugDescription + ":" + canonicalText($0.value) }.sorted()
        return "m(" + entries.joined(separator: ",") + ")"
    case let value?:
        switch PropertyListNumber(value) {
        case .bool(let bool)?: return "b\(bool)"
        case .integer(let integer)?: return "i\(integer)"
        case .real(let real)?: return "r\(real.bitPattern)"
        case nil: return "?\(value)"
        }
    case nil: return "n"
    }
}

extension Dictionary: UserDefaultConvertible where Key: UserDefaultDictionaryKey, Value: UserDefaultConvertible {
    /// Reads a dictionary whose every key reads as `Key` and every value as `Value`.
    public init?(userDefaultsObject object: Any) {
        // As for arrays (`convertedElements`): real values only from a Swift dictionary of exactly them.
        if Key.self == String.self,
            type(of: object) == [Key: Value].self || !canHoldReals(Value.self),
            let values = object as? [Key: Value]
        {
            self = values
            return
        }
        if let values = decodedJSONData(object, as: [Key: Value].self) {
            self = values
            return
        }
        guard
            let entries = object as? [String: Any]
                ?? parsingPropertyListText(object) as? [String: Any]
        else { return nil }
        var values: [Key: Value] = [:]
        values.reserveCapacity(entries.count)
        for (storedKey, entry) in entries {
            guard let key = Key.fromDictionaryKey(storedKey), let entry = unboxed(entry),
                let value = Value(userDefaultsObject: entry)
            else { return nil }
            // Two stored keys for one key ("1" and "01" for an `Int`): which value wins would depend on
            // the dictionary's order, so the whole value reads as the default instead.
            guard values.updateValue(value, forKey: key) == nil else { return nil }
        }
        self = values
    }
    /// A property-list dictionary of the values' forms under the keys' text; `nil` values are left out.
    /// `nil` (not storable) when two keys have the same text, which would lose one of the values.
    public var userDefaultsObject: Any? {
        var objects: [String: Any] = [:]
        objects.reserveCapacity(count)
        for (key, value) in self {
            if let object = value.userDefaultsObject {
                guard objects.updateValue(object, forKey: key.dictionaryKey) == nil else { return nil }
            } else if !(Value.self is any OptionalBox.Type) {
                return nil
            }
        }
        return objects
    }
}
