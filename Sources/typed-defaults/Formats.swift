import Foundation
import TypedDefaults

// How values look on the command line: Apple's `defaults` text (old-style property lists), JSON for
// scripts, and the texts `write` takes.

enum TextFormats {
    // MARK: Old-style property-list text, as `defaults read` prints

    /// `value` as old-style property-list text, nested levels indented by four spaces.
    static func oldStyle(_ value: PropertyListValue, indent: String = "") -> String {
        let inner = indent + "    "
        switch value {
        case .string(let text): return quoted(text)
        case .int(let number): return String(number)
        case .double(let number):
            return number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : "\(number)"
        case .bool(let flag): return flag ? "1" : "0"
        case .date(let date): return "\"" + (oldStyleDate(date) ?? outOfCalendar(date)) + "\""
        case .data(let data): return "<" + hex(data) + ">"
        case .array(let elements):
            guard !elements.isEmpty else { return "(\n\(indent))" }
            return "(\n" + elements.map { inner + oldStyle($0, indent: inner) }.joined(separator: ",\n")
                + "\n\(indent))"
        case .dictionary(let entries):
            let lines = entries.keys.sorted().map {
                inner + quoted($0) + " = " + oldStyle(entries[$0]!, indent: inner) + ";\n"
            }
            return "{\n" + lines.joined() + "\(indent)}"
        }
    }

