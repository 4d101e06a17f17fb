import Foundation

/// A key an app declared, as its suite's key manifest records it: what `typed-defaults` checks a write
/// against, and `read-type` tells.
package struct DeclaredKey: Sendable, Hashable {
    /// The stored name.
    package let name: String
    /// The key's value type, as Swift names it (`Int`, `Optional<Profile>`).
    package let type: String
    package let form: StoredForm
    /// The default, as Swift describes it; nil where the key computes it at each read.
    package let defaultValue: String?
    /// Where the key is declared: `Module/File.swift:12`.
    package let declaredAt: String

    package init(name: String, type: String, form: StoredForm, defaultValue: String?, declaredAt: String) {
        self.name = name
        self.type = type
        self.form = form
        self.defaultValue = defaultValue
        self.declaredAt = declaredAt
    }

    /// `key` as bound under `storedName`. A form the key's own default does not read as (a conversion
    /// of the app's own, say for a `Codable` type) is not trusted: `.unchecked`.
    init<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) {
        let (type, typeForm) = DeclaredType.of(Value.self)
        var form = typeForm
        if !key.hasComputedDefault, let object = key.defaultObject, !form.reads(object) { form = .unchecked }
        self.init(
            name: storedName, type: type, form: form,
            defaultValue: key.hasComputedDefault ? nil : String(describing: key.defaultValue),
            declaredAt: key.declaration.description)
    }
}

/// A value type's name and stored form, found once per type: an app that makes a key per item binds a
/// new name at each write, each with the type of the others.
enum DeclaredType {
    private static let known = Locked<[ObjectIdentifier: (name: String, form: StoredForm)]>([:])

    static func of(_ type: Any.Type) -> (name: String, form: StoredForm) {
        if let found = known.withLockedValue({ $0[ObjectIdentifier(type)] }) { return found }
        let found = (String(describing: type), StoredForm.of(type))
        known.withLockedValue { $0[ObjectIdentifier(type)] = found }
        return found
    }
}

