import Foundation
import TypedDefaults

// The command line, parsed by hand: the package declares no dependencies, and a dependency of this
// command would be fetched by every app that uses the library. Everything is parsed before anything is
// read or written, so bad input changes nothing.

/// The value of a `write`: a value, or elements added to what is stored.
enum WriteValue: Equatable {
    case value(PropertyListValue)
    case arrayAdd([PropertyListValue])
    case dictionaryAdd([String: PropertyListValue])
}

/// Input the command does not understand: printed with the usage line, exit status 2.
struct UsageError: Error, Equatable {
    let message: String
    let command: String?
}

enum Arguments {
    /// The subcommand the words ask for, parsed whole: nothing is read or written before this returns.
    static func parse(_ arguments: [String]) throws -> any Subcommand {
        var words = arguments[...]
        guard let name = words.popFirst() else { return HelpCommand(topic: nil) }
        if ["-h", "--help"].contains(name) {
            var parser = ArgumentParser(name: "help", words: words)
            let help = try HelpCommand(parsing: &parser)
            try parser.finish()
            return help
        }
        guard let subcommand = Subcommands.named(name) else {
            throw UsageError(message: "unknown command '\(name)'", command: nil)
        }
        if words.contains(where: { ["-h", "--help"].contains($0) }) { return HelpCommand(topic: subcommand) }
        var parser = ArgumentParser(name: name, words: words)
        let parsed = try subcommand.init(parsing: &parser)
        try parser.finish()
        return parsed
    }
}

/// The words after a subcommand's name, taken one by one by its parser.
struct ArgumentParser {
    let name: String
    var words: ArraySlice<String>

    func fail(_ message: String) -> UsageError { UsageError(message: message, command: name) }

    mutating func finish() throws {
        if let extra = words.first { throw fail("unexpected '\(extra)'") }
    }

    /// `SUITE`, or `--app NAME` (`-app NAME`, as `defaults` spells it: the domain an app's standard
    /// store keeps, its bundle identifier or process name). The name is checked by the library
    /// (`DefaultsStore(suiteName:)`).
    mutating func suite() throws -> String {
        if let flag = words.first, flag == "--app" || flag == "-app" {
            words.removeFirst()
            return try word("NAME after \(flag)")
        }
        return try word("SUITE")
    }

    mutating func format() throws -> PropertyListDocument.Format? {
        guard take("-format") else { return nil }
        let name = try word("FORMAT after -format")
        guard let format = PropertyListDocument.Format(rawValue: name) else {
            throw fail("unknown format '\(name)': binary1 or xml1")
        }
        return format
    }

    mutating func take(_ flag: String) -> Bool {
        guard let index = words.firstIndex(of: flag) else { return false }
        words.remove(at: index)
        return true
    }

    mutating func word(_ what: String) throws -> String {
        guard let next = words.popFirst() else { throw fail("missing \(what)") }
        guard !next.hasPrefix("-") || next == "-" else { throw fail("unknown option '\(next)'") }
        return next
    }

    mutating func optionalWord() throws -> String? {
        words.isEmpty ? nil : try word("NAME")
    }

    // MARK: Values, as Apple's `defaults write` takes them

    mutating func writeValue() throws -> WriteValue {
        guard let flag = words.first else { throw fail("missing VALUE") }
        switch flag {
        case "-array", "-array-add":
            words.removeFirst()
            var elements: [PropertyListValue] = []
            while !words.isEmpty { elements.append(try element()) }
            return flag == "-array" ? .value(.array(elements)) : .arrayAdd(elements)
        case "-dict", "-dict-add":
            words.removeFirst()
            var entries: [String: PropertyListValue] = [:]
            while let key = words.popFirst() {
                guard !words.isEmpty else { throw fail("the key '\(key)' of \(flag) has no value") }
                entries[key] = try element()
            }
            return flag == "-dict" ? .value(.dictionary(entries)) : .dictionaryAdd(entries)
        default:
            let value = try element()
            return .value(value)
        }
    }

    /// The type flags of one value, each with the spellings it also takes.
    static let elementFlags =
        "-string, -int (-integer), -float (-double, -real), -bool (-boolean), -date, -data or -json"

    /// One value: a type flag and its text, or a word alone (a string, as `defaults` takes it).
    mutating func element() throws -> PropertyListValue {
        guard let first = words.popFirst() else { throw fail("missing VALUE") }
        guard first.hasPrefix("-"), first.count > 1, Double(first) == nil else { return .string(first) }
        guard let text = words.popFirst() else { throw fail("\(first) has no value") }
        switch first {
        case "-string": return .string(text)
        case "-int", "-integer":
            guard let value = Int(text) else { throw fail("'\(text)' is not an integer") }
            return .int(value)
        case "-float", "-double", "-real":
            guard let value = Double(text), value.isFinite else { throw fail("'\(text)' is not a number") }
            return .double(value)
        case "-bool", "-boolean":
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: throw fail("'\(text)' is not a Boolean: true, false, yes, no, 1 or 0")
            }
        case "-date":
            guard let date = TextFormats.date(from: text) else {
                throw fail(
                    "'\(text)' is not a date: 2026-11-26T09:30:00Z, 2026-11-26T09:30:00.25+01:00, 2026-11-26 09:30:00 +0000"
                )
            }
            return .date(date)
        case "-data":
            guard let data = TextFormats.data(fromHex: text) else {
                throw fail("'\(text)' is not hexadecimal bytes")
            }
            return .data(data)
        case "-json":
            do {
                return try JSONValue.parse(text)
            } catch {
                throw fail("-json: \(error)")
            }
        case "-array", "-array-add", "-dict", "-dict-add":
            throw fail(
                "\(first) cannot be an element: an element of -array or -dict takes \(Self.elementFlags); "
                    + "a nested array or dictionary is written with -json")
        default:
            throw fail(
                "unknown type '\(first)': a value takes \(Self.elementFlags), or is the whole of -array, "
                    + "-array-add, -dict or -dict-add")
        }
    }
}
