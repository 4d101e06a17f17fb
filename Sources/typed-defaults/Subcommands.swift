import Foundation
import TypedDefaults

// Each subcommand, declared once: its name, its line in the summary, its help, how its words are parsed
// and what it does. `Subcommands.all` lists them, in the order `--help` prints them.

/// A subcommand of `typed-defaults`.
protocol Subcommand: Sendable {
    /// The word that names it on the command line.
    static var name: String { get }
    /// What follows the name in its usage line and in the summary.
    static var synopsis: String { get }
    /// Its line in the summary.
    static var summary: String { get }
    /// What `typed-defaults help NAME` prints after the usage line.
    static var details: String { get }
    /// Parses the words after the name (the parser fails with a usage error for input it does not take).
    init(parsing parser: inout ArgumentParser) throws
    func run() throws
}

extension Subcommand {
    /// The usage line.
    static var usage: String { "usage: typed-defaults \(name)" + (synopsis.isEmpty ? "" : " \(synopsis)") }
}

enum Subcommands {
    static let all: [any Subcommand.Type] = [
        ReadCommand.self, WriteCommand.self, DeleteCommand.self, RenameCommand.self, DomainsCommand.self,
        ExportCommand.self, ImportCommand.self, HelpCommand.self,
    ]

    static func named(_ name: String) -> (any Subcommand.Type)? {
        all.first { $0.name == name }
    }
}

struct ReadCommand: Subcommand {
    static let name = "read"
    static let synopsis = "[--json] SUITE [NAME]"
    static let summary = "print the suite, or one value"
    static let details = """
        Prints every value of SUITE, or the value named NAME, as old-style property-list text (as
        `defaults read` prints). --json prints JSON: dates as ISO 8601 text, data as base64.
        examples:
          typed-defaults read com.example.app
          typed-defaults read com.example.app launchCount
          typed-defaults read --json --app com.example.app
        """

    let suite: String
    let name: String?
    let json: Bool

    init(parsing parser: inout ArgumentParser) throws {
        let json = parser.take("--json")
        suite = try parser.suite()
        name = try parser.optionalWord()
        self.json = json
    }

    func run() throws {
        let store = try open(suite)
        let snapshot = store.snapshot()
        if let name {
            guard let object = snapshot[name] else {
                throw Failure(message: "the suite \(suite) has no value named \(name)")
            }
            let value = plain(object)
            if json {
                print(TextFormats.json(value))
            } else if case .string(let text) = value {
                print(text)
            } else {
                print(TextFormats.oldStyle(value))
            }
        } else {
            try requireExisting(suite, snapshot)
            let value = PropertyListValue.dictionary(snapshot.mapValues(plain))
            print(json ? TextFormats.json(value) : TextFormats.oldStyle(value))
        }
    }
}

struct WriteCommand: Subcommand {
    static let name = "write"
    static let synopsis = "SUITE NAME VALUE"
    static let summary = "store a value (VALUE: a type flag and its text)"
    static let details = """
        VALUE is a type flag and its text, as `defaults write` takes them:
          -string TEXT   -int N   -float R   -bool true|false|yes|no|1|0   -data HEX
          -date 2026-11-26T09:30:00.25Z (ISO 8601; or 2026-11-26 09:30:00 +0000)
          -array V...   -array-add V...   -dict KEY V ...   -dict-add KEY V ...
          -json TEXT     any property-list value written as JSON
        A word with no flag is a string. Elements of -array and -dict take flags too.
        examples:
          typed-defaults write com.example.app launchCount -int 3
          typed-defaults write com.example.app tags -array -string a -int 2
          typed-defaults write com.example.app window -json '{"width": 800, "full": false}'
        """

    let suite: String
    let name: String
    let value: WriteValue

    init(parsing parser: inout ArgumentParser) throws {
        suite = try parser.suite()
        name = try parser.word("NAME")
        value = try parser.writeValue()
    }

    func run() throws {
        let store = try open(suite)
        // The form keys store a name in, so that an app's key of that name reads what was written.
        let name = self.name.precomposedStringWithCanonicalMapping
        try store.editObjects(names: [name]) { objects in
            switch value {
            case .value(let value):
                objects[name] = value.userDefaultsObject
            case .arrayAdd(let elements):
                let current = objects[name].map(plain) ?? .array([])
                guard case .array(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not an array: -array-add adds to an array")
                }
                objects[name] = PropertyListValue.array(stored + elements).userDefaultsObject
            case .dictionaryAdd(let entries):
                let current = objects[name].map(plain) ?? .dictionary([:])
                guard case .dictionary(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not a dictionary: -dict-add adds to a dictionary")
                }
                objects[name] =
                    PropertyListValue.dictionary(stored.merging(entries) { _, new in new }).userDefaultsObject
            }
        }
    }
}

struct DeleteCommand: Subcommand {
    static let name = "delete"
    static let synopsis = "SUITE [NAME]"
    static let summary = "remove one value, or every value of the suite"
    static let details = """
        Removes the value named NAME (a name with no value fails), or every value of SUITE.
        example:
          typed-defaults delete com.example.app launchCount
        """

    let suite: String
    let name: String?

    init(parsing parser: inout ArgumentParser) throws {
        suite = try parser.suite()
        name = try parser.optionalWord()
    }

