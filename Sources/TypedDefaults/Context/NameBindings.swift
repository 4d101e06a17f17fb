import Foundation

/// The names bound in one storage: each with the key object that bound it, the name as Swift's
/// Observation sees it, and the first key used with it (its registered default). A key's default is
/// registered and checked once per name and type, not on every access.
///
/// One leaf lock, taken alone: the binding table every read and write looks a key up in, with the tracked
/// names and the key records; `UserDefaults` storages share one key record for the process, kept with
/// the process's contexts (`ContextRegistry.Maps`).
final class NameBindings: @unchecked Sendable {
    // @unchecked: the tables hold key objects and tracked names, reached only under their locks.

    /// Each name bound by a read or write through a key, with its value type and the key object that
    /// bound it.
    private let table = Locked(Table())
    /// Whether the key records are the process's (`ContextRegistry.Maps.domainKeyRecords`), not the
    /// table's: `UserDefaults` keeps registered defaults in one domain for the whole process, shared by
    /// every suite, so all `UserDefaults` storages share one record (two suites that give one name
    /// different defaults would show each other's default).
    private let sharesDomainKeyRecords: Bool

    init(sharesDomainKeyRecords: Bool) {
        self.sharesDomainKeyRecords = sharesDomainKeyRecords
    }

    /// `body` with the key records, under their lock.
    private func withKeyRecords<Result>(_ body: (inout KeyRecords) throws -> Result) rethrows -> Result {
        if sharesDomainKeyRecords { return try ContextRegistry.maps.withLockedValue { try body(&$0.domainKeyRecords) } }
        return try table.withLockedValue { try body(&$0.keyRecords) }
    }

    /// The first key used with each stored name (its default is the registered one), and the names a
    /// key used later gave another default.
    struct KeyRecords {
        var first: [String: any AnyTypedKey] = [:]
        /// Names whose registered default is not every key's: what the storage reads for them may be
        /// another key's default, so only a stored value is told to observers (`ChangeLog.observedObject`).
        var contested: Set<String> = []
    }

    /// The binding table, and the generation the cached values of a storage without one of its own are
    /// checked against (`ReadCache`).
    struct Table {
        var bindings = BindingTable<BoundName>()
        /// Each name bound in this storage, as Swift's Observation sees it (shared by the value types a
        /// name is used with).
        var trackedNames: [String: any TrackedName] = [:]
        /// The first key used with each stored name, unless the process's are used (`withKeyRecords`).
        var keyRecords = KeyRecords()
        /// Moves at every change the library makes or hears of, once the app promised that in this process
        /// the storage changes only through the library (`promisedOnlyLibraryWrites`).
        var generation: UInt64 = 0
        var promisedOnlyLibraryWrites = false
        /// Debug builds: cached reads under the promise until the next is checked (`ReadCache.checkInterval`).
        var readsUntilCheck = 1

        fileprivate init() {}

        /// Proof that the table's lock is held, for what changes in a bound name (`BoundName`).
        var held: BindingsHeld {
            @inline(__always) get { BindingsHeld() }
        }
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
    /// What the table holds for `storedName` with `valueType`: the tracked name, the first key when
    /// `keyObject` is another key object, and whether the name's default changed.
    func lookUp(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier, keyObject: ObjectIdentifier)
        -> (tracked: any TrackedName, other: FirstKey?, changed: Bool, prepared: DomainPrepared)?
    {
        table.withLockedValue { table in
            guard let bound = table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            let changed = bound.defaultChanged(table.held)
            return (bound.tracked, bound.firstKeyObject == keyObject ? nil : bound.first, changed, bound.prepared)
        }
    }

    /// What a read finds of a bound name (`lookUpForRead`).
    enum ReadLookup {
        /// The key that bound the name, its value cached at the generation values are read at now.
        case hit(tracked: any TrackedName, value: AnyObject, check: Bool)
        /// Anything else: as `lookUp` gives, the generation values are read at now (nil: nothing is
        /// cached), and the value cached at it, if any (for another key object, once its default is
        /// known to be the name's).
        case bound(
            tracked: any TrackedName, other: FirstKey?, changed: Bool, prepared: DomainPrepared, generation: UInt64?,
            cached: AnyObject?)
    }

    /// As `lookUp`, for a read: with the generation values are read at now (`storageGeneration`, the
    /// storage's own, else the table's once the app promised; nil: no cache), and the name's cached value
    /// if it was read at that generation. Nil: the name is not bound.
    func lookUpForRead(
        _ storedName: String, nameHash: Int, valueType: ObjectIdentifier, keyObject: ObjectIdentifier,
        storageGeneration: UInt64?
    ) -> ReadLookup? {
        table.withLockedValue { table in
            guard let bound = table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            let generation = storageGeneration ?? (table.promisedOnlyLibraryWrites ? table.generation : nil)
            let cached = bound.cached(at: generation, table.held)
            let changed = bound.defaultChanged(table.held)
            guard let value = cached, bound.firstKeyObject == keyObject, !changed else {
                return .bound(
                    tracked: bound.tracked, other: bound.firstKeyObject == keyObject ? nil : bound.first,
                    changed: changed, prepared: bound.prepared, generation: generation, cached: cached)
            }
            var check = false
            #if DEBUG
                // Only a promise is checked: a storage's own generation is proof.
                if storageGeneration == nil, let interval = ReadCache.checkInterval {
                    table.readsUntilCheck -= 1
                    if table.readsUntilCheck <= 0 {
                        table.readsUntilCheck = interval
                        check = true
                    }
                }
            #endif
            return .hit(tracked: bound.tracked, value: value, check: check)
        }
    }

