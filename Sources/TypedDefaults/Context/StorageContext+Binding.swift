import Foundation

// Binding keys to names: a key's default is registered and checked once per name and type.
extension StorageContext {
    // MARK: Binding keys

    /// Registers `key`'s default under `storedName` the first time the name is used with the key's value
    /// type in this storage. Later calls cost one lookup: a key made anew on each access (a computed
    /// `static var`) is bound as a `static let` key is.
    ///
    /// Another key object with the same name and type (a computed key, made anew on each access, or a
    /// second declaration) is compared with the name's record by its default (see
    /// `checkAnotherKeyObject`). The name's registered default stays the first key's for the process:
    /// a key whose default differs reads through `object(forName:changedDefault:)` (so a read returns
    /// the default of the key it was given, on any thread, with no moment where it could see another's),
    /// and a second declaration that disagrees is reported.
    @discardableResult
    func bind<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) -> KeyBinding {
        // The stored name is the key's name after a prefix: of equal length only when there is none.
        let nameHash = storedName.utf8.count == key.name.utf8.count ? key.nameHash : storedName.hashValue
        let valueType = ObjectIdentifier(Value.self)
        let keyObject = ObjectIdentifier(key)
        let found = bindings.withLockedValue {
            bindings -> (tracked: any TrackedName, other: FirstKey?, changed: Bool)? in
            guard let bound = bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            if bound.firstKeyObject == keyObject { return (bound.tracked, nil, bound.defaultChanged) }
            return (bound.tracked, bound.first, bound.defaultChanged)
        }
        guard let found else {
            recordUses(CollectionOfOne((storedName, key)))
            // Another storage may have registered the name first (`UserDefaults` share one registration).
            let differs = keyRecords.withLockedValue { records in
                records[storedName].map { !$0.agreesOnDefault(with: key) } ?? false
            }
            // After the name's default is registered: Foundation's first read of a domain before
            // registrations made every later read of it slower.
            prepareDomain()
            let tracked = trackedNames.withLockedValue { names in
                if let tracked = names[storedName] { return tracked }
                let tracked = makeTrackedName()
                names[storedName] = tracked
                return tracked
            }
            // Once the name is tracked, a change saved elsewhere is brought in at once; one that came before
            // was put aside until now.
            if saver != nil { bringInDeferred(only: storedName) }
            return bindings.withLockedValue { bindings in
                // Another thread bound the name meanwhile, with another key object.
                if let bound = bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) {
                    guard differs else {
                        return KeyBinding(tracked: bound.tracked, defaultChanged: bound.defaultChanged)
                    }
                    bindings.update(storedName, nameHash: nameHash, valueType: valueType) { $0.defaultChanged = true }
                    return KeyBinding(tracked: bound.tracked, defaultChanged: true)
                }
                bindings.insert(
                    BoundName(
                        firstKeyObject: keyObject, tracked: tracked, first: FirstKey(key), defaultChanged: differs),
                    for: storedName, nameHash: nameHash, valueType: valueType)
                return KeyBinding(tracked: tracked, defaultChanged: differs)
            }
        }
        if let first = found.other, found.changed || !Self.sameDefault(first, key),
            checkAnotherKeyObject(key, as: storedName)
        {
            bindings.withLockedValue { bindings in
                bindings.update(storedName, nameHash: nameHash, valueType: valueType) { $0.defaultChanged = true }
            }
            return KeyBinding(tracked: found.tracked, defaultChanged: true)
        }
        return KeyBinding(tracked: found.tracked, defaultChanged: found.changed)
    }

    /// What the storage holds for `key` under `storedName`, as a read through the key sees it: bound,
    /// reported to Swift's Observation, and past another key object's default (see
    /// `object(forName:changedDefault:)`). One call that returns only the object: the hot path of a read.
    func read<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) -> Any? {
        let binding = bind(key, as: storedName)
        binding.tracked.access()
        return read(key, as: storedName, bound: binding)
    }

    /// What the storage holds for `key`, bound as `binding` says, without reporting the read.
    func read<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String, bound binding: KeyBinding) -> Any? {
        if binding.defaultChanged { return object(forName: storedName, changedDefault: key) }
        return storage.object(forKey: storedName)
    }

    /// What a read of `key` finds stored under `name` once key objects of the name have given more than
    /// one default (`KeyBinding.defaultChanged`): the storage's object, or nil where that is only the
    /// default another key registered, so that the read gives `key`'s own default. A value stored equal
    /// to the registered default costs a listing of the storage to tell from it (a backend that cannot
    /// list keeps the storage's answer).
    func object(forName name: String, changedDefault key: some AnyTypedKey) -> Any? {
        guard let object = storage.object(forKey: name) else { return nil }
        let record = keyRecords.withLockedValue { $0[name] }
        guard let record, let registered = record.defaultObject, !record.agreesOnDefault(with: key),
            !LaunchArguments.names.contains(name), propertyListsEqual(object, registered)
        else { return object }
        guard let stored = storedValues() else { return object }
        return stored[name]
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
        let (conflict, differs) = keyRecords.withLockedValue { records -> ((any AnyTypedKey)?, Bool) in
            guard let first = records[storedName] else {
                records[storedName] = key
                return (nil, false)
            }
            if first.agreesOnDefault(with: key) { return (nil, false) }
            if first.declaration == key.declaration, first.valueType == key.valueType { return (nil, true) }
            return (first.conflicts(with: key) ? first : nil, true)
        }
        if let conflict {
            ConflictReporting.report(name: storedName, first: conflict.description, second: key.description)
        }
        return differs
    }

    /// `name` as Swift's Observation sees it, or nil when nothing in this storage ever bound it (then
    /// nothing can have tracked a read of it).
    func trackedName(_ name: String) -> (any TrackedName)? {
        trackedNames.withLockedValue { $0[name] }
    }

    /// Records each key as a user of its stored name, and registers the defaults of the names new to this
    /// storage, all in one `register(defaults:)` call. A key whose type or default disagrees with its
    /// name's first key is reported.
    func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>) {
        let defaults = keyRecords.withLockedValue { records in
            var defaults: [String: Any] = [:]
            for (name, key) in uses {
                if let first = records[name] {
                    if first.conflicts(with: key) {
                        ConflictReporting.report(name: name, first: first.description, second: key.description)
                    }
                    continue
                }
                records[name] = key
                if let defaultObject = key.defaultObject { defaults[name] = defaultObject }
            }
            return defaults
        }
        if !defaults.isEmpty { storage.register(defaults: defaults) }
    }

    /// Stored names used with this storage in this process (for `UserDefaults`, with any suite), with
    /// their registered defaults.
    func registeredDefaults() -> [String: Any?] {
        keyRecords.withLockedValue { records in records.mapValues(\.defaultObject) }
    }
}

/// A name bound in a storage, as a read or write through a key finds it.
struct KeyBinding {
    /// The name as Swift's Observation sees it.
    let tracked: any TrackedName
    /// Whether key objects of the name have registered more than one default (a computed key whose
    /// default changed): a read then checks that what it finds is not another key object's default.
    let defaultChanged: Bool
}
