import Foundation

// Helpers for property-list objects as they arrive from any storage: numbers as Int, Double, Bool,
// UInt64 or NSNumber depending on the platform and on whether the value came from disk, memory or a
// launch argument ("3", "YES"); container elements wrapped in `Optional<Any>` boxes by Foundation on
// Linux. Conversions to integers are exact (a value that does not fit reads as nil); to a real, they
// give the nearest `Double`. Nothing traps.

/// `object` as `T` when it holds exactly a `T`. Cheaper than `as? T` on `Any`, which tries bridging and
/// wrapping first; opening the existential compares the type, then casts between identical types. (An
/// `unsafeBitCast` here would save under 1 % of a read: not worth unsafe code.)
@inline(__always)
func exactValue<T>(_ object: Any, as type: T.Type) -> T? {
    func open<Boxed>(_ boxed: Boxed) -> T? {
        Boxed.self == T.self ? boxed as? T : nil
    }
    return open(object)
}

/// `object`, with an `NSNumber` replaced by the Swift `Bool`, `Int` or `Double` it holds.
///
/// `UserDefaults` gives every number as an `NSNumber` on Apple platforms (and a property list parsed
/// elsewhere may hold them on Linux), and an `NSNumber` casts to all three: `true` as the real 1.0, a
/// whole real as an integer, 1 as `true`. Swift's own values do not, and they are what `UserDefaults`
/// gives on Linux. The conversions read the Swift value, so each platform gives the same answers. An
/// `Optional` box (Foundation on Linux puts them around container elements) is looked through.
func nativeNumber(_ object: Any) -> Any {
    guard let object = unboxed(object) else { return object }
    guard type(of: object) is NSNumber.Type, let kind = PropertyListNumber(object) else { return object }
    switch kind {
    case .bool(let value): return value
    case .integer(let value): return value
    case .real(let value): return value
    }
}