/// A suite's key manifest: a JSON file beside the suite's file on Linux (`.<suite>.plist.keys.json`),
/// which a process using the library writes when it binds a key the file does not record as it is
/// (CommandLine.md shows it). Written by the saver, under the suite's file lock, replaced atomically;
/// read with a size limit, never trusted past what it says.
package enum KeyManifest {
    /// The largest manifest read: far above any app's keys (a key takes about 200 bytes).
    package static let maximumSize = 1 << 20
    /// The most names a manifest records: far above an app's declared keys, and a bound on what every save
    /// of a suite whose app makes a key per item would cost (those past it are not checked).
    package static let maximumKeys = 1_000
    static let formatName = "typed-defaults key manifest"
    static let version = 1

    /// What a suite's manifest holds.
    package enum Contents: Sendable, Equatable {
        /// There is no manifest: no process using the library on this machine declared a key of the suite.
        case absent
        case keys([String: DeclaredKey])
        /// The file is there but cannot be read (why): nothing in it is trusted.
        case unreadable(String)
    }

    /// The manifest of `suite` in this user's folder of suites, or in `directory`.
    package static func contents(ofSuite suite: String, in directory: String? = nil) -> Contents {
        var environment = ProcessInfo.processInfo.environment
        if let directory { environment["XDG_CONFIG_HOME"] = directory }
        guard let path = Platform.manifestPath(ofSuite: suite, environment: environment) else { return .absent }
        return contents(at: path)
    }

    /// The manifest at `path`: a regular file (a link is not followed), at most `maximumSize` bytes.
    static func contents(at path: String) -> Contents {
        #if os(Linux)
            let version: FileVersion?
            do {
                version = try FileVersion.open(path)
            } catch FileFailure.refused(_, let reason) {
                return .unreadable(reason)
            } catch {
                return .unreadable("\(error)")
            }
            guard let version else { return .absent }
            guard version.identity.size <= maximumSize else {
                return .unreadable("it is larger than \(maximumSize >> 10) KB")
            }
            guard let bytes = try? version.readAll(path: path, limit: maximumSize + 1) else {
                return .unreadable("it cannot be read")
            }
            guard bytes.count <= maximumSize else { return .unreadable("it is larger than \(maximumSize >> 10) KB") }
            return decode(bytes)
        #else
            return .absent
        #endif
    }

    /// The manifest's keys in `bytes`, or why they are not a manifest.
    package static func decode(_ bytes: [UInt8]) -> Contents {
        // Foundation's JSON reader refuses nesting deeper than 512 levels, so no input runs it out of stack.
        guard let document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return .unreadable("it is not a JSON object")
        }
        guard document["manifest"] as? String == formatName, let version = document["version"] as? Int else {
            return .unreadable("it is not a typed-defaults key manifest")
        }
        guard version == Self.version else { return .unreadable("it is version \(version), not \(Self.version)") }
        guard let entries = document["keys"] as? [String: Any] else { return .unreadable("it has no keys") }
        var keys: [String: DeclaredKey] = [:]
        for (name, entry) in entries {
            guard let entry = entry as? [String: Any], let type = entry["type"] as? String,
                let declaredAt = entry["declaredAt"] as? String, let form = entry["form"].flatMap(form(from:))
            else { return .unreadable("its entry for \(name) is not a key") }
            keys[name] = DeclaredKey(
                name: name, type: type, form: form, defaultValue: entry["default"] as? String, declaredAt: declaredAt)
        }
        return .keys(keys)
    }

    /// The manifest of `keys`, as JSON text: keys sorted, two-space indents.
    package static func encode(_ keys: [String: DeclaredKey]) -> [UInt8] {
        var entries: [String: Any] = [:]
        for (name, key) in keys {
            var entry: [String: Any] = ["type": key.type, "form": object(of: key.form), "declaredAt": key.declaredAt]
            if let defaultValue = key.defaultValue { entry["default"] = defaultValue }
            entries[name] = entry
        }
        let document: [String: Any] = ["manifest": formatName, "version": version, "keys": entries]
        let data =
            (try? JSONSerialization.data(
                withJSONObject: document, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return [UInt8](data) + [UInt8(ascii: "\n")]
    }

    static func object(of form: StoredForm) -> [String: Any] {
        switch form {
        case .integer(let type): ["kind": "integer", "type": type]
        case .real(let type): ["kind": "real", "type": type]
        case .boolean: ["kind": "boolean"]
        case .string: ["kind": "string"]
        case .date: ["kind": "date"]
        case .data: ["kind": "data"]
        case .url: ["kind": "url"]
        case .uuid: ["kind": "uuid"]
        case .array(let element): ["kind": "array", "element": object(of: element)]
        case .dictionary(let value): ["kind": "dictionary", "value": object(of: value)]
        case .optional(let wrapped): ["kind": "optional", "wrapped": object(of: wrapped)]
        case .choice(let raw, let cases): ["kind": "choice", "raw": object(of: raw), "cases": cases]
        case .rawValue(let raw): ["kind": "raw-value", "raw": object(of: raw)]
        case .jsonText: ["kind": "json-text"]
        case .json(let shape): ["kind": "json", "shape": shape.manifestObject]
        case .jsonData: ["kind": "json-data"]
        case .unchecked: ["kind": "unchecked"]
        }
    }

    /// The form an entry's `form` object describes; nil for anything else (an unknown kind, a number
    /// type the library does not have).
    static func form(from object: Any) -> StoredForm? {
        guard let object = object as? [String: Any], let kind = object["kind"] as? String else { return nil }
        let integers = ["Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64"]
        switch kind {
        case "integer":
            guard let type = object["type"] as? String, integers.contains(type) else { return nil }
            return .integer(type)
        case "real":
            guard let type = object["type"] as? String, ["Double", "Float", "CGFloat", "Decimal"].contains(type)
            else { return nil }
            return .real(type)
        case "boolean": return .boolean
        case "string": return .string
        case "date": return .date
        case "data": return .data
        case "url": return .url
        case "uuid": return .uuid
        case "array": return object["element"].flatMap(form(from:)).map(StoredForm.array)
        case "dictionary": return object["value"].flatMap(form(from:)).map(StoredForm.dictionary)
        case "optional": return object["wrapped"].flatMap(form(from:)).map(StoredForm.optional)
        case "choice":
            guard let raw = object["raw"].flatMap(form(from:)), let cases = object["cases"] as? [String] else {
                return nil
            }
            return .choice(raw, cases)
        case "raw-value": return object["raw"].flatMap(form(from:)).map(StoredForm.rawValue)
        case "json-text": return .jsonText
        case "json": return object["shape"].flatMap { JSONShape(manifestObject: $0) }.map(StoredForm.json)
        case "json-data": return .jsonData
        case "unchecked": return .unchecked
        default: return nil
        }
    }
}
