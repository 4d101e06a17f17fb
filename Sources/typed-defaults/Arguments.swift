import Foundation
import TypedDefaults

// The command line, parsed by hand: the package declares no dependencies, and a dependency of this
// command would be fetched by every app that uses the library. Everything is parsed before anything is
// read or written, so bad input changes nothing.

/// The value of a `write`: a value, or elements added to what is stored.
enum WriteValue: Equatable {
    case value(Given)
    case arrayAdd([Given])
    case dictionaryAdd([String: Given])
}

/// One value as the command line gave it: the value, and how it was written, which decides what it
/// becomes for a declared key (`Given.resolved`): a word with no type flag takes the key's form
/// (`5` for an `Int` key is the integer 5), JSON text for a `Codable` key is stored as the key stores it.
struct Given: Equatable {
    let value: PropertyListValue
    /// The word, when it came with no type flag.
    var word: String? = nil
    /// The JSON text, when it came with `-json`.
    var json: String? = nil
    /// Why the `-json` text has no property-list form (a `null`), when it is JSON all the same: fine for a
    /// key that stores JSON text (a `Codable` value's optional field), an error for any other.
    var jsonProblem: String? = nil
    /// The elements of `-array`, each as given.
    var elements: [Given]? = nil
    /// The entries of `-dict`, each as given.
    var entries: [String: Given]? = nil

    /// A value of old-style text (a `write SUITE PLIST` entry): its strings were words.
    static func text(_ value: PropertyListValue) -> Given {
        if case .string(let text) = value { return Given(value: value, word: text) }
        return Given(value: value, fromText: true)
    }
    var fromText = false
}

/// Input the command does not understand: printed with the usage line, exit status 2.
struct UsageError: Error, Equatable {
    let message: String
    let command: String?
}

/// The suite of the global domain, whose values every app reads: `.GlobalPreferences`, the file
/// swift-corelibs-foundation's search list reads (`$XDG_CONFIG_HOME/.GlobalPreferences.plist`), measured:
/// an app's `UserDefaults.standard` reads a value written there, and not one in `NSGlobalDomain.plist`.
let globalSuite = ".GlobalPreferences"

/// The domain the command line gave as a path: the word, the file's folder and its suite name.
let pathDomain = Locked<(word: String, folder: String, suite: String)?>(nil)

/// Runs this command again with `domain`'s folder as its folder of suites (`XDG_CONFIG_HOME`) and the
/// suite's name for the path: Foundation reads the variable once, when the process starts.
func runInFolder(of domain: (word: String, folder: String, suite: String)) -> Never {
    var arguments = Array(CommandLine.arguments.dropFirst())
    if let index = arguments.firstIndex(of: domain.word) { arguments[index] = domain.suite }
    setenv("XDG_CONFIG_HOME", domain.folder, 1)
    let argv = ([CommandLine.arguments[0]] + arguments).map { strdup($0) } + [nil]
    execv("/proc/self/exe", argv)
    standardError.print("cannot run again for \(domain.word): \(String(cString: strerror(errno)))")
    exit(1)
}

