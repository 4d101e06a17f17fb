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
        names.binding(of: key, as: storedName) ?? bindFirst(key, as: storedName)
    }

    /// `bind`, the first time `storedName` is used with the key's value type here (another thread may
    /// bind it meanwhile: `NameBindings.bind` takes the first binding).
    func bindFirst<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) -> KeyBinding {
        recordUses(CollectionOfOne((storedName, key)))
        // Another storage may have registered the name first (`UserDefaults` share one registration).
        let differs = names.recordDisagrees(storedName, with: key)
        // After the name's default is registered: Foundation's first read of a domain before
        // registrations made every later read of it slower.
        let prepared = prepareDomain()
        let tracked = names.tracking(storedName)
        // Once the name is tracked, a change saved elsewhere is brought in at once; one that came before
        // was put aside until now.
        if let saver {
            log.bringInDeferred(only: storedName)
            saver.declare(from: key.declaration) { DeclaredKey(key, as: storedName) }
        }
        // A promised storage that reports changes (Apple's key-value observing): each bound name is
        // watched, so that another process's write moves the generation of kept reads.
        if log.externalStorage != nil, names.promisedOnlyLibraryWrites {
            log.reports.keepWatching(storedName, of: self, prepared)
        }
        return names.bind(
            key, as: storedName, nameHash: NameBindings.nameHash(of: storedName, for: key),
            valueType: ObjectIdentifier(Value.self), tracked: tracked, differs: differs, prepared)
    }

    /// What the storage holds for `key` under `storedName`, as a read through the key sees it: bound,
    /// reported to Swift's Observation, and past another key object's default (see
    /// `object(forName:changedDefault:)`). One call that returns only the object: the hot path of a read.
    func read<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) -> Any? {
        let binding = bind(key, as: storedName)
        binding.tracked.access()
        return read(key, as: storedName, bound: binding)
    }

    /// A typed read of `key` under `storedName`, reported to Swift's Observation: the value cached in the
    /// name's binding when nothing changed since it was read (`ReadCache`), else what the storage holds,
    /// with what it takes to cache the value read from it (nil where nothing may be cached: no
    /// generation, a computed default, a name whose key objects gave different defaults).
    func typedRead<Value>(
        _ key: UserDefaultTypedKey<Value>, as storedName: String, cached: inout AnyObject?, fill: inout CacheFill?
    ) -> Any? {
        // Only stores that keep reads come here (`DefaultsStore.keepsReads`). The object is the result,
        // not part of an enum: returned, it is moved, not copied.
        let storageGeneration = storageHasGeneration ? storage.valueGeneration : nil
        let nameHash = NameBindings.nameHash(of: storedName, for: key)
        let valueType = ObjectIdentifier(Value.self)
        let found = names.lookUpForRead(
            storedName, nameHash: nameHash, valueType: valueType, keyObject: ObjectIdentifier(key),
            storageGeneration: storageGeneration)
        switch found {
        case .hit(let tracked, let value, let check)?:
            tracked.access()
            guard check else {
                cached = value
                return nil
            }
            return checkedPromise(
                key, as: storedName, kept: value, nameHash: nameHash, valueType: valueType, cached: &cached)
        case .bound(let tracked, let other, let found, let prepared, let generation, let kept)?:
            let changed = names.defaultChanged(
                found, admitting: key, besides: other, as: storedName, nameHash: nameHash, valueType: valueType)
            tracked.access()
            // A read's binding: whether the name is ASCII is a write's concern (false: not known).
            let binding = KeyBinding(tracked: tracked, defaultChanged: changed, prepared: prepared, nameIsASCII: false)
            guard let generation, !changed, !key.hasComputedDefault else {
                return read(key, as: storedName, bound: binding)
            }
            if let kept {
                cached = kept
                return nil
            }
            fill = CacheFill(
                storedName: storedName, nameHash: nameHash, valueType: valueType, generation: generation,
                storageHasGeneration: storageGeneration != nil)
            return read(key, as: storedName, bound: binding)
        case nil:
            let binding = bindFirst(key, as: storedName)
            binding.tracked.access()
            return read(key, as: storedName, bound: binding)
        }
    }

    /// Debug builds, one cached read in `ReadCache.checkInterval` under the promise: the suite read as the
    /// plain API reads it must give the value kept. A difference is reported, and the suite's value given.
    private func checkedPromise<Value>(
        _ key: UserDefaultTypedKey<Value>, as storedName: String, kept box: AnyObject, nameHash: Int,
        valueType: ObjectIdentifier, cached: inout AnyObject?
    ) -> Any? {
        let object = storage.object(forKey: storedName)
        let stored = DefaultsStore.value(of: key, from: object)
        let kept = (box as? CachedValue<Value>)?.value
        guard !propertyListsEqual(kept?.userDefaultsObject, stored.userDefaultsObject, by: .exact) else {
            cached = box
            return nil
        }
        // A library write on another thread stores its value and moves the generation in one step of the
        // write order: once any step under way has ended, a kept value still current proves that no
        // library write explains the difference (before, a reader racing a writer reported a promise
        // broken that nobody broke: 499 reports in one test run).
        log.writeOrder.withLockedValue { _ in }
        guard names.isStillKept(box, for: storedName, nameHash: nameHash, valueType: valueType) else { return object }
        names.forgetCached(storedName, nameHash: nameHash, valueType: valueType)
        ErrorReporting.report(
            DefaultsError.promiseBroken(
                key: storedName, cached: kept.map { String(describing: $0) } ?? "nothing",
                stored: String(describing: object ?? "nothing")))
        return object
    }

    /// Keeps `value`, read as `fill` says, as the name's cached value, unless anything changed since.
    func install(_ value: AnyObject, _ fill: CacheFill) {
        names.install(
            value, for: fill.storedName, nameHash: fill.nameHash, valueType: fill.valueType,
            generation: fill.generation,
            storageGeneration: fill.storageHasGeneration ? storage.valueGeneration : nil)
    }

    /// What the storage holds for `key`, bound as `binding` says, without reporting the read.
    func read<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String, bound binding: KeyBinding) -> Any? {
        if binding.defaultChanged { return object(forName: storedName, changedDefault: key, binding.prepared) }
        return storage.object(forKey: storedName)
    }

    /// What a read of `key` finds stored under `name` once key objects of the name have given more than
    /// one default (`KeyBinding.defaultChanged`): the storage's object, or nil where that is only the
    /// default another key registered, so that the read gives `key`'s own default. A value stored equal
    /// to the registered default costs a listing of the storage to tell from it (a backend that cannot
    /// list keeps the storage's answer).
    func object(forName name: String, changedDefault key: some AnyTypedKey, _ prepared: DomainPrepared) -> Any? {
        guard let object = storage.object(forKey: name) else { return nil }
        let record = names.record(of: name)
        guard let record, let registered = record.defaultObject, !record.agreesOnDefault(with: key),
            !LaunchArguments.names.contains(name), propertyListsEqual(object, registered)
        else { return object }
        guard let stored = storedValues(prepared) else { return object }
        return stored[name]
    }

    // MARK: Reading what is stored

    /// Every stored value, without registered defaults and launch arguments, if the storage can list them.
    func storedValues(_ prepared: DomainPrepared) -> [String: Any]? {
        prepared.check(for: log)
        if saver != nil { log.bringInDeferred() }
        return log.listing()
    }

    /// The object stored for `name`, not counting registered defaults and launch arguments (see
    /// `KeyRecords.storedObject`): about the cost of one read wherever the library can tell without
    /// listing the storage; else the listing decides (for `UserDefaults`, a copy of the whole domain).
    func storedObject(forName name: String, _ prepared: DomainPrepared) -> Any? {
        prepared.check(for: log)
        var read = storage.object(forKey: name)
        // A value another process saved for a name this process had not used is put aside: in first.
        if read == nil, saver != nil {
            log.bringInDeferred(only: name)
            read = storage.object(forKey: name)
        }
        guard let object = read else { return nil }
        let known = saver.map { saver in
            { [log] in
                log.bringInDeferred(only: name)
                return saver.knownObject(forName: name)
            }
        }
        return KeyRecords.storedObject(
            object, forName: name, record: names.record(of: name), known: known, listing: { storedValues(prepared) })
    }

    /// Records each key as a user of its stored name, and registers the defaults of the names new to this
    /// storage, all in one `register(defaults:)` call. A key whose type or default disagrees with its
    /// name's first key is reported.
    func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>) {
        let defaults = names.recordUses(uses)
        if !defaults.isEmpty {
            storage.register(defaults: defaults)
            names.valuesChanged()
        }
    }

    /// Stored names used with this storage in this process (for `UserDefaults`, with any suite), with
    /// their registered defaults.
    func registeredDefaults() -> [String: Any?] {
        names.registeredDefaults()
    }
}
