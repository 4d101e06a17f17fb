import Foundation

/// The form a key's values are stored in, as far as the library's own conversions tell it from the key's
/// value type: what the `typed-defaults` command checks a write against (the suite's key manifest,
/// KeyManifest.swift), so that a value the app's key would not read as itself is refused.
///
/// A form says which stored objects the key reads, by asking the library's own conversion of the type
/// (`Int8(userDefaultsObject:)` for an `Int8` key): a check agrees with the app's read. A type whose
/// conversion is not the library's (a conformance of the app's own, an archived object, a range) is
/// `.unchecked`: the command writes anything there, as `defaults` does.
package indirect enum StoredForm: Sendable, Hashable {
    /// An integer type, by its name (`Int`, `UInt8`, …): in its range, as the type reads.
    case integer(String)
    /// A floating-point type, by its name (`Double`, `Float`, `CGFloat`, `Decimal`).
    case real(String)
    case boolean, string, date, data, url, uuid
    /// An array (or a set) of elements of one form.
    case array(StoredForm)
    /// A dictionary of `String` keys and values of one form.
    case dictionary(StoredForm)
    /// A value of the wrapped form, or none.
    case optional(StoredForm)
    /// A `CaseIterable` enum: a raw value of the raw form, one of these (as text).
    case choice(StoredForm, [String])
    /// A raw-value enum that is not `CaseIterable`: a raw value of the raw form, but which raw values are
    /// its cases is not known here (the command refuses to write one unless `--force`).
    case rawValue(StoredForm)
    /// A `Codable` value stored as JSON text (the library's default for `Codable`).
    case jsonText
    /// A `Codable` value stored as JSON text, of the shape its decoding asks for (`JSONShape`).
    case json(JSONShape)
    /// A `UserDefaultJSONData` value: JSON as data.
    case jsonData
    /// A form the library cannot check.
    case unchecked

    /// The form `type`'s values are stored in.
    package static func of(_ type: Any.Type) -> StoredForm {
        if let described = type as? any StoredFormDescribing.Type { return described.storedForm }
        // An archived object has a conversion of its own, Codable or not.
        if type is NSObject.Type { return .unchecked }
        if type is any UserDefaultJSONData.Type { return .jsonData }
        if let raw = type as? any (RawRepresentable & UserDefaultConvertible).Type { return rawForm(raw) }
        if let codable = type as? any (Codable & UserDefaultConvertible).Type {
            // The type's own decoding runs here: code that is not the library's.
            return UserCode.runUnmarked { JSONShape.record(codable) }.map(StoredForm.json) ?? .jsonText
        }
        return .unchecked
    }

    private static func rawForm<Value: RawRepresentable & UserDefaultConvertible>(_ type: Value.Type) -> StoredForm {
        let raw = of(Value.RawValue.self)
        guard let cases = type as? any CaseIterable.Type else { return raw == .unchecked ? raw : .rawValue(raw) }
        return choice(raw, of: cases, as: type)
    }

    private static func choice<Cases: CaseIterable, Value: RawRepresentable>(
        _ raw: StoredForm, of cases: Cases.Type, as type: Value.Type
    ) -> StoredForm {
        var texts: [String] = []
        for value in Cases.allCases {
            guard let rawValue = (value as? Value)?.rawValue, let text = raw.text(of: rawValue) else { return raw }
            texts.append(text)
        }
        return .choice(raw, texts)
    }

    /// Whether a value of this form may be a raw value that is no case of its enum, which nothing here
    /// can tell (`rawValue`, at any depth).
    package var hasUnlistedCases: Bool {
        switch self {
        case .rawValue: true
        case .optional(let wrapped), .array(let wrapped), .dictionary(let wrapped): wrapped.hasUnlistedCases
        default: false
        }
    }

    /// Whether a key of this form reads `object` as a value (not its default).
    package func reads(_ object: Any) -> Bool {
        problem(with: object) == nil
    }

    /// Why a key of this form would not read `object` (and read its default instead), or nil when it
    /// reads it.
    package func problem(with object: Any) -> String? {
        switch self {
        case .unchecked: return nil
        case .optional(let wrapped), .rawValue(let wrapped): return wrapped.problem(with: object)
        case .integer(let type):
            guard !Self.readsInteger(object, as: type) else { return nil }
            return "\(Self.shown(object)) is not an integer" + (type == "Int" ? "" : " \(type) holds")
        case .real(let type):
            let reads: Bool
            switch type {
            case "Float": reads = Float(userDefaultsObject: object) != nil
            case "Decimal": reads = Decimal(userDefaultsObject: object) != nil
            default: reads = Double(userDefaultsObject: object) != nil
            }
            return reads ? nil : "\(Self.shown(object)) is not a number"
        case .boolean:
            return Bool(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not a Boolean"
        case .string: return String(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not text"
        case .date: return Date(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not a date"
        case .data: return Data(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not data"
        case .url: return URL(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not a URL"
        case .uuid: return UUID(userDefaultsObject: object) != nil ? nil : "\(Self.shown(object)) is not a UUID"
        case .jsonText, .jsonData, .json:
            let bytes = (object as? String).map { Data($0.utf8) } ?? object as? Data
            guard let bytes, let parsed = try? JSONSerialization.jsonObject(with: bytes, options: .fragmentsAllowed)
            else { return "\(Self.shown(object)) is not JSON" }
            guard case .json(let shape) = self, let problem = shape.problem(with: parsed, at: "") else { return nil }
            return "\(problem), so it does not decode"
        case .choice(let raw, let cases):
            if let problem = raw.problem(with: object) { return problem }
            guard let text = raw.text(of: object), cases.contains(text) else {
                return "\(Self.shown(object)) is not one of " + cases.joined(separator: ", ")
            }
            return nil
        case .array(let element):
            guard let elements = object as? [Any] else { return "\(Self.shown(object)) is not an array" }
            for (index, item) in elements.enumerated() {
                if let problem = element.problem(with: item) { return "element \(index): \(problem)" }
            }
            return nil
        case .dictionary(let value):
            guard let entries = object as? [String: Any] else { return "\(Self.shown(object)) is not a dictionary" }
            for name in entries.keys.sorted() {
                if let problem = value.problem(with: entries[name]!) { return "entry \(name): \(problem)" }
            }
            return nil
        }
    }

    private static func readsInteger(_ object: Any, as type: String) -> Bool {
        switch type {
        case "Int8": Int8(userDefaultsObject: object) != nil
        case "Int16": Int16(userDefaultsObject: object) != nil
        case "Int32": Int32(userDefaultsObject: object) != nil
        case "Int64": Int64(userDefaultsObject: object) != nil
        case "UInt": UInt(userDefaultsObject: object) != nil
        case "UInt8": UInt8(userDefaultsObject: object) != nil
        case "UInt16": UInt16(userDefaultsObject: object) != nil
        case "UInt32": UInt32(userDefaultsObject: object) != nil
        case "UInt64": UInt64(userDefaultsObject: object) != nil
        default: Int(userDefaultsObject: object) != nil
        }
    }

    /// What a key of this (scalar) form reads from `object`, as text: how a `.choice` names its cases.
    func text(of object: Any) -> String? {
        switch self {
        case .string: return String(userDefaultsObject: object)
        case .integer:
            if let value = Int64(userDefaultsObject: object) { return String(value) }
            return UInt64(userDefaultsObject: object).map { String($0) }
        default: return nil
        }
    }

    /// A stored object as a message shows it: text quoted, else its kind.
    static func shown(_ object: Any) -> String {
        switch PropertyListValue(userDefaultsObject: object) {
        case .string(let text)?: "'\(text.count > 60 ? text.prefix(60) + "…" : text)'"
        case .int(let number)?: "the integer \(number)"
        case .double(let number)?: "the number \(number)"
        case .bool(let flag)?: "the Boolean \(flag)"
        case .date?: "a date"
        case .data?: "data"
        case .array?: "an array"
        case .dictionary?: "a dictionary"
        case nil: "a value"
        }
    }

    /// The form's name, as `read-type` and the manifest's readers show it.
    package var summary: String {
        switch self {
        case .integer(let type): "integer (\(type))"
        case .real(let type): "real (\(type))"
        case .boolean: "boolean"
        case .string: "string"
        case .date: "date"
        case .data: "data"
        case .url: "URL (string)"
        case .uuid: "UUID (string)"
        case .array(let element): "array of \(element.summary)"
        case .dictionary(let value): "dictionary of \(value.summary)"
        case .optional(let wrapped): "\(wrapped.summary), or none"
        case .choice(let raw, let cases): "\(raw.summary): one of \(cases.joined(separator: ", "))"
        case .rawValue(let raw): "\(raw.summary): a case's raw value (its cases are not listed)"
        case .jsonText: "JSON text (string)"
        case .json: "JSON text (string) of the type's fields"
        case .jsonData: "JSON data"
        case .unchecked: "not checked"
        }
    }
}

/// A value type of the library's whose stored form it knows.
protocol StoredFormDescribing {
    static var storedForm: StoredForm { get }
}

extension Int: StoredFormDescribing { static var storedForm: StoredForm { .integer("Int") } }
extension Int8: StoredFormDescribing { static var storedForm: StoredForm { .integer("Int8") } }
extension Int16: StoredFormDescribing { static var storedForm: StoredForm { .integer("Int16") } }
extension Int32: StoredFormDescribing { static var storedForm: StoredForm { .integer("Int32") } }
extension Int64: StoredFormDescribing { static var storedForm: StoredForm { .integer("Int64") } }
extension UInt: StoredFormDescribing { static var storedForm: StoredForm { .integer("UInt") } }
extension UInt8: StoredFormDescribing { static var storedForm: StoredForm { .integer("UInt8") } }
extension UInt16: StoredFormDescribing { static var storedForm: StoredForm { .integer("UInt16") } }
extension UInt32: StoredFormDescribing { static var storedForm: StoredForm { .integer("UInt32") } }
extension UInt64: StoredFormDescribing { static var storedForm: StoredForm { .integer("UInt64") } }
extension Double: StoredFormDescribing { static var storedForm: StoredForm { .real("Double") } }
extension Float: StoredFormDescribing { static var storedForm: StoredForm { .real("Float") } }
extension CGFloat: StoredFormDescribing { static var storedForm: StoredForm { .real("CGFloat") } }
extension Decimal: StoredFormDescribing { static var storedForm: StoredForm { .real("Decimal") } }
extension Bool: StoredFormDescribing { static var storedForm: StoredForm { .boolean } }
extension String: StoredFormDescribing { static var storedForm: StoredForm { .string } }
extension Date: StoredFormDescribing { static var storedForm: StoredForm { .date } }
extension Data: StoredFormDescribing { static var storedForm: StoredForm { .data } }
extension URL: StoredFormDescribing { static var storedForm: StoredForm { .url } }
extension UUID: StoredFormDescribing { static var storedForm: StoredForm { .uuid } }
extension PropertyListValue: StoredFormDescribing { static var storedForm: StoredForm { .unchecked } }
extension Range: StoredFormDescribing { static var storedForm: StoredForm { .unchecked } }
extension ClosedRange: StoredFormDescribing { static var storedForm: StoredForm { .unchecked } }

extension Optional: StoredFormDescribing {
    static var storedForm: StoredForm { .optional(.of(Wrapped.self)) }
}

extension Array: StoredFormDescribing {
    static var storedForm: StoredForm { .array(.of(Element.self)) }
}

extension Set: StoredFormDescribing {
    static var storedForm: StoredForm { .array(.of(Element.self)) }
}

extension Dictionary: StoredFormDescribing {
    // Keys other than `String` are stored as text the key type parses: not checked.
    static var storedForm: StoredForm { Key.self == String.self ? .dictionary(.of(Value.self)) : .unchecked }
}