enum Arguments {
    /// The subcommand the words ask for, parsed whole: nothing is read or written before this returns.
    static func parse(_ arguments: [String]) throws -> any Subcommand {
        var words = arguments[...]
        guard let name = words.popFirst() else { return HelpCommand(topic: nil) }
        if name == "--version" {
            guard words.isEmpty else { throw UsageError(message: "unexpected '\(words.first!)'", command: nil) }
            return VersionCommand()
        }
        if ["-h", "--help"].contains(name) {
            var parser = ArgumentParser(name: "help", words: words)
            let help = try HelpCommand(parsing: &parser)
            try parser.finish()
            return help
        }
        if let host = (arguments.first { ["-currentHost", "-host"].contains($0) }) {
            throw UsageError(
                message: "\(host) names the preferences macOS keeps for one computer (ByHost); Linux keeps one set "
                    + "for the user, which every command here reads and edits: leave \(host) out",
                command: nil)
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
    ///
    /// `-g`, `-globalDomain` and `NSGlobalDomain` name the global domain: on Linux the file
    /// Foundation's search list reads for every app, `.GlobalPreferences.plist` (`globalSuite`).
    mutating func suite() throws -> String {
        if let flag = words.first, flag == "--app" || flag == "-app" {
            words.removeFirst()
            return try word("NAME after \(flag)")
        }
        if let flag = words.first, flag == "-g" || flag == "-globalDomain" {
            words.removeFirst()
            return globalSuite
        }
        let suite = try word("SUITE")
        if suite.contains("/") { return Self.suite(atPath: suite) }
        return suite == "NSGlobalDomain" ? globalSuite : suite
    }

    /// A domain given as a path (`~/backup/com.example.app.plist`, `.plist` optional), as `defaults` takes
    /// one: the suite named by the file, in the file's folder (`pathDomain`), which the command then runs
    /// with as its folder of suites, so that the file is read and written as any suite is, under its lock,
    /// checked against the key manifest beside it.
    static func suite(atPath path: String) -> String {
        let file = URL(fileURLWithPath: path).standardizedFileURL
        let name = file.lastPathComponent
        let suite = name.hasSuffix(".plist") ? String(name.dropLast(".plist".count)) : name
        // No file name (`/`, `a/`, `a/.plist`): the word is refused as a suite name, as it was given.
        guard !path.hasSuffix("/"), !suite.isEmpty, !suite.contains("/") else { return path }
        pathDomain.withLockedValue { $0 = (path, file.deletingLastPathComponent().path, suite) }
        return suite
    }

    /// Takes `flag` where it stands among the command's first `positionals` words (`SUITE KEY` for
    /// `write`), before or after any of them, as a `defaults` user types options: `write S --force k v`.
    /// Past them it is a value (`write S k -array --force` stores the text).
    mutating func takeLeading(_ flag: String, amongFirst positionals: Int) -> Bool {
        var seen = 0
        for index in words.indices {
            if words[index] == flag {
                words.remove(at: index)
                return true
            }
            // Past the positionals, the next word starts the value (`-string --force` is text).
            if seen == positionals { return false }
            if !words[index].hasPrefix("-") { seen += 1 }
        }
        return false
    }

    /// `-format FORMAT`, wherever it stands: the word after the flag is the format.
    mutating func format() throws -> PropertyListDocument.Format? {
        guard let index = words.firstIndex(of: "-format") else { return nil }
        words.remove(at: index)
        guard index < words.endIndex else { throw fail("missing FORMAT after -format") }
        let name = words.remove(at: index)
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
            var elements: [Given] = []
            while !words.isEmpty { elements.append(try element(inCollection: true)) }
            return flag == "-array"
                ? .value(Given(value: .array(elements.map(\.value)), elements: elements)) : .arrayAdd(elements)
        case "-dict", "-dict-add":
            words.removeFirst()
            var entries: [String: Given] = [:]
            while let key = words.popFirst() {
                guard !words.isEmpty else { throw fail("the key '\(key)' of \(flag) has no value") }
                entries[key] = try element(inCollection: true)
            }
            return flag == "-dict"
                ? .value(Given(value: .dictionary(entries.mapValues(\.value)), entries: entries))
                : .dictionaryAdd(entries)
        default:
            let value = try element()
            return .value(value)
        }
    }

    /// The type flags of one value, each with the spellings it also takes.
    static let elementFlags =
        "-string, -int (-integer), -float (-double, -real), -bool (-boolean), -date, -data or -json"

    /// One value: a type flag and its text, or a word alone (as `defaults` takes it: old-style
    /// property-list text, `(a, b)` an array, `{ a = 1; }` a dictionary, `<0fa1>` data; any other word a
    /// string).
    ///
    /// JSON with no property-list form (a `null`) is kept as its text for a key that stores JSON, alone;
    /// in an array or a dictionary (`inCollection`) it is an error, as before.
    mutating func element(inCollection: Bool = false) throws -> Given {
        guard let first = words.popFirst() else { throw fail("missing VALUE") }
        guard first.hasPrefix("-"), first.count > 1, Double(first) == nil else {
            return Given(value: OldStylePropertyList.value(ofWord: first), word: first)
        }
        guard let text = words.popFirst() else { throw fail("\(first) has no value") }
        if first == "-json" {
            do {
                return Given(value: try JSONValue.parse(text), json: text)
            } catch {
                guard !inCollection,
                    (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil
                else { throw fail("-json: \(error)") }
                return Given(value: .string(text), json: text, jsonProblem: "\(error)")
            }
        }
        return Given(value: try flagged(first, text))
    }

    /// The value of a type flag and its text.
    mutating func flagged(_ first: String, _ text: String) throws -> PropertyListValue {
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
