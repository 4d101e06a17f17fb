import Foundation

// Numbers and Booleans. The exact conversions they share are in PropertyLists.swift: a value that does
// not fit the key's type reads as nil (the default), and nothing traps.

extension Bool: UserDefaultConvertible {
    /// Reads a Boolean, the numbers 0 and 1, or the text `YES`/`NO`, `Y`/`N`, `true`/`false`, `T`/`F`
    /// or `1`/`0` in any case (the forms a launch argument such as `-verbose YES` comes in).
    public init?(userDefaultsObject object: Any) {
        if let value = exactValue(object, as: Bool.self) {
            self = value
        } else if let value = object as? Bool {
            self = value
        } else if let text = object as? String {
            switch text.trimmingCharacters(in: .whitespaces).lowercased() {
            case "yes", "y", "true", "t", "1": self = true
            case "no", "n", "false", "f", "0": self = false
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

/// Every integer type but `Int` (which has a faster read of its own) gets both requirements here.
/// `& Codable` in the constraint makes this extension more specific than the `Codable` one, which
/// integers would otherwise also match.
extension UserDefaultConvertible where Self: FixedWidthInteger & Codable {
    /// Reads any integer in range, a whole-valued floating-point number, or integer text.
    public init?(userDefaultsObject object: Any) {
        guard let value: Self = exactInteger(object) else { return nil }
        self = value
    }

    /// The integer as `Int` when it fits, so the plain API's `integer(forKey:)` reads it; else as
    /// `Int64` (on 32-bit platforms) or `UInt64` (above `Int64.max`).
    public var userDefaultsObject: Any? {
        if let value = Int(exactly: self) { return value }
        if let value = Int64(exactly: self) { return value }
        return UInt64(exactly: self)
    }
}

extension Int8: UserDefaultConvertible {}
extension Int16: UserDefaultConvertible {}
extension Int32: UserDefaultConvertible {}
extension Int64: UserDefaultConvertible {}
extension UInt: UserDefaultConvertible {}
extension UInt8: UserDefaultConvertible {}
extension UInt16: UserDefaultConvertible {}
extension UInt32: UserDefaultConvertible {}
extension UInt64: UserDefaultConvertible {}

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
