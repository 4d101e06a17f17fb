import Foundation

/// A key an app declared, as its suite's key manifest records it: what `typed-defaults` checks a write
/// against, and `read-type` tells.
package struct DeclaredKey: Sendable, Hashable {
    /// The stored name; for a family, what its members' stored names begin with.
    package let name: String
    /// The key's value type, as Swift names it (`Int`, `Optional<Profile>`).
    package let type: String
    package let form: StoredForm
    /// The default, as Swift describes it; nil where the key computes it at each read.
    package let defaultValue: String?
    /// Where the key is declared: `Module/File.swift:12`.
    package let declaredAt: String
    /// A family's entry (`UserDefaultKeyFamily`): it checks every name that begins with `name`.
    package let isFamily: Bool

    package init(
        name: String, type: String, form: StoredForm, defaultValue: String?, declaredAt: String, isFamily: Bool = false
    ) {
        self.name = name
        self.type = type
        self.form = form
        self.defaultValue = defaultValue
        self.declaredAt = declaredAt
        self.isFamily = isFamily
    }

    /// `key` as bound under `storedName`; a family's member as its family (the stored prefix of its
    /// members, no default: each member computes its own). A form the key's own default does not read
    /// as (a conversion of the app's own, say for a `Codable` type) is not trusted: `.unchecked`.
    init<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) {
        let (type, typeForm) = DeclaredType.of(Value.self)
        var form = typeForm
        if !key.hasComputedDefault, let object = key.defaultObject, !form.reads(object) { form = .unchecked }
        if let prefix = key.declaration.familyPrefix.map(canonicalName), !prefix.isEmpty, key.name.hasPrefix(prefix) {
            // The store's prefix, if any, then the family's: what the member's stored name begins with.
            let idLength = key.name.count - prefix.count
            self.init(
                name: String(storedName.dropLast(idLength)), type: type, form: form, defaultValue: nil,
                declaredAt: key.declaration.description, isFamily: true)
            return
        }
        self.init(
            name: storedName, type: type, form: form,
            defaultValue: key.hasComputedDefault ? nil : String(describing: key.defaultValue),
            declaredAt: key.declaration.description)
    }
}

/// What a key manifest records: keys by stored name, and families by what their members' stored names
/// begin with.
package struct ManifestKeys: Sendable, Equatable {
    package var byName: [String: DeclaredKey]
    package var families: [String: DeclaredKey]

    package init(byName: [String: DeclaredKey] = [:], families: [String: DeclaredKey] = [:]) {
        self.byName = byName
        self.families = families
    }

    /// The key recorded under `name` (families aside).
    package subscript(name: String) -> DeclaredKey? { byName[name] }
    /// How many keys are recorded (families aside).
    package var count: Int { byName.count }
    package var keys: Dictionary<String, DeclaredKey>.Keys { byName.keys }

    /// What checks a value stored under `name`: its own key, else the family with the longest prefix of
    /// it.
    package func checking(_ name: String) -> DeclaredKey? {
        if let key = byName[name] { return key }
        return families.values.filter { name.count > $0.name.count && name.hasPrefix($0.name) }
            .max { $0.name.count < $1.name.count }
    }

    /// Records `key`, as a family or as a key.
    mutating func record(_ key: DeclaredKey) {
        if key.isFamily { families[key.name] = key } else { byName[key.name] = key }
    }

    /// Whether `key` is recorded as it is.
    func holds(_ key: DeclaredKey) -> Bool {
        (key.isFamily ? families[key.name] : byName[key.name]) == key
    }

    /// `declared` merged into what the manifest records (`recorded`): families and the names it records
    /// are updated; a new name is added while its declaration has fewer than `KeyManifest.namesPerDeclaration`
    /// there, and past `KeyManifest.maximumKeys` only in place of a name of the declaration with the
    /// most, if its own has none.
    package static func merged(_ declared: ManifestKeys, into recorded: ManifestKeys) -> ManifestKeys {
        var merged = recorded
        merged.families.merge(declared.families) { _, new in new }
        var namesBySite: [String: Int] = [:]
        for key in merged.byName.values { namesBySite[key.declaredAt, default: 0] += 1 }
        for name in declared.byName.keys.sorted() {
            guard let key = declared.byName[name] else { continue }
            if let old = merged.byName[name] {
                namesBySite[old.declaredAt, default: 1] -= 1
                namesBySite[key.declaredAt, default: 0] += 1
                merged.byName[name] = key
                continue
            }
            let fromSite = namesBySite[key.declaredAt, default: 0]
            guard fromSite < KeyManifest.namesPerDeclaration else { continue }
            if merged.byName.count >= KeyManifest.maximumKeys {
                guard fromSite == 0, let (site, count) = namesBySite.max(by: { $0.value < $1.value }), count > 1,
                    let replaced = merged.byName.values.filter({ $0.declaredAt == site }).map(\.name).max()
                else { continue }
                merged.byName[replaced] = nil
                namesBySite[site] = count - 1
            }
            merged.byName[name] = key
            namesBySite[key.declaredAt] = fromSite + 1
        }
        return merged
    }
}

