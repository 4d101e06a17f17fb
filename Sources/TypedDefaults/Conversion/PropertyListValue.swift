import Foundation

/// Any property-list value, for settings whose shape is not one Swift type: a string, a number, a
/// Boolean, a date, data, or an array or string-keyed dictionary of these, nested freely.
///
/// It is stored in native form, so the plain API and `defaults read` see an ordinary property list,
/// and it is written with literals:
///
/// ```swift
/// let extras = UserDefaultTypedKey<[String: PropertyListValue]>("extras", defaultValue: [:])
/// Defaults[extras] = ["a": 1, "b": [true, 2.5, "x"]]
/// if case .array(let items)? = Defaults[extras]["b"] { print(items.count) }
/// ```
///
/// `int` and `double` are different values: `1` and `1.0` are not equal.
public enum PropertyListValue: Hashable, Sendable {
    /// A string: `"dark"`.
    case string(String)
    /// An integer: `3`.
    case int(Int)
    /// A real: `2.5`.
    case double(Double)
    /// A Boolean: `true`.
    case bool(Bool)
    /// A date.
    case date(Date)
    /// Bytes.
    case data(Data)
    /// An array of values: `[1, "a"]`.
    case array([PropertyListValue])
    /// A dictionary with string keys: `["a": 1]`.
    case dictionary([String: PropertyListValue])

    /// The value under `key`, when this is a dictionary that has it.
    public subscript(key: String) -> PropertyListValue? {
        guard case .dictionary(let entries) = self else { return nil }
        return entries[key]
    }

    /// The element at `index`, when this is an array that long.
    public subscript(index: Int) -> PropertyListValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }
}

extension PropertyListValue: UserDefaultConvertible {
    /// Reads any property list; `nil` for anything else (such as a number too large for `Int` that is
    /// not a real).
    public init?(userDefaultsObject object: Any) {
        guard let object = unboxed(object) else { return nil }
        switch object {
        case let text as String: self = .string(text)
        case let date as Date: self = .date(date)
        case let data as Data: self = .data(data)
        case let elements as [Any]:
            var values: [PropertyListValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = PropertyListValue(userDefaultsObject: element) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let entries as [String: Any]:
            var values: [String: PropertyListValue] = [:]
            values.reserveCapacity(entries.count)
            for (key, entry) in entries {
                guard let value = PropertyListValue(userDefaultsObject: entry) else { return nil }
                values[key] = value
            }
            self = .dictionary(values)
        default:
            guard let number = PropertyListNumber(object) else { return nil }
            switch number {
            case .bool(let value): self = .bool(value)
            case .integer(let value): self = .int(value)
            case .real(let value): self = .double(value)
            }
        }
    }

    /// The native property list: a string, number, Boolean, date, data, array or dictionary.
    public var userDefaultsObject: Any? {
        // Checked once, at the top, without recursion: a value nested thousands of levels deep would
        // overflow the stack of anything that walks it recursively (Foundation's `set` among them).
        guard nestingDepth(limit: Self.maximumNesting) <= Self.maximumNesting else { return nil }
        return nestedObject
    }

    /// The deepest nesting of arrays and dictionaries a stored value may have: a suite's file holds
    /// objects 511 levels below its top dictionary at most (the library's reader and Foundation's alike),
    /// and the value sits one level below it.
    package static let maximumNesting = 500

    /// The levels of arrays and dictionaries in the value, counted without recursion; stops counting
    /// past `limit`.
    func nestingDepth(limit: Int) -> Int {
        var deepest = 0
        var pending: [(value: PropertyListValue, depth: Int)] = [(self, 0)]
        while let (value, depth) = pending.popLast() {
            switch value {
            case .array(let elements):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                pending += elements.map { ($0, depth + 1) }
            case .dictionary(let entries):
                deepest = max(deepest, depth + 1)
                if deepest > limit { return deepest }
                pending += entries.values.map { ($0, depth + 1) }
            default:
                break
            }
        }
        return deepest
    }

    private var nestedObject: Any? {
        switch self {
        case .string(let value): value
        case .int(let value): value
        case .double(let value): value
        case .bool(let value): value
        case .date(let value): value
        case .data(let value): value
        case .array(let values): values.map { $0.nestedObject as Any }
        case .dictionary(let values): values.mapValues { $0.nestedObject as Any }
        }
    }
}

extension PropertyListValue: ExpressibleByStringLiteral {
    /// A ``string(_:)``.
    public init(stringLiteral value: String) { self = .string(value) }
}

extension PropertyListValue: ExpressibleByIntegerLiteral {
    /// An ``int(_:)``.
    public init(integerLiteral value: Int) { self = .int(value) }
}

extension PropertyListValue: ExpressibleByFloatLiteral {
    /// A ``double(_:)``.
    public init(floatLiteral value: Double) { self = .double(value) }
}

extension PropertyListValue: ExpressibleByBooleanLiteral {
    /// A ``bool(_:)``.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
}

extension PropertyListValue: ExpressibleByArrayLiteral {
    /// An ``array(_:)``.
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
}

extension PropertyListValue: ExpressibleByDictionaryLiteral {
    /// A ``dictionary(_:)``; of repeated keys, the last one's value.
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(Dictionary(elements) { _, last in last })
    }
}