    func run() throws {
        let store = try open(suite)
        if let name {
            try store.editObjects(names: [name]) { objects in
                guard objects.removeValue(forKey: name) != nil else {
                    throw Failure(message: "the suite \(suite) has no value named \(name)")
                }
            }
        } else {
            let snapshot = store.snapshot()
            try requireExisting(suite, snapshot)
            try store.editObjects(names: Array(snapshot.keys)) { $0 = [:] }
        }
    }
}

struct RenameCommand: Subcommand {
    static let name = "rename"
    static let synopsis = "SUITE OLD NEW"
    static let summary = "move a value to a new name"
    static let details = """
        Moves the value named OLD to NEW, in one step; fails when OLD has no value or NEW has one.
        example:
          typed-defaults rename com.example.app count launchCount
        """

    let suite: String
    let old: String
    let new: String

    init(parsing parser: inout ArgumentParser) throws {
        suite = try parser.suite()
        old = try parser.word("OLD")
        new = try parser.word("NEW")
    }

    func run() throws {
        let store = try open(suite)
        let new = self.new.precomposedStringWithCanonicalMapping
        try store.editObjects(names: [old, new]) { objects in
            guard let object = objects.removeValue(forKey: old) else {
                throw Failure(message: "the suite \(suite) has no value named \(old)")
            }
            guard objects[new] == nil else {
                throw Failure(message: "the suite \(suite) already has a value named \(new): delete it first")
            }
            objects[new] = object
        }
    }
}

struct DomainsCommand: Subcommand {
    static let name = "domains"
    static let synopsis = "[--json]"
    static let summary = "list the suites stored here"
    static let details = """
        Lists the suites stored where this user's suites are (Linux: $XDG_CONFIG_HOME or ~/.config).
        """

    let json: Bool

    init(parsing parser: inout ArgumentParser) throws {
        json = parser.take("--json")
    }

    func run() throws {
        let names = DefaultsStore.storedSuiteNames()
        print(
            json
                ? TextFormats.json(.array(names.map(PropertyListValue.string)))
                : names.map(TextFormats.quoted).joined(separator: ", "))
    }
}

struct ExportCommand: Subcommand {
    static let name = "export"
    static let synopsis = "[-format F] SUITE FILE|-"
    static let summary = "write the suite to a property-list file (F: binary1, xml1)"
    static let details = """
        Writes every value of SUITE to FILE, binary by default, or to standard output (-) as XML, as
        `defaults export` does. The XML format keeps dates to the second, as the format does; binary
        keeps them exact.
        example:
          typed-defaults export com.example.app backup.plist
        """

    let suite: String
    let path: String
    let format: PropertyListDocument.Format

    init(parsing parser: inout ArgumentParser) throws {
        let format = try parser.format()
        suite = try parser.suite()
        path = try parser.word("FILE")
        // Standard output is usually a terminal or a pipe into a text tool: XML there, as `defaults`.
        self.format = format ?? (path == "-" ? .xml : .binary)
    }

    func run() throws {
        let store = try open(suite)
        let snapshot = store.snapshot()
        try requireExisting(suite, snapshot)
        let bytes: [UInt8]
        do {
            bytes = try PropertyListDocument.bytes(of: snapshot, format: format)
        } catch {
            throw Failure(message: "cannot export \(suite): \(error)")
        }
        if path == "-" {
            FileHandle.standardOutput.write(Data(bytes))
        } else {
            do {
                try Data(bytes).write(to: URL(fileURLWithPath: path), options: .atomic)
            } catch {
                throw Failure(message: "cannot write \(path): \(error.localizedDescription)")
            }
        }
    }
}

struct ImportCommand: Subcommand {
    static let name = "import"
    static let synopsis = "[-format F] SUITE FILE|-"
    static let summary = "replace the suite with a property-list file's values"
    static let details = """
        Replaces the values of SUITE with those in FILE (- : standard input), a binary or XML property
        list of a dictionary, judged before it is read: a file no reader may be handed is refused.
        example:
          typed-defaults import com.example.app backup.plist
        """

    let suite: String
    let path: String
    let format: PropertyListDocument.Format?

    init(parsing parser: inout ArgumentParser) throws {
        format = try parser.format()
        suite = try parser.suite()
        path = try parser.word("FILE")
    }

    func run() throws {
        let store = try open(suite)
        let bytes = try readInput(path)
        let document: (values: [(name: String, object: Any)], format: PropertyListDocument.Format)
        do {
            document = try PropertyListDocument.values(in: bytes)
        } catch {
            throw Failure(message: "cannot import \(path == "-" ? "standard input" : path): \(error)")
        }
        if let format, format != document.format {
            throw Failure(message: "\(path) is \(document.format.rawValue), not \(format.rawValue)")
        }
        let values = Dictionary(document.values, uniquingKeysWith: { _, later in later })
        let existing = store.snapshot().keys
        try store.editObjects(names: Array(existing) + values.keys) { $0 = values }
    }
}

struct HelpCommand: Subcommand {
    static let name = "help"
    static let synopsis = "[COMMAND]"
    static let summary = "this text, or a command's"
    static let details = ""

    /// The subcommand to tell of; nil: the summary.
    let topic: (any Subcommand.Type)?

    init(topic: (any Subcommand.Type)?) {
        self.topic = topic
    }

    init(parsing parser: inout ArgumentParser) throws {
        guard let name = parser.words.popFirst() else {
            topic = nil
            return
        }
        guard let named = Subcommands.named(name) else { throw parser.fail("no command is named '\(name)'") }
        topic = named
    }

    func run() throws {
        print(Help.text(of: topic))
    }
}
