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
        ReadCommand.self, ReadTypeCommand.self, WriteCommand.self, EditCommand.self, DeleteCommand.self,
        RenameCommand.self,
        DomainsCommand.self, FindCommand.self, ExportCommand.self, ImportCommand.self, HelpCommand.self,
    ]

    static func named(_ name: String) -> (any Subcommand.Type)? {
        all.first { $0.name == name }
    }
}

struct ReadCommand: Subcommand {
    static let name = "read"
    static let synopsis = "[--json] [--check] [SUITE [NAME]]"
    static let summary = "print every suite, a suite, or one value"
    static let details = """
        Prints every value of SUITE, or the value named NAME, as old-style property-list text (as
        `defaults read` prints); with no SUITE, every suite, by name. --json prints JSON: dates as ISO
        8601 text, data as base64. --check prints instead each value an app's key would not read as its
        declared type (the app reads its default there), a line each; exit status 1 when there is one.
        A suite file that cannot be read is reported, exit status 1, and left as it is.
        examples:
          typed-defaults read com.example.app
          typed-defaults read com.example.app launchCount
          typed-defaults read --json --app com.example.app
          typed-defaults read --check com.example.app
        """

    let suite: String?
    let name: String?
    let json: Bool
    let check: Bool

    init(parsing parser: inout ArgumentParser) throws {
        let json = parser.take("--json")
        check = parser.take("--check")
        suite = parser.words.isEmpty ? nil : try parser.suite()
        name = try parser.optionalWord()
        self.json = json
    }

    func run() throws {
        guard let suite else { return try readEverySuite() }
        try requireReadable(suite)
        let store = try open(suite)
        let snapshot = store.snapshot()
        if check { return try checkDeclared(suite, snapshot) }
        if let name {
            guard let object = snapshot[name] else {
                try requireExisting(suite, snapshot)
                throw noValue(suite, name)
            }
            print(json ? TextFormats.json(plain(object)) : TextFormats.alone(plain(object)))
        } else {
            try requireExisting(suite, snapshot)
            let value = PropertyListValue.dictionary(snapshot.mapValues(plain))
            print(json ? TextFormats.json(value) : TextFormats.oldStyle(value))
        }
    }

    /// `defaults read` with no domain: every suite, by name; one that cannot be read is reported.
    private func readEverySuite() throws {
        let (suites, unreadable) = readableSuites()
        if check {
            let found = suites.reduce(0) { $0 + printUndeclaredReads($1.name, $1.values) }
            if found > 0 {
                throw Failure(message: "\(found) value\(found == 1 ? " does" : "s do") not read as declared")
            }
        } else {
            let values = PropertyListValue.dictionary(
                Dictionary(uniqueKeysWithValues: suites.map { ($0.name, .dictionary($0.values.mapValues(plain))) }))
            print(json ? TextFormats.json(values) : TextFormats.oldStyle(values))
        }
        try requireAllReadable(unreadable)
    }

    private func checkDeclared(_ suite: String, _ snapshot: [String: Any]) throws {
        let found = printUndeclaredReads(suite, snapshot)
        if found > 0 {
            throw Failure(
                message: "\(found) value\(found == 1 ? " of \(suite) does" : "s of \(suite) do") not read as declared")
        }
    }

    /// Prints each stored value its declared key would not read; returns how many.
    private func printUndeclaredReads(_ suite: String, _ snapshot: [String: Any]) -> Int {
        let declared = Declarations(of: suite)
        var found = 0
        for name in snapshot.keys.sorted() where self.name == nil || self.name == name {
            guard let key = declared.key(name), let problem = key.form.problem(with: snapshot[name]!) else { continue }
            found += 1
            let prefix = self.suite == nil ? "\(TextFormats.quoted(suite)) " : ""
            print(
                prefix + "\(TextFormats.quoted(name)): \(problem); the app declares \(key.type) at \(key.declaredAt) "
                    + "and reads its default" + (key.defaultValue.map { " (\($0))" } ?? ""))
        }
        return found
    }
}

struct ReadTypeCommand: Subcommand {
    static let name = "read-type"
    static let synopsis = "SUITE NAME"
    static let summary = "print the type of a value, and the type an app declares"
    static let details = """
        Prints the stored type of the value named NAME, as `defaults read-type` does ("Type is
        integer"), and the type an app's key declares for it where the suite's key manifest knows one.
        example:
          typed-defaults read-type com.example.app launchCount
        """

