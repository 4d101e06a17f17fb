import Foundation
import TypedDefaults

/// Old-style (OpenStep) property-list text, as `defaults write` takes a value: `(a, b)` an array,
/// `{ a = 1; b = (x, y); }` a dictionary, `<0fa1 b2>` data, `"quoted text"` or a bare word a string.
/// Every leaf is a string or data: the format has no numbers, as `defaults` stores `(255, 0, 0)` as three
/// strings. Comments (`//`, `/* */`) are skipped. Nesting is limited as the library limits it.
struct OldStylePropertyList {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private let scalars: [Unicode.Scalar]
    private var index = 0

    /// A word as `defaults write` takes it: text that starts as an array, a dictionary, data or a quoted
    /// string and parses whole is that value; any other word is the string itself.
    static func value(ofWord word: String) -> PropertyListValue {
        guard let first = word.unicodeScalars.first(where: { !$0.properties.isWhitespace }),
            "({<\"".unicodeScalars.contains(first), let value = try? parse(word)
        else { return .string(word) }
        return value
    }

    /// The value `text` holds, whole (nothing but space and comments after it).
    static func parse(_ text: String) throws -> PropertyListValue {
        var parser = OldStylePropertyList(scalars: Array(text.unicodeScalars))
        let value = try parser.value(depth: 0)
        try parser.skipSpace()
        guard parser.index == parser.scalars.count else { throw parser.failure("text after the value") }
        return value
    }

    private init(scalars: [Unicode.Scalar]) {
        self.scalars = scalars
    }

    private func failure(_ what: String) -> Failure {
        Failure(description: "\(what) at character \(index + 1)")
    }

    private var current: Unicode.Scalar? { index < scalars.count ? scalars[index] : nil }

    private mutating func skipSpace() throws {
        while let scalar = current {
            if scalar.properties.isWhitespace {
                index += 1
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                while let next = current, next != "\n" { index += 1 }
            } else if scalar == "/", index + 1 < scalars.count, scalars[index + 1] == "*" {
                index += 2
                while index + 1 < scalars.count, !(scalars[index] == "*" && scalars[index + 1] == "/") { index += 1 }
                guard index + 1 < scalars.count else { throw failure("a comment is not closed") }
                index += 2
            } else {
                return
            }
        }
    }

    /// The characters a string may have unquoted.
    private static func isBare(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "_$+/:.-".unicodeScalars.contains(scalar))
    }

    private mutating func expect(_ scalar: Unicode.Scalar) throws {
        try skipSpace()
        guard current == scalar else { throw failure("'\(scalar)' is missing") }
        index += 1
    }

    private mutating func value(depth: Int) throws -> PropertyListValue {
        guard depth <= PropertyListValue.maximumNesting else {
            throw failure("nesting deeper than \(PropertyListValue.maximumNesting) levels")
        }
        try skipSpace()
        guard let scalar = current else { throw failure("a value is missing") }
        switch scalar {
        case "(":
            index += 1
            var elements: [PropertyListValue] = []
            while true {
                try skipSpace()
                if current == ")" {
                    index += 1
                    return .array(elements)
                }
                elements.append(try value(depth: depth + 1))
                try skipSpace()
                if current == "," {
                    index += 1
                } else if current != ")" {
                    throw failure("',' or ')' is missing")
                }
            }
        case "{":
            index += 1
            var entries: [String: PropertyListValue] = [:]
            while true {
                try skipSpace()
                if current == "}" {
                    index += 1
                    return .dictionary(entries)
                }
                guard case .string(let key) = try value(depth: depth + 1) else {
                    throw failure("a dictionary's key is not a string")
                }
                try expect("=")
                entries[key] = try value(depth: depth + 1)
                try expect(";")
            }
        case "<":
            index += 1
            var digits: [UInt8] = []
            while let next = current, next != ">" {
                index += 1
                if next.properties.isWhitespace { continue }
                guard next.isASCII, next.properties.isASCIIHexDigit else {
                    throw failure("data that is not hexadecimal")
                }
                digits.append(UInt8(next.value))
            }
            guard current == ">" else { throw failure("'>' is missing") }
            index += 1
            guard let data = TextFormats.data(fromHex: String(decoding: digits, as: UTF8.self)) else {
                throw failure("data of an odd number of digits")
            }
            return .data(data)
        case "\"":
            index += 1
            return .string(try quoted())
        default:
            let start = index
            while let next = current, Self.isBare(next) { index += 1 }
            guard index > start else { throw failure("'\(scalar)' cannot start a value") }
            return .string(String(String.UnicodeScalarView(scalars[start..<index])))
        }
    }

    /// A quoted string's text, after its opening quote: `\n`, `\t`, `\r`, `\"`, `\\`, `\UXXXX` and octal
    /// `\ooo` escapes, as `defaults` prints and reads them.
    private mutating func quoted() throws -> String {
        var text = String.UnicodeScalarView()
        while let scalar = current {
            index += 1
            switch scalar {
            case "\"": return String(text)
            case "\\":
                guard let escape = current else { throw failure("an escape is cut off") }
                index += 1
                switch escape {
                case "n": text.append("\n")
                case "t": text.append("\t")
                case "r": text.append("\r")
                case "a": text.append("\u{7}")
                case "b": text.append("\u{8}")
                case "f": text.append("\u{C}")
                case "v": text.append("\u{B}")
                case "U", "u":
                    var code: UInt32 = 0
                    var count = 0
                    while count < 4, let digit = current, digit.properties.isASCIIHexDigit,
                        let value = UInt32(String(digit), radix: 16)
                    {
                        code = code << 4 | value
                        index += 1
                        count += 1
                    }
                    guard count > 0, let decoded = Unicode.Scalar(code) else { throw failure("a bad \\U escape") }
                    text.append(decoded)
                case "0"..."7":
                    var code = escape.value - 48
                    var count = 1
                    while count < 3, let digit = current, ("0"..."7").contains(digit) {
                        code = code << 3 | (digit.value - 48)
                        index += 1
                        count += 1
                    }
                    guard let decoded = Unicode.Scalar(code) else { throw failure("a bad octal escape") }
                    text.append(decoded)
                default: text.append(escape)
                }
            default: text.append(scalar)
            }
        }
        throw failure("a quoted string is not closed")
    }
}
