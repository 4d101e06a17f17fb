import Foundation

// Numbers and Booleans. The exact conversions they share are in PropertyLists.swift: a value that does
// not fit the key's type reads as nil (the default), and nothing traps.

extension Bool: UserDefaultConvertible {
    /// Reads a Boolean, the numbers 0 and 1, or the text `YES`/`NO`, `Y`/`N`, `true`/`false`, `T`/`F`
    /// or `1`/`0` in any case (the forms a launch argument such as `-verbose YES` comes in).
    public init?(userDefaultsObject object: Any) {
        // A Swift `Bool`, what a read gives on Linux, before anything else: `nativeNumber` looks for an
        // `Optional` box and an `NSNumber`, which cost a read a fifth more than the plain one (measured).
        if let value = exactValue(object, as: Bool.self) {
            self = value
            return
        }
        let object = nativeNumber(object)
        // `as?` after `exactValue`: a container element can be a `Bool` boxed twice, which only it sees.
        if let value = exactValue(object, as: Bool.self) ?? object as? Bool {
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
        if let value = exactValue(object, as: Float.self) {
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

extension CGFloat: UserDefaultConvertible {
    /// Reads any number, as `Double` does.
    public init?(userDefaultsObject object: Any) {
        guard let value = Double(userDefaultsObject: object) else { return nil }
        self.init(value)
    }
    /// The number as a `Double`, the property-list real.
    public var userDefaultsObject: Any? { Double(self) }
}

extension Decimal: UserDefaultConvertible {
    /// Reads decimal text exactly, or any number.
    public init?(userDefaultsObject object: Any) {
        if let text = object as? String {
            guard let value = Decimal(exactText: text) else { return nil }
            self = value
        } else if let integer: Int64 = exactInteger(object) {
            self.init(integer)
        } else if let value = exactDouble(object), value.isFinite {
            self.init(value)
        } else {
            return nil
        }
    }

    /// The decimal text (`"19.99"`): exact, where a property-list real would round it to binary. `nil`
    /// (not storable) for NaN.
    public var userDefaultsObject: Any? { isNaN ? nil : description }

    /// The number `text` spells in full (`-12.50`, `1e-3`), with a `.` for the decimal point whatever
    /// the locale; `nil` for anything else, where `Decimal(string:)` would read a prefix (`"12abc"`).
    private init?(exactText text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard Self.isDecimalText(trimmed),
            let value = Decimal(string: trimmed, locale: Locale(identifier: "en_US_POSIX"))
        else { return nil }
        self = value
    }

    /// Whether `text` is `[+-]digits[.digits][e[+-]digits]` with a digit in the number (no `Regex`: it
    /// needs macOS 13).
    private static func isDecimalText(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        func skipDigits() -> Int {
            let count = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        var digits = skipDigits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            digits += skipDigits()
        }
        guard digits > 0 else { return false }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard skipDigits() > 0 else { return false }
        }
        return bytes.isEmpty
    }
}
