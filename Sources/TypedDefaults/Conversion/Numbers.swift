import Foundation

// Reading numbers: property-list numbers arrive as Int, Double, Bool, UInt64 or NSNumber depending on
// the platform and on whether the value came from disk, memory or a launch argument ("3", "YES").
// Every conversion here is exact: a value that does not fit the key's type reads as nil (the default),
// and nothing traps.

/// `object` as `T` when it holds exactly a `T`. Cheaper than `as? T`, which goes through the runtime's
/// general cast on `Any`; a read of a plain value takes this path first.
@inline(__always)
func exactValue<T>(_ object: Any, as type: T.Type) -> T? {
    func open<Boxed>(_ boxed: Boxed) -> T? {
        Boxed.self == T.self ? unsafeBitCast(boxed, to: T.self) : nil
    }
    return open(object)
}

extension Bool: UserDefaultConvertible {
    /// Reads a Boolean, the numbers 0 and 1, or the text `YES`/`NO`/`true`/`false`/`1`/`0`.
    public init?(userDefaultsObject object: Any) {
        if let value = exactValue(object, as: Bool.self) {
            self = value
        } else if let value = object as? Bool {
            self = value
        } else if let text = object as? String {
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "true", "1": self = true
            case "no", "false", "0": self = false
            default: return nil
            }
        } else if let number = exactDouble(object) {
            switch number {
            case 0: self = false
            case 1: self = true
            default: return nil
            }
        } else {
            return nil
        }
    }

    /// The Boolean itself.
    public var userDefaultsObject: Any? { self }
}

/// The integer in `object`, if it holds one that `Integer` represents exactly.
@inline(__always)
func exactInteger<Integer: FixedWidthInteger>(_ object: Any) -> Integer? {
    switch object {
    case let value as Int: return Integer(exactly: value)
    case let value as Double: return value.isFinite ? Integer(exactly: value) : nil
    case let value as UInt64: return Integer(exactly: value)
    case let value as Int64: return Integer(exactly: value)
    case let value as Float: return value.isFinite ? Integer(exactly: value) : nil
    case let value as Bool: return value ? 1 : 0
    case let text as String:
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Integer(trimmed) { return value }
        guard let value = Double(trimmed), value.isFinite else { return nil }
        return Integer(exactly: value)
    default: return nil
    }
}

/// The number in `object` as a Double, reading integers, floats and decimal text.
@inline(__always)
func exactDouble(_ object: Any) -> Double? {
    switch object {
    case let value as Double: return value
    case let value as Int: return Double(value)
    case let value as Float: return Double(value)
    case let value as UInt64: return Double(value)
    case let value as Int64: return Double(value)
    case is Bool: return nil
    case let text as String: return Double(text.trimmingCharacters(in: .whitespaces))
    default: return nil
    }
}

extension Int: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        if let value = exactValue(object, as: Int.self) {
            self = value
        } else if let value = object as? Int {
            self = value
        } else if let value: Int = exactInteger(object) {
            self = value
        } else {
            return nil
        }
    }
    /// The integer itself.
    public var userDefaultsObject: Any? { self }
}

extension Int8: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` so the plain API's `integer(forKey:)` reads it.
    public var userDefaultsObject: Any? { Int(self) }
}

extension Int16: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` so the plain API's `integer(forKey:)` reads it.
    public var userDefaultsObject: Any? { Int(self) }
}

extension Int32: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` so the plain API's `integer(forKey:)` reads it.
    public var userDefaultsObject: Any? { Int(self) }
}

extension Int64: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` where that is 64 bits wide.
    public var userDefaultsObject: Any? { Int(exactly: self) ?? self }
}

extension UInt: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` when it fits and as `UInt64` above `Int.max`.
    public var userDefaultsObject: Any? { Int(exactly: self) ?? UInt64(self) }
}

extension UInt8: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int`.
    public var userDefaultsObject: Any? { Int(self) }
}

extension UInt16: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int`.
    public var userDefaultsObject: Any? { Int(self) }
}

extension UInt32: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int`.
    public var userDefaultsObject: Any? { Int(self) }
}

extension UInt64: UserDefaultConvertible {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }
    /// The integer, stored as `Int` when it fits and as `UInt64` above `Int.max`.
    public var userDefaultsObject: Any? { Int(exactly: self) ?? self }
}

extension Double: UserDefaultConvertible {
    /// Reads any number (integers too) or decimal text.
    public init?(userDefaultsObject object: Any) {
        if let value = exactValue(object, as: Double.self) {
            self = value
        } else if let value = object as? Double {
            self = value
        } else if let value = exactDouble(object) {
            self = value
        } else {
            return nil
        }
    }
    /// The number itself.
    public var userDefaultsObject: Any? { self }
}

extension Float: UserDefaultConvertible {
    /// Reads any number within `Float`'s range, or decimal text.
    public init?(userDefaultsObject object: Any) {
        if let value = object as? Float {
            self = value
            return
        }
        guard let value = exactDouble(object) else { return nil }
        if value.isFinite && abs(value) > Double(Float.greatestFiniteMagnitude) { return nil }
        self = Float(value)
    }
    /// The number itself.
    public var userDefaultsObject: Any? { self }
}
