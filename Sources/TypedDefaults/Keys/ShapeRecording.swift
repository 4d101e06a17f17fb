import Foundation

/// Runs a `Decodable` type's `init(from:)` over a decoder that gives a stand-in value for every request
/// and writes the request down: the JSON shape the type's decoding asks for (`JSONShape.record`).
final class ShapeRecording {
    /// What the value decoded so far asked for.
    private(set) var shape = JSONShape.any

    /// The shape's object fields, while a keyed container is asked.
    fileprivate var fields: [String: JSONShape.Field] = [:]
    fileprivate var isObject = false
    /// A single value or an element may be null (an optional's decoding asked): its shape is not checked.
    fileprivate var mayBeNull = false
    /// Decoding stopped before the end (a field's type had no stand-in): fields after it are not known.
    fileprivate var open = false

    /// Why a recording stops: a type with no stand-in, or nesting past `JSONShape.maximumDepth`.
    struct Stop: Error {}

    /// A stand-in value of `type`, recording its shape into `shape`.
    func value(of type: any Decodable.Type, depth: Int) throws -> Any {
        if let standIn = type as? any ShapeStandInProviding.Type {
            shape = standIn.shapeStandIn.shape
            return standIn.shapeStandIn.value
        }
        if let dictionary = type as? any ShapeDictionaryProviding.Type {
            shape = .dictionary(dictionary.recordValueShape(depth: depth))
            return dictionary.emptyValue
        }
        if let cases = type as? any (CaseIterable & RawRepresentable).Type, let shape = Self.choices(of: cases) {
            self.shape = shape.shape
            guard let first = shape.first else { throw Stop() }
            return first
        }
        guard depth < JSONShape.maximumDepth else { throw Stop() }
        do {
            let value = try type.init(from: RecordingDecoder(recording: self, depth: depth))
            finish()
            return value
        } catch {
            open = true
            finish()
            throw Stop()
        }
    }

    /// The raw values of a `CaseIterable` raw-value enum as JSON writes them, and its first case.
    private static func choices<Cases: CaseIterable & RawRepresentable>(of type: Cases.Type)
        -> (shape: JSONShape, first: Any?)?
    {
        var texts: [String] = []
        for value in Cases.allCases {
            switch value.rawValue {
            case let text as String: texts.append(text)
            case let number as any BinaryInteger: texts.append("\(number)")
            default: return nil
            }
        }
        return (.oneOf(texts), Cases.allCases.first)
    }

    private func finish() {
        if isObject { shape = .object(fields, open: open) }
    }

    fileprivate func child(_ type: any Decodable.Type, depth: Int) throws -> (value: Any, shape: JSONShape) {
        let child = ShapeRecording()
        do {
            let value = try child.value(of: type, depth: depth + 1)
            return (value, child.shape)
        } catch {
            // What the child asked for before it stopped is kept; this level stops here too.
            throw Partial(shape: child.shape)
        }
    }

    /// A child that stopped, with what it asked for.
    fileprivate struct Partial: Error {
        let shape: JSONShape
    }

    /// A stand-in of `type` for a container's request, its shape handed to `record` (also when the child
    /// stopped, with what it asked for: then this level stops too).
    fileprivate func decode<T: Decodable>(_ type: T.Type, depth: Int, record: (JSONShape) -> Void) throws -> T {
        do {
            let (value, shape) = try child(type, depth: depth)
            record(shape)
            guard let typed = value as? T else { throw Stop() }
            return typed
        } catch let partial as Partial {
            record(partial.shape)
            throw Stop()
        }
    }
}

/// The stand-in protocols, visible to `ShapeRecording` (the conformances are in JSONShape.swift).
protocol ShapeStandInProviding {
    static var shapeStandIn: (value: Any, shape: JSONShape) { get }
}

protocol ShapeDictionaryProviding {
    static func recordValueShape(depth: Int) -> JSONShape
    static var emptyValue: Any { get }
}

private struct RecordingDecoder: Decoder {
    let recording: ShapeRecording
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        recording.isObject = true
        return KeyedDecodingContainer(RecordingKeyed<Key>(recording: recording, depth: depth))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        RecordingUnkeyed(recording: recording, depth: depth)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        RecordingSingle(recording: recording, depth: depth)
    }
}

private struct RecordingKeyed<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let recording: ShapeRecording
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    init(recording: ShapeRecording, depth: Int) {
        self.recording = recording
        self.depth = depth
    }

    func contains(_ key: Key) -> Bool {
        markOptional(key)
        return true
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        markOptional(key)
        return false
    }

    private func markOptional(_ key: Key) {
        let name = key.stringValue
        recording.fields[name, default: .init(shape: .any, optional: true)].optional = true
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try field(type, key, optional: recording.fields[key.stringValue]?.optional ?? false)
    }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try field(type, key, optional: true)
    }

    private func field<T: Decodable>(_ type: T.Type, _ key: Key, optional: Bool) throws -> T {
        try recording.decode(type, depth: depth) {
            recording.fields[key.stringValue] = .init(shape: $0, optional: optional)
        }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        // Nested containers are a type's own layout: not followed.
        recording.fields[key.stringValue] = .init(shape: .any, optional: false)
        throw ShapeRecording.Stop()
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        recording.fields[key.stringValue] = .init(shape: .array(.any), optional: false)
        throw ShapeRecording.Stop()
    }

    func superDecoder() throws -> any Decoder { throw ShapeRecording.Stop() }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw ShapeRecording.Stop() }
}

private struct RecordingUnkeyed: UnkeyedDecodingContainer {
    let recording: ShapeRecording
    let depth: Int
    var codingPath: [any CodingKey] { [] }
    var count: Int? { nil }
    /// One element is asked for: its shape is every element's.
    private(set) var currentIndex = 0
    var isAtEnd: Bool { currentIndex > 0 }

    init(recording: ShapeRecording, depth: Int) {
        self.recording = recording
        self.depth = depth
    }

    /// An element that may be null: checked as anything.
    mutating func decodeNil() throws -> Bool {
        recording.mayBeNull = true
        return false
    }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        currentIndex += 1
        return try recording.decode(type, depth: depth) { recording.elementShape($0) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        throw ShapeRecording.Stop()
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer { throw ShapeRecording.Stop() }
    mutating func superDecoder() throws -> any Decoder { throw ShapeRecording.Stop() }
}

private struct RecordingSingle: SingleValueDecodingContainer {
    let recording: ShapeRecording
    let depth: Int
    var codingPath: [any CodingKey] { [] }

    func decodeNil() -> Bool {
        recording.mayBeNull = true
        return false
    }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try recording.decode(type, depth: depth) { recording.singleShape($0) }
    }
}

extension ShapeRecording {
    /// An element that may be null is checked as anything.
    fileprivate func elementShape(_ element: JSONShape) { shape = .array(mayBeNull ? .any : element) }
    fileprivate func singleShape(_ value: JSONShape) { shape = mayBeNull ? .any : value }
}