/// A value type's name and stored form, found once per type: an app that makes a key per item binds a
/// new name at each write, each with the type of the others.
enum DeclaredType {
    static func of(_ type: Any.Type) -> (name: String, form: StoredForm) {
        if let found = ProcessState.withState({ $0.declaredTypes[ObjectIdentifier(type)] }) { return found }
        let found = (String(describing: type), StoredForm.of(type))
        ProcessState.withState { $0.declaredTypes[ObjectIdentifier(type)] = found }
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
    /// of a suite costs. Past it, a key of a declaration the manifest has no name of replaces a name of the
    /// declaration with the most (the saver's record of declarations): an app's own keys are recorded
    /// before per-item ones.
    package static let maximumKeys = 1_000
    /// The most names recorded from one declaration: a helper function that makes an app's keys (each a
    /// declared key, recorded), or a key made in a loop or per item (`UserDefaultTypedKey<Int>("score-\(id)",
    /// ...)`, whose names are not an app's declared keys: those recorded check the others' form).
    package static let namesPerDeclaration = 32
    static let formatName = "typed-defaults key manifest"
    static let version = 1

    /// What a suite's manifest holds.
    package enum Contents: Sendable, Equatable {
        /// There is no manifest: no process using the library on this machine declared a key of the suite.
        case absent
        case keys(ManifestKeys)
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
        // Families are optional: a manifest written before them has none.
        guard let familyEntries = (document["families"] ?? [String: Any]()) as? [String: Any] else {
            return .unreadable("its families are not an object")
        }
        var keys = ManifestKeys()
        for (isFamily, entries) in [(false, entries), (true, familyEntries)] {
            for (name, entry) in entries {
                guard let entry = entry as? [String: Any], let type = entry["type"] as? String,
                    let declaredAt = entry["declaredAt"] as? String, let form = entry["form"].flatMap(form(from:))
                else { return .unreadable("its entry for \(name) is not a key") }
                keys.record(
                    DeclaredKey(
                        name: name, type: type, form: form, defaultValue: entry["default"] as? String,
                        declaredAt: declaredAt, isFamily: isFamily))
            }
        }
        return .keys(keys)
    }

    /// The manifest of `keys` (no families), as JSON text.
    package static func encode(_ keys: [String: DeclaredKey]) -> [UInt8] {
        encode(ManifestKeys(byName: keys))
    }

    /// The manifest of `keys`, as JSON text: keys sorted, two-space indents.
    package static func encode(_ keys: ManifestKeys) -> [UInt8] {
        func entries(_ keys: [String: DeclaredKey]) -> [String: Any] {
            keys.mapValues { key in
                var entry: [String: Any] = [
                    "type": key.type, "form": object(of: key.form), "declaredAt": key.declaredAt,
                ]
                if let defaultValue = key.defaultValue { entry["default"] = defaultValue }
                return entry
            }
        }
        var document: [String: Any] = ["manifest": formatName, "version": version, "keys": entries(keys.byName)]
        if !keys.families.isEmpty { document["families"] = entries(keys.families) }
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