    let suite: String
    let name: String

    init(parsing parser: inout ArgumentParser) throws {
        suite = try parser.suite()
        name = try parser.word("NAME")
    }

    func run() throws {
        try requireReadable(suite)
        let store = try open(suite)
        let key = Declarations(of: suite).key(name)
        let declared = key.map { "the app declares \($0.type) (declared at \($0.declaredAt))" }
        guard let object = store.snapshot()[name] else {
            let message = "the suite \(suite) has no value named \(name)"
            throw Failure(
                message: message + (key.map { "; \(declared!), default \($0.defaultValue ?? "computed")" } ?? ""))
        }
        var line = "Type is " + typeName(of: plain(object))
        if let key, let declared {
            line += "; " + declared
            if let problem = key.form.problem(with: object) { line += ", which does not read it: \(problem)" }
        }
        print(line)
    }

    /// The type as `defaults read-type` names it.
    private func typeName(of value: PropertyListValue) -> String {
        switch value {
        case .string: "string"
        case .int: "integer"
        case .double: "float"
        case .bool: "boolean"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

struct WriteCommand: Subcommand {
    static let name = "write"
    static let synopsis = "[--force] SUITE NAME VALUE | SUITE PLIST"
    static let summary = "store a value (VALUE: a type flag and its text), or replace the suite"
    static let details = """
        VALUE is a type flag and its text, as `defaults write` takes them:
          -string TEXT   -int N   -float R   -bool true|false|yes|no|1|0   -data HEX
          -date 2026-11-26T09:30:00.25Z (ISO 8601; or 2026-11-26 09:30:00 +0000)
          -array V...   -array-add V...   -dict KEY V ...   -dict-add KEY V ...
          -json TEXT     any property-list value written as JSON
        A word with no flag is old-style property-list text, as `defaults` reads it: '(a, b)' an array,
        '{ a = 1; }' a dictionary, '<0fa1>' data, any other word a string. SUITE PLIST (a dictionary in
        that text) replaces every value of the suite.
        Where an app declared a key of NAME (the suite's key manifest), a value the key would not read
        as its type is refused, exit status 2, unless --force; a word with no flag is stored in the key's
        type ('5' an integer for an Int key), JSON text as the key stores a Codable value.
        examples:
          typed-defaults write com.example.app launchCount -int 3
          typed-defaults write com.example.app tags -array -string a -int 2
          typed-defaults write com.example.app window -json '{"width": 800, "full": false}'
          typed-defaults write com.example.app '{ launchCount = 3; tags = (a, b); }'
        """

    let suite: String
    let name: String
    let value: WriteValue
    /// The whole suite (`write SUITE PLIST`), instead of one name's value.
    let domain: [String: PropertyListValue]?
    let force: Bool

    init(parsing parser: inout ArgumentParser) throws {
        force = parser.takeLeading("--force", amongFirst: 2)
        suite = try parser.suite()
        if parser.words.count == 1, let text = parser.words.first,
            text.unicodeScalars.first(where: { !$0.properties.isWhitespace }) == "{"
        {
            parser.words.removeFirst()
            guard case .dictionary(let entries) = try? OldStylePropertyList.parse(text) else {
                throw parser.fail("'\(text)' is not a property-list dictionary: { name = value; ... }")
            }
            name = ""
            value = .value(Given(value: .dictionary(entries)))
            domain = entries
            return
        }
        // One word that reads as another property list (an array, data, quoted text): a whole suite given
        // as what is no dictionary, not a name without its value.
        if parser.words.count == 1, let text = parser.words.first,
            let first = text.unicodeScalars.first(where: { !$0.properties.isWhitespace }),
            "(<\"".unicodeScalars.contains(first)
        {
            throw parser.fail("'\(text)' is not a property-list dictionary: a whole suite is { name = value; ... }")
        }
        name = try parser.word("NAME")
        value = try parser.writeValue()
        domain = nil
    }

    func run() throws {
        let declared = Declarations(of: suite, force: force)
        if let domain { return try replaceSuite(with: domain, declared) }
        // The form keys store a name in, so that an app's key of that name reads what was written.
        let name = self.name.precomposedStringWithCanonicalMapping
        var newValue: PropertyListValue?
        if case .value(let given) = value {
            let resolved = try declared.resolved(given, forName: name)
            try declared.check(resolved, forName: name)
            newValue = resolved
        }
        let store = try open(suite)
        try store.editObjects(names: [name]) { objects in
            switch value {
            case .value:
                objects[name] = newValue?.userDefaultsObject
            case .arrayAdd(let elements):
                let current = objects[name].map(plain) ?? .array([])
                guard case .array(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not an array: -array-add adds to an array")
                }
                let element = declared.key(name).flatMap { Self.element(of: $0.form) } ?? .unchecked
                let combined = PropertyListValue.array(stored + elements.map { Declarations.resolved($0, as: element) })
                try declared.check(combined, forName: name)
                objects[name] = combined.userDefaultsObject
            case .dictionaryAdd(let entries):
                let current = objects[name].map(plain) ?? .dictionary([:])
                guard case .dictionary(let stored) = current else {
                    throw Failure(
                        message: "\(name) holds \(kind(of: current)), not a dictionary: -dict-add adds to a dictionary")
                }
                let entry = declared.key(name).flatMap { Self.entry(of: $0.form) } ?? .unchecked
                let combined = PropertyListValue.dictionary(
                    stored.merging(entries.mapValues { Declarations.resolved($0, as: entry) }) { _, new in new })
                try declared.check(combined, forName: name)
                objects[name] = combined.userDefaultsObject
            }
        }
        if suite == globalSuite { tellOfGlobalDomain() }
    }

    /// `write SUITE PLIST`: the suite's values become the dictionary's, each checked as `write` checks one.
    private func replaceSuite(with entries: [String: PropertyListValue], _ declared: Declarations) throws {
        var values: [String: Any] = [:]
        for (name, value) in entries {
            let name = name.precomposedStringWithCanonicalMapping
            let resolved = try declared.resolved(.text(value), forName: name)
            try declared.check(resolved, forName: name)
            values[name] = resolved.userDefaultsObject
        }
        let store = try open(suite)
        let existing = store.snapshot().keys
        try store.editObjects(names: Array(existing) + values.keys) { $0 = values }
        if suite == globalSuite { tellOfGlobalDomain() }
    }

    /// The form of an array key's elements.
    static func element(of form: StoredForm) -> StoredForm? {
        switch form {
        case .optional(let wrapped): element(of: wrapped)
        case .array(let element): element
        default: nil
        }
    }

    /// The form of a dictionary key's values.
    static func entry(of form: StoredForm) -> StoredForm? {
        switch form {
        case .optional(let wrapped): entry(of: wrapped)
        case .dictionary(let value): value
        default: nil
        }
    }
}

/// Apps read the global domain when they start: said after a write there.
func tellOfGlobalDomain() {
    standardError.print(
        "note: apps read the global domain (\(globalSuite).plist) when they start; an app already running sees "
            + "this once it restarts")
}

struct DeleteCommand: Subcommand {
    static let name = "delete"
    static let synopsis = "SUITE [NAME]"
    static let summary = "remove one value, or the whole suite"
    static let details = """
        Removes the value named NAME (a name with no value fails), or the suite: its values and its file,
        in one step under the suite's file lock, so that `domains` no longer lists it. The suite's key
        manifest stays (the apps still declare those keys). A suite that does not exist fails and is
        left as it was: no file is made for it.
        examples:
          typed-defaults delete com.example.app launchCount
          typed-defaults delete com.example.app
        """

    let suite: String
    let name: String?

    init(parsing parser: inout ArgumentParser) throws {
        suite = try parser.suite()
        name = try parser.optionalWord()
    }

    func run() throws {
        let store = try open(suite)
        let snapshot = store.snapshot()
        try requireExisting(suite, snapshot)
        guard let name else {
            DefaultsStore.removeSuite(named: suite)
            if DefaultsStore.storedSuiteNames().contains(suite) {
                throw Failure(message: "the file of the suite \(suite) could not be removed")
            }
            return
        }
        guard snapshot[name] != nil else { throw noValue(suite, name) }
        try store.editObjects(names: [name]) { objects in
            guard objects.removeValue(forKey: name) != nil else { throw noValue(suite, name) }
        }
    }
}

struct RenameCommand: Subcommand {
    static let name = "rename"
    static let synopsis = "[--force] SUITE OLD NEW"
    static let summary = "move a value to a new name"
    static let details = """
        Moves the value named OLD to NEW, in one step; fails when OLD has no value or NEW has one. Where
        an app declared a key of NEW, a value it would not read is refused (exit status 2) unless --force.
        example:
          typed-defaults rename com.example.app count launchCount
        """

    let suite: String
    let old: String
    let new: String
    let force: Bool

    init(parsing parser: inout ArgumentParser) throws {
        force = parser.takeLeading("--force", amongFirst: 3)
        suite = try parser.suite()
        old = try parser.word("OLD")
        new = try parser.word("NEW")
    }

    func run() throws {
        let declared = Declarations(of: suite, force: force)
        let store = try open(suite)
        let snapshot = store.snapshot()
        try requireExisting(suite, snapshot)
        guard snapshot[old] != nil else { throw noValue(suite, old) }
        let new = self.new.precomposedStringWithCanonicalMapping
        try store.editObjects(names: [old, new]) { objects in
            guard let object = objects.removeValue(forKey: old) else { throw noValue(suite, old) }
            guard objects[new] == nil else {
                throw Failure(message: "the suite \(suite) already has a value named \(new): delete it first")
            }
            try declared.check(plain(object), forName: new)
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

struct FindCommand: Subcommand {
    static let name = "find"
    static let synopsis = "WORD"
    static let summary = "search every suite's names and values for WORD"
    static let details = """
        Prints, for each suite whose name, value names or values (text, at any depth) contain WORD
        (letter case ignored), the values found, as `defaults find` does; a suite whose name contains it,
        whole.
        example:
          typed-defaults find dark
        """

    let word: String

    init(parsing parser: inout ArgumentParser) throws {
        word = try parser.word("WORD")
    }

    func run() throws {
        var found = false
        let (suites, unreadable) = readableSuites()
        for (suite, snapshot) in suites {
            let values = snapshot.mapValues(plain)
            let matches = contains(suite) ? values : values.filter { contains($0.key) || contains($0.value) }
            guard !matches.isEmpty else { continue }
            found = true
            print(
                "Found \(matches.count) key\(matches.count == 1 ? "" : "s") in domain \(TextFormats.quoted(suite)): "
                    + TextFormats.oldStyle(.dictionary(matches)))
        }
        if !found { print("No domain, key, nor value containing \(TextFormats.quoted(word))") }
        try requireAllReadable(unreadable)
    }

    private func contains(_ text: String) -> Bool {
        text.range(of: word, options: .caseInsensitive) != nil
    }

    private func contains(_ value: PropertyListValue) -> Bool {
        switch value {
        case .string(let text): contains(text)
        case .array(let elements): elements.contains(where: contains)
        case .dictionary(let entries): entries.contains { contains($0.key) || contains($0.value) }
        default: false
        }
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
        try requireReadable(suite)
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
    static let synopsis = "[--force] [-format F] SUITE FILE|-"
    static let summary = "replace the suite with a property-list file's values"
    static let details = """
        Replaces the values of SUITE with those in FILE (- : standard input), a binary or XML property
        list of a dictionary, judged before it is read: a file no reader may be handed is refused. A
        value an app's declared key would not read is refused (exit status 2) unless --force.
        example:
          typed-defaults import com.example.app backup.plist
        """

    let suite: String
    let path: String
    let format: PropertyListDocument.Format?
    let force: Bool

    init(parsing parser: inout ArgumentParser) throws {
        force = parser.takeLeading("--force", amongFirst: 2)
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
        let declared = Declarations(of: suite, force: force)
        for name in values.keys.sorted() { try declared.check(plain(values[name]!), forName: name) }
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

/// `typed-defaults --version`.
struct VersionCommand: Subcommand {
    static let name = "--version"
    static let synopsis = ""
    static let summary = "the command's version"
    static let details = ""

    init() {}

    init(parsing parser: inout ArgumentParser) throws {}

    func run() throws {
        print("typed-defaults \(Help.version)")
    }
}
