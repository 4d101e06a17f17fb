import Foundation
import TypedDefaults

// `typed-defaults edit SUITE`: the suite as JSON in the user's editor, each value the user changed checked
// against the app's declared keys, and only those written, in one step under the suite's lock, refused
// where the app changed the same value meanwhile.

struct EditCommand: Subcommand {
    static let name = "edit"
    static let synopsis = "[--force] SUITE"
    static let summary = "edit the suite as JSON in $VISUAL or $EDITOR"
    static let details = """
        Opens $VISUAL, else $EDITOR, else vi, on the values of SUITE as JSON (as `read --json` prints
        them: dates as ISO 8601 text, data as base64). When the editor returns, each value you changed,
        added or removed is checked as `write` checks one against the keys the app declares (--force:
        not checked); on an error the command says what and opens the editor again on your text, and
        returning that text unchanged gives up: exit status 2, nothing written. Text returned unchanged
        writes nothing. Only the values you changed are written, in one step under the suite's file
        lock: a value the app changed while you edited that you changed too is a conflict, refused and
        named (exit status 1, nothing written, your text kept in a file the message names); the app's
        other changes stand. A value that was a date or data takes ISO 8601 text or base64 again; a key
        that stores JSON (a Codable value) takes its JSON as text or as the value itself.
        example:
          EDITOR=nano typed-defaults edit com.example.app
        """

    let suite: String
    let force: Bool

    init(parsing parser: inout ArgumentParser) throws {
        force = parser.takeLeading("--force", amongFirst: 1)
        suite = try parser.suite()
    }

    /// What the user's text asks for: each name's new value, nil for a removed one.
    typealias Changes = [String: PropertyListValue?]

    func run() throws {
        try requireReadable(suite)
        let declared = Declarations(of: suite, force: force)
        let store = try open(suite)
        let snapshot = store.snapshot().mapValues(plain)
        let shown = TextFormats.json(.dictionary(snapshot)) + "\n"
        // The values as the user sees them (a date as its text): what a value is compared with to tell a change.
        guard case .dictionary(let baseline)? = try? JSONValue.parse(shown) else {
            throw Failure(message: "the suite \(suite) has a value JSON cannot show; edit it with write")
        }
        let file = try EditFile(suite: suite)
        do {
            try file.write(shown)
        } catch {
            file.remove()
            throw error
        }
        // After an error the file holds the user's own text, which the editor opens again as it is.
        var text = shown
        var refused = false
        while true {
            try file.runEditor()
            let edited = try file.read()
            if edited == text {
                file.remove()
                if refused { throw Refusal(message: "the text came back unchanged after the error: nothing written") }
                standardError.print("no change: nothing written")
                return
            }
            let changes: Changes
            do {
                changes = try Self.changes(in: edited, from: baseline, snapshot, declared)
            } catch let problem as Refusal {
                standardError.print(
                    problem.message + "; the editor opens again on your text (return it unchanged to give up)")
                text = edited
                refused = true
                continue
            }
            guard !changes.isEmpty else {
                file.remove()
                standardError.print("no value changed: nothing written")
                return
            }
            try write(changes, over: snapshot, in: store, keeping: file)
            file.remove()
            if suite == globalSuite { tellOfGlobalDomain() }
            return
        }
    }

    /// The changes `text` makes to the values shown (`baseline`, whose stored values are `snapshot`), each
    /// new value in the form its declared key stores and checked against it; a `Refusal` says what is wrong.
    static func changes(
        in text: String, from baseline: [String: PropertyListValue], _ snapshot: [String: PropertyListValue],
        _ declared: Declarations
    ) throws -> Changes {
        let entries: [String: PropertyListValue]
        do {
            guard case .dictionary(let parsed) = try JSONValue.parse(text) else {
                throw Refusal(message: "the text is not a JSON object of the suite's values: { \"name\": value, ... }")
            }
            entries = parsed
        } catch let failure as JSONValue.Failure {
            throw Refusal(message: "the text is not JSON: \(failure)")
        }
        // A name shown keeps its form; a new one takes the form keys store a name in (as `write` does).
        var given: [String: String] = [:]
        for name in entries.keys {
            let stored = baseline[name] != nil ? name : name.precomposedStringWithCanonicalMapping
            if let other = given[stored] {
                throw Refusal(message: "\"\(other)\" and \"\(name)\" are one name in two Unicode forms: keep one")
            }
            given[stored] = name
        }
        var changes: Changes = [:]
        for (name, word) in given {
            let value = entries[word]!
            if let old = baseline[name], identical(old, value) {
                // Every value is checked: one left as it was that the app does not read is named, not refused.
                if !declared.force, let key = declared.key(name), let object = snapshot[name]?.userDefaultsObject,
                    let problem = key.form.problem(with: object)
                {
                    standardError.print(
                        "note: \(name) is left as it was, which the app does not read: \(problem); it reads its default"
                    )
                }
                continue
            }
            var new = restored(value, like: snapshot[name])
            if let key = declared.key(name) { new = resolved(new, as: key.form) }
            try declared.check(new, forName: name)
            guard new.userDefaultsObject != nil else {
                throw Refusal(message: "\(name): the value has no property-list form")
            }
            changes[name] = .some(new)
        }
        for name in baseline.keys where given[name] == nil { changes[name] = .some(nil) }
        return changes
    }