    /// One value read alone, as `defaults read SUITE NAME` prints it: text and a date bare, anything else
    /// as old-style text. Text holding a control character other than a newline or a tab is quoted and
    /// escaped, as the listing prints it: never raw to a terminal.
    static func alone(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let text):
            let raw = text.unicodeScalars.allSatisfy { $0 == "\n" || $0 == "\t" || !isControl($0) }
            return raw ? text : quotedEscaping(text, otherControls: false)
        case .date(let date): return oldStyleDate(date) ?? outOfCalendar(date)
        default: return oldStyle(value)
        }
    }

    /// A string as old-style text: bare when it is letters, digits and `_$./:-` only, else quoted.
    static func quoted(_ text: String) -> String {
        let bare =
            !text.isEmpty
            && text.unicodeScalars.allSatisfy {
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "_$./:-".unicodeScalars.contains($0))
            }
        return bare ? text : quotedEscaping(text, otherControls: false)
    }

    /// `text` in double quotes, with `"`, `\`, newline, return and tab escaped by a backslash, as both
    /// formats write them; the other control characters (DEL and C1 too) as `\u00XX` (JSON's, with
    /// `otherControls`) or `\U00XX` (old-style text's): never raw, where a terminal would act on them (erase lines, ring
    /// the bell, take a C1 control for the start of a sequence).
    private static func quotedEscaping(_ text: String, otherControls: Bool) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            case "\r": escaped += "\\r"
            case _ where isControl(scalar):
                escaped += String(format: otherControls ? "\\u%04x" : "\\U%04x", scalar.value)
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// A C0 or C1 control character, or DEL.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    // MARK: JSON, for scripts

    /// `value` as JSON: dates as ISO 8601 text (to the microsecond, in UTC), data as base64, keys sorted.
    static func json(_ value: PropertyListValue, indent: String = "") -> String {
        let inner = indent + "  "
        switch value {
        case .string(let text): return jsonString(text)
        case .int(let number): return String(number)
        case .double(let number): return number.isFinite ? "\(number)" : jsonString("\(number)")
        case .bool(let flag): return flag ? "true" : "false"
        case .date(let date): return jsonString(isoDate(date) ?? outOfCalendar(date))
        case .data(let data): return jsonString(data.base64EncodedString())
        case .array(let elements):
            guard !elements.isEmpty else { return "[]" }
            return "[\n" + elements.map { inner + json($0, indent: inner) }.joined(separator: ",\n") + "\n\(indent)]"
        case .dictionary(let entries):
            guard !entries.isEmpty else { return "{}" }
            return "{\n"
                + entries.keys.sorted().map { inner + jsonString($0) + ": " + json(entries[$0]!, indent: inner) }
                .joined(separator: ",\n") + "\n\(indent)}"
        }
    }

    static func jsonString(_ text: String) -> String {
        quotedEscaping(text, otherControls: true)
    }

    // MARK: Dates and bytes

    private static let utc = TimeZone(identifier: "UTC")!

    /// The dates the calendar formats are those within 100,000 years of 1970; others (the infinite or
    /// NaN seconds an app may store as a "never" sentinel, or a far-off date) are printed by
    /// `outOfCalendar`, never converted to an integer (which traps).
    private static let calendarSpan: TimeInterval = 100_000 * 366 * 86_400

    private static func components(_ date: Date) -> (DateComponents, microseconds: Int)? {
        guard abs(date.timeIntervalSince1970) < calendarSpan else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        let seconds = date.timeIntervalSince1970.rounded(.down)
        let microseconds = Int(((date.timeIntervalSince1970 - seconds) * 1_000_000).rounded())
        let whole = Date(timeIntervalSince1970: seconds + (microseconds == 1_000_000 ? 1 : 0))
        return (
            calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: whole),
            microseconds % 1_000_000
        )
    }

    /// A date the calendar does not format: its seconds since 2001-01-01 00:00:00 UTC, as a date's
    /// value is kept (`inf`, `-inf`, `nan` for those).
    static func outOfCalendar(_ date: Date) -> String {
        "\(date.timeIntervalSinceReferenceDate) seconds since 2001-01-01 00:00:00 +0000"
    }

    /// `2026-11-26T09:30:00.250000Z`, or without the fraction when it is zero; nil outside the calendar.
    static func isoDate(_ date: Date) -> String? {
        guard let (parts, microseconds) = components(date) else { return nil }
        let base = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!,
            parts.second!)
        return base + (microseconds == 0 ? "" : String(format: ".%06d", microseconds)) + "Z"
    }

    /// `2026-11-26 09:30:00 +0000`, as `defaults read` prints a date; nil outside the calendar.
    static func oldStyleDate(_ date: Date) -> String? {
        guard let (parts, _) = components(date) else { return nil }
        return String(
            format: "%04d-%02d-%02d %02d:%02d:%02d +0000", parts.year!, parts.month!, parts.day!, parts.hour!,
            parts.minute!, parts.second!)
    }

    private static let datePattern = try! NSRegularExpression(
        pattern: #"^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})? ?(Z|([+-])(\d{2}):?(\d{2}))$"#)

    /// A date written as ISO 8601 (`2026-11-26T09:30:00Z`, with a fraction of a second and an offset
    /// optional) or as `defaults` prints one (`2026-11-26 09:30:00 +0000`).
    static func date(from text: String) -> Date? {
        let whole = NSRange(text.startIndex..., in: text)
        guard let match = datePattern.firstMatch(in: text, range: whole) else { return nil }
        func group(_ index: Int) -> String? {
            Range(match.range(at: index), in: text).map { String(text[$0]) }
        }
        guard let year = group(1).flatMap(Int.init), let month = group(2).flatMap(Int.init),
            let day = group(3).flatMap(Int.init), let hour = group(4).flatMap(Int.init),
            let minute = group(5).flatMap(Int.init), let second = group(6).flatMap(Int.init),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60
        else { return nil }
        let fraction = group(7).flatMap { Double("0" + $0) } ?? 0
        var offset = 0
        if let sign = group(9), let hours = group(10).flatMap(Int.init), let minutes = group(11).flatMap(Int.init) {
            guard hours < 24, minutes < 60 else { return nil }
            offset = (sign == "-" ? -1 : 1) * (hours * 3600 + minutes * 60)
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = utc
        guard
            let date = calendar.date(
                from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)),
            calendar.component(.day, from: date) == day
        else { return nil }
        return date.addingTimeInterval(fraction - Double(offset))
    }

    static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }

    /// Bytes from hexadecimal text (`0a1B`, an even number of digits, `0x` allowed in front).
    static func data(fromHex text: String) -> Data? {
        let digits = Array((text.hasPrefix("0x") ? String(text.dropFirst(2)) : text).utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = hexDigit(digits[index]), let low = hexDigit(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
        }
        return Data(bytes)
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// JSON text read as a property-list value: `-json '{"a": [1, 2.5, true, "x"]}'`. A whole number with
/// no fraction or exponent is an integer, any other a real; JSON's `null` has no property-list form.
/// Nesting is limited as the library limits it, and the text is read without recursion limits of
/// Foundation's.
struct JSONValue {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let bytes: [UInt8]
    private var index = 0

    static func parse(_ text: String) throws -> PropertyListValue {
        var parser = JSONValue(bytes: Array(text.utf8))
        let value = try parser.value(depth: 0)
        parser.skipSpace()
        guard parser.index == parser.bytes.count else { throw parser.failure("text after the value") }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what) at byte \(index + 1)")
    }

    private mutating func skipSpace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(depth: Int) throws -> PropertyListValue {
        guard depth <= PropertyListValue.maximumNesting else {
            throw failure("nesting deeper than \(PropertyListValue.maximumNesting) levels")
        }
        skipSpace()
        guard index < bytes.count else { throw failure("a value is missing") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            var entries: [String: PropertyListValue] = [:]
            try elements(closedBy: "}") { parser in
                parser.skipSpace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "\"") else {
                    throw parser.failure("a key is missing")
                }
                let key = try parser.string()
                parser.skipSpace()
                guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: ":") else {
                    throw parser.failure("':' is missing")
                }
                parser.index += 1
                entries[key] = try parser.value(depth: depth + 1)
            }
            return .dictionary(entries)
        case UInt8(ascii: "["):
            var elements: [PropertyListValue] = []
            try self.elements(closedBy: "]") { parser in elements.append(try parser.value(depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            throw failure("null has no property-list form")
        default:
            return try number()
        }
    }

    /// Reads the elements of an object or array whose opening bracket is at `index`, each with
    /// `element`, separated by commas, up to `close`.
    private mutating func elements(closedBy close: Unicode.Scalar, _ element: (inout JSONValue) throws -> Void) throws {
        let closing = UInt8(close.value)
        index += 1
        skipSpace()
        if index < bytes.count, bytes[index] == closing {
            index += 1
            return
        }
        while true {
            try element(&self)
            skipSpace()
            guard index < bytes.count else { throw failure("'\(close)' is missing") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == closing else { throw failure("',' or '\(close)' is missing") }
            index += 1
            return
        }
    }

    private mutating func literal(_ word: String) throws {
        let expected = Array(word.utf8)
        guard bytes[index...].starts(with: expected) else { throw failure("not JSON") }
        index += expected.count
    }

    private mutating func number() throws -> PropertyListValue {
        let start = index
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty else { throw failure("not JSON") }
        let isWhole = !text.contains(where: { ".eE".contains($0) })
        if isWhole, let integer = Int(text) { return .int(integer) }
        guard let real = Double(text), real.isFinite else { throw failure("'\(text)' is not a number") }
        return .double(real)
    }

    private mutating func string() throws -> String {
        index += 1  // the opening quote
        var scalars = String.UnicodeScalarView()
        var pending: [UInt8] = []
        func flush() {
            if !pending.isEmpty {
                scalars.append(contentsOf: String(decoding: pending, as: UTF8.self).unicodeScalars)
                pending = []
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                flush()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush()
                guard index < bytes.count else { throw failure("an escape is cut off") }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append("\"")
                case UInt8(ascii: "\\"): scalars.append("\\")
                case UInt8(ascii: "/"): scalars.append("/")
                case UInt8(ascii: "b"): scalars.append("\u{8}")
                case UInt8(ascii: "f"): scalars.append("\u{C}")
                case UInt8(ascii: "n"): scalars.append("\n")
                case UInt8(ascii: "r"): scalars.append("\r")
                case UInt8(ascii: "t"): scalars.append("\t")
                case UInt8(ascii: "u"):
                    var code = try hexCode()
                    if (0xD800..<0xDC00).contains(code), bytes[index...].starts(with: Array("\\u".utf8)) {
                        index += 2
                        let low = try hexCode()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let scalar = Unicode.Scalar(code) else { throw failure("a lone surrogate") }
                    scalars.append(scalar)
                default: throw failure("an unknown escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("a control character in a string") }
                pending.append(byte)
            }
        }
        throw failure("a string is not closed")
    }

    private mutating func hexCode() throws -> UInt32 {
        guard index + 4 <= bytes.count,
            let code = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw failure("a \\u escape needs four hexadecimal digits") }
        index += 4
        return code
    }
}
