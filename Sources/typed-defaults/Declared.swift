import Foundation
import TypedDefaults

// What the command knows of the keys an app declared: the suite's key manifest (`KeyManifest`, written
// by every process that uses the library), against which `write`, `import` and `rename` check a value, and
// in whose form they store a value given as a word or as JSON.

/// A value the declared key of its name would not read as itself: exit status 2, nothing written.
struct Refusal: Error {
    let message: String
}

struct Declarations {
    let suite: String
    let keys: ManifestKeys
    /// `--force`: values are stored as given, not checked.
    let force: Bool

    /// The keys the manifest of `suite` declares. A manifest that cannot be read is reported and not
    /// used: values are then stored as given.
    init(of suite: String, force: Bool = false) {
        self.suite = suite
        self.force = force
        switch KeyManifest.contents(ofSuite: suite) {
        case .absent: keys = ManifestKeys()
        case .keys(let declared): keys = declared
        case .unreadable(let reason):
            standardError.print(
                "the key manifest of \(suite) cannot be read (\(reason)): values are stored as given, not checked")
            keys = ManifestKeys()
        }
    }

    /// The key that checks `name`: its own, or its family's.
    func key(_ name: String) -> DeclaredKey? {
        keys.checking(name.precomposedStringWithCanonicalMapping)
    }

    /// `given` as the key named `name` stores it (as given for a name no app declared). JSON with no
    /// property-list form (a `null`) is taken only by a key that stores JSON text.
    func resolved(_ given: Given, forName name: String) throws -> PropertyListValue {
        let key = key(name)
        if let problem = given.jsonProblem, !(key.map { Self.storesJSON($0.form) } ?? false) {
            throw UsageError(message: "-json: \(problem)", command: "write")
        }
        guard let key else { return given.value }
        return Self.resolved(given, as: key.form)
    }

    /// Whether a key of `form` stores JSON as text or data (a `Codable` value), optional or not.
    static func storesJSON(_ form: StoredForm) -> Bool {
        switch form {
        case .json, .jsonText, .jsonData: true
        case .optional(let wrapped): storesJSON(wrapped)
        default: false
        }
    }

    /// `given` in `form`: a word with no type flag as the form's type reads it (`5` an integer, `yes` a
    /// Boolean, any word for a string key the word itself); JSON text as a `Codable` key stores it.
    static func resolved(_ given: Given, as form: StoredForm) -> PropertyListValue {
        switch form {
        case .optional(let wrapped), .choice(let wrapped, _), .rawValue(let wrapped):
            return resolved(given, as: wrapped)
        case .jsonText, .jsonData, .json:
            guard let text = given.json ?? given.word, StoredForm.jsonText.reads(text) else { return given.value }
            return form == .jsonData ? .data(Data(text.utf8)) : .string(text)
        case .string, .url, .uuid:
            return given.word.map(PropertyListValue.string) ?? given.value
        case .array(let element):
            guard let elements = given.elements else { break }
            return .array(elements.map { resolved($0, as: element) })
        case .dictionary(let value):
            guard let entries = given.entries else { break }
            return .dictionary(entries.mapValues { resolved($0, as: value) })
        default: break
        }
        return given.word != nil || given.fromText ? natural(given.value, as: form) : given.value
    }

    /// A value read from words (old-style text's leaves are strings) in `form`'s type, where it reads so.
    static func natural(_ value: PropertyListValue, as form: StoredForm) -> PropertyListValue {
        switch (value, form) {
        case (_, .optional(let wrapped)), (_, .choice(let wrapped, _)), (_, .rawValue(let wrapped)):
            return natural(value, as: wrapped)
        case (.string(let text), .integer): return Int(text).map(PropertyListValue.int) ?? value
        case (.string(let text), .real):
            return Double(text).flatMap { $0.isFinite ? PropertyListValue.double($0) : nil } ?? value
        case (.string(let text), .boolean):
            switch text.lowercased() {
            case "true", "yes", "1": return .bool(true)
            case "false", "no", "0": return .bool(false)
            default: return value
            }
        case (.string(let text), .date): return TextFormats.date(from: text).map(PropertyListValue.date) ?? value
        case (.array(let elements), .array(let element)): return .array(elements.map { natural($0, as: element) })
        case (.dictionary(let entries), .dictionary(let entry)):
            return .dictionary(entries.mapValues { natural($0, as: entry) })
        default: return value
        }
    }

    /// Refuses `value` for `name` when the key an app declared for it would not read it (and would read
    /// its default instead), unless `--force`.
    func check(_ value: PropertyListValue, forName name: String) throws {
        guard !force, let key = key(name), let object = value.userDefaultsObject else { return }
        if let problem = key.form.problem(with: object) {
            throw Refusal(message: Self.refusal(name, key, problem))
        }
        if key.form.hasUnlistedCases {
            // The enum's own name, out of an optional's, an array's or a dictionary's (`Optional<Speed>`).
            let enumName =
                key.type.split { "<, ".contains($0) }.last.map { String($0.filter { $0 != ">" }) } ?? key.type
            throw Refusal(
                message:
                    "\(name) is \(Self.article(key.type)) \(key.type) (declared at \(key.declaredAt)), a raw-value "
                    + "enum whose cases are not listed: a raw value that is no case would read the default, and "
                    + "nothing here can tell; make \(enumName) CaseIterable to have its cases checked (the app's next "
                    + "launch records them), or --force writes it anyway")
        }
    }

    static func refusal(_ name: String, _ key: DeclaredKey, _ problem: String) -> String {
        "\(name) is \(article(key.type)) \(key.type) (declared at \(key.declaredAt)): \(problem), so the app would "
            + "read its default; --force writes it anyway"
    }

    /// `a` or `an`, as the type name sounds.
    static func article(_ type: String) -> String {
        guard let first = type.first?.lowercased() else { return "a" }
        if type.hasPrefix("UInt") || type.hasPrefix("URL") || type.hasPrefix("UUID") { return "a" }
        return "aeio".contains(first) || type.hasPrefix("Int") ? "an" : "a"
    }
}