    /// Whether `value` is still the cached value of `storedName` with `valueType` at the current
    /// generation: no change through the library since it was kept.
    func isStillKept(_ value: AnyObject, for storedName: String, nameHash: Int, valueType: ObjectIdentifier) -> Bool {
        table.withLockedValue { table in
            guard let bound = table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return false
            }
            return bound.cached(at: table.generation, table.held) === value
        }
    }

    /// Forgets the cached value of `storedName` with `valueType` (a promise found broken).
    func forgetCached(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
        let forgotten = table.withLockedValue { table in
            table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType)?.keep(
                nil, at: 0, table.held)
        }
        withExtendedLifetime(forgotten) {}  // freed here, past the lock (`BoundName.keep`)
    }

    /// Keeps `value` as the name's cached value, read at `generation`, unless the generation has moved
    /// since (the value may be older than a change made meanwhile).
    func install(
        _ value: AnyObject, for storedName: String, nameHash: Int, valueType: ObjectIdentifier, generation: UInt64,
        storageGeneration: UInt64?
    ) {
        let replaced = table.withLockedValue { table -> AnyObject? in
            let now = storageGeneration ?? (table.promisedOnlyLibraryWrites ? table.generation : nil)
            guard now == generation,
                let bound = table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType)
            else { return nil }
            return bound.keep(value, at: generation, table.held)
        }
        withExtendedLifetime(replaced) {}  // freed here, past the lock (`BoundName.keep`)
    }

    /// Every cached value is stale from now on: a change the library made or heard of, once the app
    /// promised that only the library changes the storage in this process.
    func valuesChanged() {
        table.withLockedValue { table in
            if table.promisedOnlyLibraryWrites { table.generation &+= 1 }
        }
    }

    /// The app promised that in this process the storage changes only through the library: reads are
    /// cached against the table's generation from now on.
    func promiseOnlyLibraryWrites() {
        table.withLockedValue { table in
            table.promisedOnlyLibraryWrites = true
            table.generation &+= 1
        }
    }

    /// Every name bound here.
    func boundNames() -> Set<String> {
        table.withLockedValue { $0.bindings.storedNames }
    }

    var promisedOnlyLibraryWrites: Bool {
        table.withLockedValue { $0.promisedOnlyLibraryWrites }
    }

    /// Binds `storedName` with `valueType` to `key` (tracked as `tracked`), unless another thread bound it
    /// meanwhile; `differs`: the key's default is not the name's registered one.
    func bind(
        _ key: some AnyTypedKey & AnyObject, as storedName: String, nameHash: Int, valueType: ObjectIdentifier,
        tracked: any TrackedName, differs: Bool, _ prepared: DomainPrepared
    ) -> KeyBinding {
        table.withLockedValue { table in
            if let bound = table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) {
                guard differs else {
                    return KeyBinding(
                        tracked: bound.tracked, defaultChanged: bound.defaultChanged(table.held), prepared: prepared)
                }
                bound.markDefaultChanged(table.held)
                return KeyBinding(tracked: bound.tracked, defaultChanged: true, prepared: prepared)
            }
            table.bindings.insert(
                BoundName(
                    firstKeyObject: ObjectIdentifier(key), tracked: tracked, first: FirstKey(key),
                    defaultChanged: differs, prepared: prepared),
                for: storedName, nameHash: nameHash, valueType: valueType)
            return KeyBinding(tracked: tracked, defaultChanged: differs, prepared: prepared)
        }
    }

    /// From now on every read of `storedName` with `valueType` tells a stored value from the registered
    /// default.
    func markDefaultChanged(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
        table.withLockedValue { table in
            table.bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType)?.markDefaultChanged(
                table.held)
        }
    }

    /// `name` as Swift's Observation sees it, or nil when nothing in this storage ever bound it (then
    /// nothing can have tracked a read of it).
    func trackedName(_ name: String) -> (any TrackedName)? {
        table.withLockedValue { $0.trackedNames[name] }
    }

    /// `name` as Swift's Observation sees it, made on its first use.
    func tracking(_ name: String) -> any TrackedName {
        table.withLockedValue { table in
            if let tracked = table.trackedNames[name] { return tracked }
            let tracked = makeTrackedName()
            table.trackedNames[name] = tracked
            return tracked
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

/// A name bound in a storage, as a read or write through a key finds it.
struct KeyBinding {
    /// The name as Swift's Observation sees it.
    let tracked: any TrackedName
    /// Whether key objects of the name have registered more than one default (a computed key whose
    /// default changed): a read then checks that what it finds is not another key object's default.
    let defaultChanged: Bool
    /// The name is bound, so the domain is prepared: operations that need it can go on.
    let prepared: DomainPrepared
}

/// The names `UserDefaults` may hold a launch argument for (`-name value`): any argument that starts
/// with a dash, a few more than Foundation reads, so that a name here may have one.
enum LaunchArguments {
    static let names: Set<String> = Set(
        CommandLine.arguments.dropFirst().lazy.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
}

/// Proof that a storage's binding table is locked (`NameBindings.Table.held`): what changes in a bound
/// name is reached only with it.
struct BindingsHeld: ~Copyable {
    fileprivate init() {}
}
