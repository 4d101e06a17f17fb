import Foundation
import Testing
import TypedDefaults

// MARK: Random property lists

/// A small seeded generator, so a failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random property-list values, biased towards the ones that trip conversions: boundaries, text that
/// looks like numbers, dates, URLs, JSON and property-list syntax, and wrong elements deep inside.
struct PropertyListGenerator {
    var random: SplitMix64

    static let texts = [
        "", "YES", "no", "true", "0", "1", "3", "-1", "2.5", "1e400", "nan", "inf", "300", "18446744073709551616",
        "(a, b)", "{a = 1; b = (2);}", "(", "{\"name\":\"x\",\"age\":3}", "{\"name\":1}", "[1,2]", "null",
        "https://example.com/a?b=c#d", "/tmp/x y", "~/z", "mailto:a@b.c", "not a url", "::",
        "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "light", "dark", "system", "✓ ünïcødé", String(repeating: "x", count: 300),
    ]
    static var numbers: [Any] { numberValues }
    private static let numberValues: [any Sendable] = [
        0, 1, -1, 2, 127, 128, 255, 256, 300, -129, 32767, 65536, Int.max, Int.min, Int64.max, UInt64.max,
        0.0, -0.0, 0.5, 1.0, 2.5, -2.5, 1e19, 1e300, -1e300, Double.nan, Double.infinity, -Double.infinity,
        Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, Float(1.5), Float.nan, true, false,
    ]

    mutating func value(depth: Int = 0) -> Any {
        let choice = Int(random.next() % (depth < 3 ? 9 : 6))
        switch choice {
        case 0: return Self.numbers.randomElement(using: &random)!
        case 1: return Int(truncatingIfNeeded: random.next())
        case 2: return Double(bitPattern: random.next())
        case 3: return Self.texts.randomElement(using: &random)!
        case 4: return Data((0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 5:
            return Date(timeIntervalSince1970: Double(Int64(truncatingIfNeeded: random.next()) % 10_000_000_000) / 1000)
        case 6, 7:
            return (0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) }
        default:
            var dictionary: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 4) {
                dictionary[Self.texts.randomElement(using: &random)!] = value(depth: depth + 1)
            }
            return dictionary
        }
    }
}

/// Converts `object` to `Value`; a value that comes out must survive its own round trip unchanged
/// (the faithful value), else the conversion gave something it cannot store again.
func checkFaithful<Value: UserDefaultConvertible & Equatable>(_ type: Value.Type, _ object: Any) -> String? {
    guard let value = Value(userDefaultsObject: object) else { return nil }
    guard let stored = value.userDefaultsObject, let again = Value(userDefaultsObject: stored) else {
        return "\(Value.self) read \(object) as \(value) but cannot store it again"
    }
    let same = again == value || equivalentPropertyLists(stored, again.userDefaultsObject as Any)
    return same ? nil : "\(Value.self) read \(object) as \(value), which stores back as \(again)"
}

/// Property-list equality in which NaN equals NaN (a Double NaN is a faithful value, yet never `==`).
func equivalentPropertyLists(_ first: Any, _ second: Any) -> Bool {
    switch (first, second) {
    case (let first as [Any], let second as [Any]):
        return first.count == second.count && zip(first, second).allSatisfy(equivalentPropertyLists)
    case (let first as [String: Any], let second as [String: Any]):
        return first.count == second.count
            && first.allSatisfy { key, value in second[key].map { equivalentPropertyLists(value, $0) } ?? false }
    case (let first as Double, let second as Double):
        return first == second || (first.isNaN && second.isNaN)
    case (let first as Float, let second as Float):
        return first == second || (first.isNaN && second.isNaN)
    default:
        return "\(first)" == "\(second)"
    }
}

/// A binary property list made by hand from its objects' bytes (object 0 the top one; references and
/// offsets of one byte), for files and archives no writer would make.
func handMadeBinaryPropertyList(_ objects: [[UInt8]]) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for object in objects {
        offsets.append(UInt8(bytes.count))
        bytes += object
    }
    let tableOffset = bytes.count
    bytes += offsets
    func bigEndian(_ value: Int) -> [UInt8] {
        (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }
    bytes += [0, 0, 0, 0, 0, 0, 1, 1] + bigEndian(objects.count) + bigEndian(0) + bigEndian(tableOffset)
    return Data(bytes)
}

/// A binary property list with 4-byte offsets and references of `referenceSize` bytes, from its objects
/// in order (object 0 the top one), for files that share, cycle or nest as no writer would.
func binaryPropertyList(_ objects: [[UInt8]], referenceSize: UInt8 = 2) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for object in objects {
        offsets += bigEndianBytes(bytes.count, 4)
        bytes += object
    }
    let tableOffset = bytes.count
    bytes += offsets
    bytes += [0, 0, 0, 0, 0, 0, 4, referenceSize]
    bytes += bigEndianBytes(objects.count, 8) + bigEndianBytes(0, 8) + bigEndianBytes(tableOffset, 8)
    return Data(bytes)
}

/// `value`'s lowest `size` bytes, most significant first.
func bigEndianBytes(_ value: Int, _ size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
}