/// The integer in `object`, if it holds one that `Integer` represents exactly.
@inline(__always)
func exactInteger<Integer: FixedWidthInteger>(_ object: Any) -> Integer? {
    switch nativeNumber(object) {
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

/// The number in `object` as a Double (the nearest one, for an integer beyond 2^53), reading integers,
/// floats and decimal text.
@inline(__always)
func exactDouble(_ object: Any) -> Double? {
    switch nativeNumber(object) {
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

/// Looks through the `Optional<Any>` boxes that Foundation on Linux puts around container elements.
protocol OptionalBox {
    var unboxed: Any? { get }
}

extension Optional: OptionalBox {
    var unboxed: Any? {
        guard case .some(let wrapped) = self else { return nil }
        if let inner = wrapped as? any OptionalBox { return inner.unboxed }
        return wrapped
    }
}

/// The element itself, with any `Optional` box around it removed; `nil` for a boxed `nil`.
@inline(__always)
func unboxed(_ element: Any) -> Any? {
    if let box = element as? any OptionalBox { return box.unboxed }
    return element
}

/// `object` with every `Optional` box removed, at every depth: the plain property list.
func plainPropertyList(_ object: Any) -> Any {
    switch unboxed(object) {
    case let array as [Any]: return array.compactMap { unboxed($0).map(plainPropertyList) }
    case let dictionary as [String: Any]:
        return dictionary.compactMapValues { unboxed($0).map(plainPropertyList) }
    case let value?: return value
    case nil: return object
    }
}

/// The property list that text in property-list syntax describes, or the object itself.
func parsingPropertyListText(_ object: Any) -> Any {
    guard let text = object as? String, let data = text.data(using: .utf8),
        let parsed = try? PropertyListSerialization.propertyList(from: data, format: nil)
    else { return object }
    return parsed
}

/// How two property-list objects are compared.
enum PropertyListEquality {
    /// As values: a number equals the same number of another kind (`1` and `1.0`: a default registered
    /// as one and read back as the other), strings compare as Swift compares them. For defaults.
    case value
    /// Bit for bit and kind by kind: `1`, `1.0`, `"1"` and `true` all differ, a NaN equals the same NaN,
    /// strings compare by their Unicode scalars (`"café"` composed and decomposed differ, as Foundation
    /// keeps them). What tells a change another process saved from no change.
    case exact
}

/// Whether two property-list objects are equal by `rule`, compared structurally (dictionary order does
/// not count).
func propertyListsEqual(_ first: Any?, _ second: Any?, by rule: PropertyListEquality = .value) -> Bool {
    if let first, let second, let same = sameScalar(first, second, rule) { return same }
    guard let first = first.flatMap(unboxed), let second = second.flatMap(unboxed) else {
        return first.flatMap(unboxed) == nil && second.flatMap(unboxed) == nil
    }
    switch (first, second) {
    case (let first as String, let second as String):
        return rule == .exact ? ExactText(first) == ExactText(second) : first == second
    case (let first as Data, let second as Data): return first == second
    case (let first as Date, let second as Date):
        guard rule == .exact else { return first == second }
        return first.timeIntervalSinceReferenceDate.bitPattern == second.timeIntervalSinceReferenceDate.bitPattern
    case (let first as [Any], let second as [Any]):
        return first.count == second.count && zip(first, second).allSatisfy { propertyListsEqual($0, $1, by: rule) }
    case (let first as [String: Any], let second as [String: Any]):
        return first.count == second.count
            && first.allSatisfy { key, value in second[key].map { propertyListsEqual(value, $0, by: rule) } ?? false }
    case (is String, _), (_, is String), (is Data, _), (_, is Data), (is Date, _), (_, is Date),
        (is [Any], _), (_, is [Any]), (is [String: Any], _), (_, is [String: Any]):
        return false
    default:
        return numbersEqual(first, second, rule)
    }
}

/// Two numbers (or Booleans) by `rule`.
private func numbersEqual(_ first: Any, _ second: Any, _ rule: PropertyListEquality) -> Bool {
    switch rule {
    case .exact:
        switch (PropertyListNumber(first), PropertyListNumber(second)) {
        case (.bool(let first)?, .bool(let second)?): return first == second
        case (.integer(let first)?, .integer(let second)?): return first == second
        case (.real(let first)?, .real(let second)?): return first.bitPattern == second.bitPattern
        default: return false
        }
    case .value:
        if let first = first as? Bool, let second = second as? Bool { return first == second }
        if let first: Int64 = exactInteger(first), let second: Int64 = exactInteger(second) { return first == second }
        if let first = exactDouble(first), let second = exactDouble(second) { return first == second }
        return false
    }
}

/// A number as a property list holds it: a Boolean, an integer or a real. Foundation's `UserDefaults`
/// on Linux gives Swift's own `Bool`, `Int` and `Double`; property lists parsed elsewhere, and every
/// `UserDefaults` on Apple platforms, give an `NSNumber`, which casts to all three, so its kind is
/// asked of it.
enum PropertyListNumber {
    case bool(Bool)
    case integer(Int)
    case real(Double)

    init?(_ object: Any) {
        if let value = exactValue(object, as: Bool.self) {
            self = .bool(value)
        } else if let value = exactValue(object, as: Int.self) {
            self = .integer(value)
        } else if let value = exactValue(object, as: Double.self) {
            self = .real(value)
        } else if let number = object as? NSNumber {
            // Booleans are the two shared instances on every platform; `objCType` tells reals ("d",
            // "f") from unsigned ("Q", …) and signed integers.
            if number === NSNumber(value: true) || number === NSNumber(value: false) {
                self = .bool(number.boolValue)
                return
            }
            let type = String(cString: number.objCType)
            if type == "d" || type == "f" {
                self = .real(number.doubleValue)
            } else if let value = ["Q", "L", "I", "S", "C"].contains(type)
                ? Int(exactly: number.uint64Value) : Int(exactly: number.int64Value)
            {
                self = .integer(value)
            } else {
                return nil
            }
        } else if let value = object as? Int64 {
            guard let value = Int(exactly: value) else { return nil }
            self = .integer(value)
        } else if let value = object as? UInt64 {
            guard let value = Int(exactly: value) else { return nil }
            self = .integer(value)
        } else if let value = object as? Float {
            self = .real(Double(value))
        } else {
            return nil
        }
    }
}

/// Two values of one of Swift's own types a suite's file is read into, compared by `rule`, told by their
/// type alone; nil for anything else. A look at a big suite compares every value it holds, and the
/// general comparison's casts (an `Optional` box, then each kind in turn) cost about a microsecond a
/// value, and a save compares them while it holds the suite's lock.
@inline(__always)
private func sameScalar(_ first: Any, _ second: Any, _ rule: PropertyListEquality) -> Bool? {
    let kind = type(of: first)
    guard kind == type(of: second) else { return nil }
    if kind == Int.self, let first = first as? Int, let second = second as? Int { return first == second }
    if kind == String.self, let first = first as? String, let second = second as? String {
        return rule == .exact ? ExactText(first) == ExactText(second) : first == second
    }
    if kind == Bool.self, let first = first as? Bool, let second = second as? Bool { return first == second }
    if kind == Double.self, let first = first as? Double, let second = second as? Double {
        return rule == .exact ? first.bitPattern == second.bitPattern : first == second
    }
    return nil
}

/// Whether `object` is a property list `UserDefaults` can hold and a suite's file can keep: strings,
/// numbers, dates, data, and arrays and dictionaries of them, nested at most
/// `PropertyListValue.maximumNesting` levels. A null or a set (which a file another tool wrote may hold)
/// is not: Foundation's `set` traps on them. Walked without recursion: a value that comes from the
/// cloud may be nested thousands of levels deep.
func isStorablePropertyList(_ object: Any) -> Bool {
    var pending: [(object: Any, depth: Int)] = [(object, 0)]
    while let (next, depth) = pending.popLast() {
        guard let object = unboxed(next) else { return false }
        switch object {
        case is String, is Data, is Date: continue
        case let array as [Any]:
            guard depth < PropertyListValue.maximumNesting else { return false }
            pending += array.lazy.map { ($0, depth + 1) }
        case let dictionary as [String: Any]:
            guard depth < PropertyListValue.maximumNesting else { return false }
            pending += dictionary.values.lazy.map { ($0, depth + 1) }
        case is NSNull: return false
        default: if PropertyListNumber(object) == nil { return false }
        }
    }
    return true
}
