import Foundation

/// The JSON a `Codable` type's decoding asks for, as the library's `JSONDecoder` reads it (dates as
/// seconds, data as base64 text, URLs as text): recorded in the app, at a key's first use, by running the
/// type's own `init(from:)` over a decoder that answers every request with a stand-in value and writes
/// the request down (`record(_:)`). The key manifest keeps it, and the `typed-defaults` command checks a
/// value against it (`problem(with:)`): JSON the app's key would not decode is refused, naming the field.
///
/// What decoding cannot show is left open, never guessed: fields after one whose type has no stand-in
/// value (an enum that is not `CaseIterable`) are not known (`object(_, open: true)`), and extra fields
/// are allowed, as `JSONDecoder` ignores them.
package indirect enum JSONShape: Sendable, Hashable {
    case string, number, integer, boolean
    /// One of these texts or integers (a `CaseIterable` raw-value enum), as JSON writes them.
    case oneOf([String])
    case array(JSONShape)
    /// An object with `String` keys, each value of one shape.
    case dictionary(JSONShape)
    /// An object with these fields (each required unless `optional`); `open`: more fields may be asked for.
    case object([String: Field], open: Bool)
    /// Anything (what decoding did not show).
    case any

    package struct Field: Sendable, Hashable {
        package var shape: JSONShape
        package var optional: Bool

        package init(shape: JSONShape, optional: Bool) {
            self.shape = shape
            self.optional = optional
        }
    }

    /// Nesting deeper than this is not followed (a type that holds itself): `.any` there.
    static let maximumDepth = 12

    /// The shape `type` asks for, or nil when it cannot be recorded or checks nothing. The shape is
    /// tested on what the recording decoded, encoded again: a type whose encoding differs from its
    /// decoding (custom keys one way) gives nil, so a check never refuses what the app writes.
    static func record(_ type: any Decodable.Type) -> JSONShape? {
        let recording = ShapeRecording()
        let decoded = try? recording.value(of: type, depth: 0)
        let shape = recording.shape
        if case .any = shape { return nil }
        guard let decoded, let encodable = decoded as? any Encodable,
            let text = encodedJSON(encodable),
            let object = try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed),
            shape.problem(with: object, at: "") == nil
        else { return nil }
        return shape
    }

    /// Why `object` (parsed JSON) would not decode as this shape, naming the path (`address.zip`), or nil.
    package func problem(with object: Any, at path: String) -> String? {
        let place = path.isEmpty ? "the value" : path
        switch self {
        case .any: return nil
        case .string:
            return object is String ? nil : "\(place) is \(Self.kind(of: object)), not text"
        case .boolean:
            return Self.isBoolean(object) ? nil : "\(place) is \(Self.kind(of: object)), not true or false"
        case .number:
            return Self.number(object) != nil ? nil : "\(place) is \(Self.kind(of: object)), not a number"
        case .integer:
            guard let number = Self.number(object), number.doubleValue.rounded() == number.doubleValue else {
                return "\(place) is \(Self.kind(of: object)), not an integer"
            }
            return nil
        case .oneOf(let cases):
            let text = (object as? String) ?? Self.number(object).map { "\($0.int64Value)" }
            guard let text, cases.contains(text) else {
                return "\(place) is \(Self.kind(of: object)), not one of " + cases.joined(separator: ", ")
            }
            return nil
        case .array(let element):
            guard let elements = object as? [Any] else { return "\(place) is \(Self.kind(of: object)), not an array" }
            for (index, item) in elements.enumerated() {
                if let problem = element.problem(with: item, at: "\(path)[\(index)]") { return problem }
            }
            return nil
        case .dictionary(let value):
            guard let entries = object as? [String: Any] else {
                return "\(place) is \(Self.kind(of: object)), not an object"
            }
            for name in entries.keys.sorted() {
                if let problem = value.problem(with: entries[name]!, at: Self.join(path, name)) { return problem }
            }
            return nil
        case .object(let fields, _):
            guard let entries = object as? [String: Any] else {
                return "\(place) is \(Self.kind(of: object)), not an object"
            }
            for name in fields.keys.sorted() {
                let field = fields[name]!
                guard let entry = entries[name], !(entry is NSNull) else {
                    if field.optional { continue }
                    return "\(Self.join(path, name)) is missing"
                }
                if let problem = field.shape.problem(with: entry, at: Self.join(path, name)) { return problem }
            }
            return nil
        }
    }

    /// The shape as the key manifest writes it: `{"kind": "object", "fields": {"name": {"shape": …,
    /// "optional": false}}, "open": false}`, `{"kind": "array", "element": …}`, `{"kind": "string"}`, ….
    var manifestObject: [String: Any] {
        switch self {
        case .string: ["kind": "string"]
        case .number: ["kind": "number"]
        case .integer: ["kind": "integer"]
        case .boolean: ["kind": "boolean"]
        case .any: ["kind": "any"]
        case .oneOf(let cases): ["kind": "one-of", "cases": cases]
        case .array(let element): ["kind": "array", "element": element.manifestObject]
        case .dictionary(let value): ["kind": "dictionary", "value": value.manifestObject]
        case .object(let fields, let open):
            [
                "kind": "object", "open": open,
                "fields": fields.mapValues { ["shape": $0.shape.manifestObject, "optional": $0.optional] },
            ]
        }
    }

    /// The shape a manifest's object describes; nil for anything else (an unknown kind, nesting past
    /// `maximumDepth`).
    init?(manifestObject object: Any, depth: Int = 0) {
        guard depth <= Self.maximumDepth, let object = object as? [String: Any], let kind = object["kind"] as? String
        else { return nil }
        func nested(_ name: String) -> JSONShape? {
            object[name].flatMap { JSONShape(manifestObject: $0, depth: depth + 1) }
        }
        switch kind {
        case "string": self = .string
        case "number": self = .number
        case "integer": self = .integer
        case "boolean": self = .boolean
        case "any": self = .any
        case "one-of":
            guard let cases = object["cases"] as? [String] else { return nil }
            self = .oneOf(cases)
        case "array":
            guard let element = nested("element") else { return nil }
            self = .array(element)
        case "dictionary":
            guard let value = nested("value") else { return nil }
            self = .dictionary(value)
        case "object":
            guard let entries = object["fields"] as? [String: Any], let open = object["open"] as? Bool else {
                return nil
            }
            var fields: [String: Field] = [:]
            for (name, entry) in entries {
                guard let entry = entry as? [String: Any], let optional = entry["optional"] as? Bool,
                    let shape = entry["shape"].flatMap({ JSONShape(manifestObject: $0, depth: depth + 1) })
                else { return nil }
                fields[name] = Field(shape: shape, optional: optional)
            }
            self = .object(fields, open: open)
        default: return nil
        }
    }

    /// The class Foundation gives JSON's Booleans (`__NSCFBoolean`), which other numbers never have.
    private static let booleanType = ObjectIdentifier(type(of: NSNumber(value: true)))

    private static func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : path + "." + name }

    /// JSON's `true` and `false`, which Foundation parses as a Boolean number.
    private static func isBoolean(_ object: Any) -> Bool {
        guard let number = object as? NSNumber else { return false }
        return ObjectIdentifier(type(of: number)) == booleanType
    }

    private static func number(_ object: Any) -> NSNumber? {
        guard let number = object as? NSNumber, !isBoolean(object) else { return nil }
        return number
    }

    private static func kind(of object: Any) -> String {
        switch object {
        case let text as String: "'\(text.count > 40 ? text.prefix(40) + "…" : text)'"
        case _ where isBoolean(object): "\(object as? Bool == true)"
        case let number as NSNumber: "the number \(number)"
        case is [Any]: "an array"
        case is [String: Any]: "an object"
        case is NSNull: "null"
        default: "a value"
        }
    }
}