    /// Writes `changes` in one step under the suite's lock, unless a name changed has changed in the suite
    /// since `snapshot` was taken (the app wrote it meanwhile): then nothing is written, the user's text is
    /// kept, and the failure names each such name.
    private func write(
        _ changes: Changes, over snapshot: [String: PropertyListValue], in store: DefaultsStore, keeping file: EditFile
    ) throws {
        var conflicts: [String] = []
        do {
            try store.editObjects(names: Array(changes.keys)) { objects in
                conflicts = changes.keys.filter { name in
                    !Self.identical(objects[name].map(plain), snapshot[name])
                }.sorted()
                guard conflicts.isEmpty else { throw Failure(message: "") }
                for (name, value) in changes { objects[name] = value?.userDefaultsObject }
            }
        } catch  where !conflicts.isEmpty {
            throw Failure(
                message: "the app changed \(conflicts.map(TextFormats.quoted).joined(separator: ", ")) while you "
                    + "edited, and so did you: nothing written (the app's changes stand); your text is kept in "
                    + file.path)
        } catch {
            throw Failure(message: message(of: error) + "; your text is kept in " + file.path)
        }
    }

    /// A value the user changed, in the kind its name held: ISO 8601 text a date again and base64 data
    /// again, a whole number a real where a real was, element by element.
    static func restored(_ value: PropertyListValue, like old: PropertyListValue?) -> PropertyListValue {
        switch (value, old) {
        case (.string(let text), .date?): return TextFormats.date(from: text).map(PropertyListValue.date) ?? value
        case (.string(let text), .data?): return Data(base64Encoded: text).map(PropertyListValue.data) ?? value
        case (.int(let number), .double?): return .double(Double(number))
        case (.array(let elements), .array(let olds)?):
            return .array(elements.indices.map { restored(elements[$0], like: $0 < olds.count ? olds[$0] : nil) })
        case (.dictionary(let entries), .dictionary(let olds)?):
            return .dictionary(Dictionary(uniqueKeysWithValues: entries.map { ($0, restored($1, like: olds[$0])) }))
        default: return value
        }
    }

    /// `value` as a declared key of `form` stores it: JSON for a key that stores JSON (the text as written,
    /// or the value itself as JSON), ISO 8601 text a date, base64 data, a whole number a real.
    static func resolved(_ value: PropertyListValue, as form: StoredForm) -> PropertyListValue {
        switch (value, form) {
        case (_, .optional(let wrapped)), (_, .choice(let wrapped, _)), (_, .rawValue(let wrapped)):
            return resolved(value, as: wrapped)
        case (.string(let text), .jsonText), (.string(let text), .jsonData), (.string(let text), .json):
            return Declarations.resolved(Given(value: value, json: text), as: form)
        case (_, .jsonText), (_, .jsonData), (_, .json):
            return Declarations.resolved(Given(value: value, json: TextFormats.json(value)), as: form)
        case (.string(let text), .data): return Data(base64Encoded: text).map(PropertyListValue.data) ?? value
        case (.int(let number), .real): return .double(Double(number))
        case (.array(let elements), .array(let element)): return .array(elements.map { resolved($0, as: element) })
        case (.dictionary(let entries), .dictionary(let entry)):
            return .dictionary(entries.mapValues { resolved($0, as: entry) })
        default: return Declarations.natural(value, as: form)
        }
    }

    /// Whether two values are the same value: reals and dates by their bits (a NaN is itself).
    static func identical(_ first: PropertyListValue?, _ second: PropertyListValue?) -> Bool {
        switch (first, second) {
        case (nil, nil): return true
        case (.double(let a)?, .double(let b)?): return a.bitPattern == b.bitPattern
        case (.date(let a)?, .date(let b)?):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.array(let a)?, .array(let b)?): return a.count == b.count && zip(a, b).allSatisfy(identical)
        case (.dictionary(let a)?, .dictionary(let b)?):
            return a.count == b.count && a.allSatisfy { identical($0.value, b[$0.key]) }
        default: return first == second
        }
    }
}

/// The file the user edits: in a folder of its own, which only the user can read, in the temporary folder.
struct EditFile {
    let folder: String
    let path: String

    init(suite: String) throws {
        var template = Array((NSTemporaryDirectory() + "/typed-defaults-edit.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(message: "cannot make a folder for the text: \(String(cString: strerror(errno)))")
        }
        folder = String(cString: made)
        path = folder + "/" + suite + ".json"
    }

    func write(_ text: String) throws {
        do {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        } catch {
            throw Failure(message: "cannot write \(path): \(error.localizedDescription)")
        }
    }

    /// The text the editor left: at most the size of a suite file, valid UTF-8.
    func read() throws -> String {
        let bytes = try readInput(path)
        guard bytes.count <= PropertyListDocument.maximumSize else {
            throw Failure(
                message: "the text is larger than a suite file may be: nothing written; it is kept in \(path)")
        }
        guard let text = String(bytes: bytes, encoding: .utf8) else {
            throw Failure(message: "the text is not UTF-8: nothing written; it is kept in \(path)")
        }
        return text
    }

    /// Runs `$VISUAL`, else `$EDITOR`, else `vi`, through the shell (an editor may be a command with its
    /// own words: `code --wait`), on the file, with the command's terminal; fails when it does not succeed.
    func runEditor() throws {
        // The command runs on Linux only (main.swift); other systems have no `Process` on every platform.
        #if os(Linux)
            let environment = ProcessInfo.processInfo.environment
            let editor = [environment["VISUAL"], environment["EDITOR"]].compactMap { $0 }.first { !$0.isEmpty } ?? "vi"
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", editor + " \"$@\"", editor, path]
            do {
                try process.run()
            } catch {
                remove()
                throw Failure(message: "cannot run the editor (\(editor)): \(error.localizedDescription)")
            }
            process.waitUntilExit()
            guard process.terminationReason == .exit, process.terminationStatus == 0 else {
                remove()
                throw Failure(
                    message:
                        "the editor (\(editor)) did not succeed (status \(process.terminationStatus)): nothing written"
                )
            }
        #else
            throw Failure(message: "edit runs on Linux")
        #endif
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: folder)
    }
}
