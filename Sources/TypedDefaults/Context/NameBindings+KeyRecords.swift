import Foundation

// The key records: the first key used with each stored name, whose default is the registered one, and
// the names keys gave different defaults. Kept under the binding table's lock, or the process's for
// `UserDefaults` storages (`withKeyRecords`).
extension NameBindings {
    /// The first key used with each stored name (its default is the registered one), and the names a
    /// key used later gave another default.
    struct KeyRecords {
        var first: [String: any AnyTypedKey] = [:]
        /// Names whose registered default is not every key's: what the storage reads for them may be
        /// another key's default, so only a stored value is told to observers (`ChangeLog.observedObject`).
        var contested: Set<String> = []
    }

    /// The key that bound a name, held (a freed key's address may be given to the next key object
    /// made, which must not pass for it), with its default, which another key object of the name (a
    /// computed key) is compared with without a lock.
    final class FirstKey: @unchecked Sendable {
        // @unchecked: immutable; `key` and `defaultObject` are not `Sendable` types, but never change.
        let key: AnyObject
        let defaultObject: Any?
        let hasComputedDefault: Bool
        /// The key, where its value type has `==` and its default is given, not computed.
        let equatableKey: (any EquatableDefaultKey)?

        init(_ key: some AnyTypedKey & AnyObject) {
            self.key = key
            defaultObject = key.defaultObject
            hasComputedDefault = key.hasComputedDefault
            equatableKey = key.hasComputedDefault ? nil : key as? any EquatableDefaultKey
        }
    }
    /// The first key used with `name`, whose default is the registered one.
    func record(of name: String) -> (any AnyTypedKey)? {
        withKeyRecords { $0.first[name] }
    }

    /// `object`, what a read of `name` gave, when it is stored; nil when it is the name's registered
    /// default or a launch argument (`StorageContext.storedObject`). The record decides where it can: a
    /// value that is not a launch argument and differs from the registered default (or there is none) is
    /// stored. Else the saver's knowledge (`known`, Linux: what this process saved, what the file held)
    /// stands when it explains what was read (a plain-API write in this process, never saved, can make it
    /// not), and past that the storage's `listing`. A backend that cannot list its values cannot tell a
    /// stored value equal to the registered default from the default itself.
    func storedObject(
        _ object: Any, forName name: String, known: (() -> KnownObject)?, listing: () -> [String: Any]?
    ) -> Any? {
        let record = record(of: name)
        let isArgument = LaunchArguments.names.contains(name)
        if !isArgument, let record {
            if record.defaultObject == nil || !propertyListsEqual(object, record.defaultObject) { return object }
        }
        switch known?() {
        case .stored(let stored)? where propertyListsEqual(stored, object): return stored
        case .absent? where isArgument || record != nil: return nil
        default: break
        }
        if let stored = listing() { return stored[name] }
        return propertyListsEqual(object, record?.defaultObject) ? nil : object
    }

    /// Whether a record of `name` exists with a default other than `key`'s; the name is contested from
    /// then on.
    func recordDisagrees(_ name: String, with key: some AnyTypedKey) -> Bool {
        withKeyRecords { records in
            guard let first = records.first[name], !first.agreesOnDefault(with: key) else { return false }
            records.contested.insert(name)
            return true
        }
    }

    /// Whether keys of `name` gave it different defaults (`recordDisagrees`, `checkAnotherKeyObject`).
    func isContested(_ name: String) -> Bool {
        withKeyRecords { $0.contested.contains(name) }
    }

    /// Whether `object` is the default the library registered for `name`.
    func isRegisteredDefault(_ object: Any?, forName name: String) -> Bool {
        guard let object, let record = record(of: name) else { return false }
        return propertyListsEqual(object, record.defaultObject)
    }

    /// Whether `key` gives its name the default `first` gave it: by the value type's `==` where it has
    /// one (the common case costs that), else by property list. Two computed defaults are taken as one.
    static func sameDefault<Value>(_ first: FirstKey, _ key: UserDefaultTypedKey<Value>) -> Bool {
        if !key.hasComputedDefault, first.equatableKey?.hasSameGivenDefault(as: key) == true { return true }
        return defaultsAgree(
            computed: first.hasComputedDefault, first.defaultObject, computed: key.hasComputedDefault, key.defaultObject
        )
    }

    /// A key object for a bound name other than the one that bound it, whose default differs from that
    /// key's. Another default from the same declaration (a computed `static var` whose default changes
    /// while the app runs) is allowed; another declaration that disagrees is a conflict, reported.
    /// Returns whether the key's default differs from the name's registered one: its reads must then
    /// tell a stored value from that default. The registration itself never changes, so no read can
    /// see another key's default in the middle of a change.
    func checkAnotherKeyObject(_ key: some AnyTypedKey, as storedName: String) -> Bool {
        let (conflict, differs) = withKeyRecords { records -> ((any AnyTypedKey)?, Bool) in
            guard let first = records.first[storedName] else {
                records.first[storedName] = key
                return (nil, false)
            }
            if first.agreesOnDefault(with: key) { return (nil, false) }
            records.contested.insert(storedName)
            if first.declaration == key.declaration, first.valueType == key.valueType { return (nil, true) }
            return (first.conflicts(with: key) ? first : nil, true)
        }
        if let conflict {
            ConflictReporting.report(name: storedName, first: conflict.description, second: key.description)
        }
        return differs
    }

    /// Records each key as a user of its stored name; returns the defaults of the names new here, for
    /// the caller to register in one call. A key whose type or default disagrees with its name's first
    /// key is reported.
    func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>) -> [String: Any] {
        var conflicts: [(name: String, first: any AnyTypedKey, second: any AnyTypedKey)] = []
        let defaults = withKeyRecords { records in
            var defaults: [String: Any] = [:]
            for (name, key) in uses {
                if let first = records.first[name] {
                    if first.conflicts(with: key) { conflicts.append((name, first, key)) }
                    continue
                }
                records.first[name] = key
                if let defaultObject = key.defaultObject { defaults[name] = defaultObject }
            }
            return defaults
        }
        // Reported with the lock released: a description may print the app's values.
        for (name, first, second) in conflicts {
            ConflictReporting.report(name: name, first: first.description, second: second.description)
        }
        return defaults
    }

    /// Stored names used with this storage in this process (for `UserDefaults`, with any suite), with
    /// their registered defaults.
    func registeredDefaults() -> [String: Any?] {
        withKeyRecords { records in records.first.mapValues(\.defaultObject) }
    }
}