// The types `ShapeRecording` stands a value in for, with what each decodes as.

extension String: ShapeStandInProviding { static var shapeStandIn: (value: Any, shape: JSONShape) { ("", .string) } }
extension Bool: ShapeStandInProviding { static var shapeStandIn: (value: Any, shape: JSONShape) { (false, .boolean) } }
extension Double: ShapeStandInProviding { static var shapeStandIn: (value: Any, shape: JSONShape) { (0.0, .number) } }
extension Float: ShapeStandInProviding {
    static var shapeStandIn: (value: Any, shape: JSONShape) { (Float(0), .number) }
}
extension Decimal: ShapeStandInProviding {
    static var shapeStandIn: (value: Any, shape: JSONShape) { (Decimal(0), .number) }
}
// `JSONDecoder`'s defaults: seconds since 2001, base64 text, a URL's text.
extension Date: ShapeStandInProviding {
    static var shapeStandIn: (value: Any, shape: JSONShape) { (Date(timeIntervalSinceReferenceDate: 0), .number) }
}
extension Data: ShapeStandInProviding { static var shapeStandIn: (value: Any, shape: JSONShape) { (Data(), .string) } }
extension URL: ShapeStandInProviding {
    static var shapeStandIn: (value: Any, shape: JSONShape) { (URL(string: "https://example.com")!, .string) }
}
// Every integer type: an integer.
extension ShapeStandInProviding where Self: FixedWidthInteger {
    static var shapeStandIn: (value: Any, shape: JSONShape) { (Self.zero, .integer) }
}
extension Int: ShapeStandInProviding {}
extension Int8: ShapeStandInProviding {}
extension Int16: ShapeStandInProviding {}
extension Int32: ShapeStandInProviding {}
extension Int64: ShapeStandInProviding {}
extension UInt: ShapeStandInProviding {}
extension UInt8: ShapeStandInProviding {}
extension UInt16: ShapeStandInProviding {}
extension UInt32: ShapeStandInProviding {}
extension UInt64: ShapeStandInProviding {}

// A dictionary with `String` keys asks for no key a recording can answer: its value's shape is recorded
// directly.
extension Dictionary: ShapeDictionaryProviding where Key == String, Value: Decodable {
    static func recordValueShape(depth: Int) -> JSONShape {
        let child = ShapeRecording()
        _ = try? child.value(of: Value.self, depth: depth + 1)
        return child.shape
    }
    static var emptyValue: Any { [String: Value]() }
}
