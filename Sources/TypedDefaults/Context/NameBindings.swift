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

    /// The binding table, and the generation the cached values of a storage without one of its own are
    /// checked against (`ReadCache`).
    struct Table {
        /// Each name bound in this storage, as Swift's Observation sees it (shared by the value types a
        /// name is used with).
        var trackedNames: [String: any TrackedName] = [:]
        /// The first key used with each stored name, unless the process's are used (`withKeyRecords`).
        var keyRecords = KeyRecords()
        /// Moves at every change the library makes or hears of, once the app promised that in this process
        /// the storage changes only through the library; nil before (`promiseOnlyLibraryWrites`). The
        /// promise itself is the write order's (`WriteOrder.promisedOnlyLibraryWrites`), which tells this
        /// table of every change only under it (`valuesChanged`).
        var generation: UInt64?
        /// Debug builds: cached reads under the promise until the next is checked (`ReadCache.checkInterval`).
        var readsUntilCheck = 1

        fileprivate init() {}

        /// Proof that the table's lock is held, for what changes in a bound name (`BoundName`).
        var held: BindingsHeld {
            @inline(__always) get { BindingsHeld() }
        }

        // The bound names, each with its value type: an open-addressing table found by the hash a key
        // computed once for its name (`nameHash(of:for:)`), instead of a `Dictionary`, which runs the
        // name's hash through `Hasher` again on every lookup, the largest part of the library's share of
        // a read it would be (figures in Performance.md). Names are never removed: a storage binds each
        // name once.
        private struct Slot {
            let storedName: String
            let nameHash: Int
            let valueType: ObjectIdentifier
            let bound: BoundName
        }

        /// A power of two, at most half full, so that a search ends at an empty slot after a few steps.
        private var slots: [Slot?] = Array(repeating: nil, count: 16)
        private var count = 0

        /// The bound name `storedName` with `valueType`; `nameHash` is `storedName.hashValue`.
        func entry(for storedName: String, nameHash: Int, valueType: ObjectIdentifier) -> BoundName? {
            let mask = slots.count - 1
            var index = nameHash & mask
            while let slot = slots[index] {
                if slot.nameHash == nameHash, slot.valueType == valueType, slot.storedName == storedName {
                    return slot.bound
                }
                index = (index &+ 1) & mask
            }
            return nil
        }

        /// Every bound name.
        var storedNames: Set<String> {
            Set(slots.compactMap { $0?.storedName })
        }

        /// Binds a name and type that are not bound.
        mutating func insert(_ bound: BoundName, for storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
            if (count + 1) * 2 > slots.count {
                let old = slots
                slots = Array(repeating: nil, count: old.count * 2)
                count = 0
                for case let slot? in old {
                    insert(slot.bound, for: slot.storedName, nameHash: slot.nameHash, valueType: slot.valueType)
                }
            }
            let mask = slots.count - 1
            var index = nameHash & mask
            while slots[index] != nil { index = (index &+ 1) & mask }
            slots[index] = Slot(storedName: storedName, nameHash: nameHash, valueType: valueType, bound: bound)
            count += 1
        }
    }

    /// The hash `storedName`, `key`'s name in a storage, is found by: the key's, computed once, when the
    /// stored name is the key's name (no prefix: of equal length only then).
    @inline(__always)
    static func nameHash<Value>(of storedName: String, for key: UserDefaultTypedKey<Value>) -> Int {
        storedName.utf8.count == key.name.utf8.count ? key.nameHash : storedName.hashValue
    }

    /// `key`'s binding as `storedName`, when the name is bound with the key's value type: one lookup,
    /// the hot path of every write. Another key object of the name is compared with the name's record
    /// by its default (`checkAnotherKeyObject`). Nil: not bound yet (`StorageContext.bindFirst`).
    func binding<Value>(of key: UserDefaultTypedKey<Value>, as storedName: String) -> KeyBinding? {
        let nameHash = Self.nameHash(of: storedName, for: key)
        let valueType = ObjectIdentifier(Value.self)
        guard let found = lookUp(storedName, nameHash: nameHash, valueType: valueType, keyObject: ObjectIdentifier(key))
        else { return nil }
        let changed = defaultChanged(
            found.changed, admitting: key, besides: found.other, as: storedName, nameHash: nameHash,
            valueType: valueType)
        return KeyBinding(
            tracked: found.tracked, defaultChanged: changed, prepared: found.prepared, nameIsASCII: found.nameIsASCII)
    }

    /// Whether the default of bound name `storedName` changed (`changed`: as the lookup found it), once
    /// `key` is admitted: a key object other than `first`'s, the one that bound the name (nil: it is
    /// that one), is compared with the name's record by its default (`checkAnotherKeyObject`), and a
    /// default that differs marks the name.
    func defaultChanged<Value>(
        _ changed: Bool, admitting key: UserDefaultTypedKey<Value>, besides first: FirstKey?, as storedName: String,
        nameHash: Int, valueType: ObjectIdentifier
    ) -> Bool {
        guard let first, changed || !first.givesSameDefault(as: key), checkAnotherKeyObject(key, as: storedName)
        else { return changed }
        markDefaultChanged(storedName, nameHash: nameHash, valueType: valueType)
        return true
    }

    /// What the table holds for `storedName` with `valueType`: the tracked name, the first key when
    /// `keyObject` is another key object, and whether the name's default changed.
    func lookUp(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier, keyObject: ObjectIdentifier)
        -> (tracked: any TrackedName, other: FirstKey?, changed: Bool, prepared: DomainPrepared, nameIsASCII: Bool)?
    {
        table.withLockedValue { table in
            guard let bound = table.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            let changed = bound.defaultChanged(table.held)
            return (
                bound.tracked, bound.firstKeyObject == keyObject ? nil : bound.first, changed, bound.prepared,
                bound.nameIsASCII
            )
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
            guard let bound = table.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            let generation = storageGeneration ?? table.generation
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
            guard let bound = table.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return false
            }
            return bound.cached(at: table.generation, table.held) === value
        }
    }

    /// Forgets the cached value of `storedName` with `valueType` (a promise found broken).
    func forgetCached(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
        let forgotten = table.withLockedValue { table in
            table.entry(for: storedName, nameHash: nameHash, valueType: valueType)?.keep(
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
            let now = storageGeneration ?? table.generation
            guard now == generation,
                let bound = table.entry(for: storedName, nameHash: nameHash, valueType: valueType)
            else { return nil }
            return bound.keep(value, at: generation, table.held)
        }
        withExtendedLifetime(replaced) {}  // freed here, past the lock (`BoundName.keep`)
    }

    /// Every cached value is stale from now on: a change the library made or heard of, once the app
    /// promised that only the library changes the storage in this process.
    func valuesChanged() {
        table.withLockedValue { table in
            if let generation = table.generation { table.generation = generation &+ 1 }
        }
    }

    /// The app promised that in this process the storage changes only through the library: reads are
    /// cached against the table's generation from now on.
    func promiseOnlyLibraryWrites() {
        table.withLockedValue { table in
            table.generation = (table.generation ?? 0) &+ 1
        }
    }

    /// Every name bound here.
    func boundNames() -> Set<String> {
        table.withLockedValue { $0.storedNames }
    }

    /// Whether the app promised (`promiseOnlyLibraryWrites`): the table keeps a generation.
    var promisedOnlyLibraryWrites: Bool {
        table.withLockedValue { $0.generation != nil }
    }

    /// Binds `storedName` with `valueType` to `key` (tracked as `tracked`), unless another thread bound it
    /// meanwhile; `differs`: the key's default is not the name's registered one.
    func bind(
        _ key: some AnyTypedKey & AnyObject, as storedName: String, nameHash: Int, valueType: ObjectIdentifier,
        tracked: any TrackedName, differs: Bool, _ prepared: DomainPrepared
    ) -> KeyBinding {
        let nameIsASCII = isASCII(storedName)
        return table.withLockedValue { table in
            if let bound = table.entry(for: storedName, nameHash: nameHash, valueType: valueType) {
                if differs { bound.markDefaultChanged(table.held) }
                return KeyBinding(
                    tracked: bound.tracked, defaultChanged: bound.defaultChanged(table.held), prepared: prepared,
                    nameIsASCII: bound.nameIsASCII)
            }
            table.insert(
                BoundName(
                    firstKeyObject: ObjectIdentifier(key), tracked: tracked, first: FirstKey(key),
                    defaultChanged: differs, prepared: prepared, nameIsASCII: nameIsASCII),
                for: storedName, nameHash: nameHash, valueType: valueType)
            return KeyBinding(tracked: tracked, defaultChanged: differs, prepared: prepared, nameIsASCII: nameIsASCII)
        }
    }

    /// From now on every read of `storedName` with `valueType` tells a stored value from the registered
    /// default.
    func markDefaultChanged(_ storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
        table.withLockedValue { table in
            table.entry(for: storedName, nameHash: nameHash, valueType: valueType)?.markDefaultChanged(
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

    // MARK: The key records (`KeyRecords`), each call under their lock; conflicts reported past it

    /// The first key used with `name`, whose default is the registered one.
    func record(of name: String) -> (any AnyTypedKey)? {
        withKeyRecords { $0.first[name] }
    }

    /// Whether a record of `name` exists with a default other than `key`'s (`KeyRecords.disagree`).
    func recordDisagrees(_ name: String, with key: some AnyTypedKey) -> Bool {
        withKeyRecords { $0.disagree(on: name, with: key) }
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

    /// Admits `key`, another key object of a bound name (`KeyRecords.admit`), reporting a conflict;
    /// whether the key's default differs from the name's registered one.
    func checkAnotherKeyObject(_ key: some AnyTypedKey, as storedName: String) -> Bool {
        let (conflict, differs) = withKeyRecords { $0.admit(key, as: storedName) }
        if let conflict { Self.report([conflict]) }
        return differs
    }

    /// Records each key as a user of its stored name (`KeyRecords.recordUses`), reporting conflicts;
    /// returns the defaults of the names new here, for the caller to register in one call.
    func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>) -> [String: Any] {
        let (defaults, conflicts) = withKeyRecords { $0.recordUses(uses) }
        Self.report(conflicts)
        return defaults
    }

    private static func report(_ conflicts: [KeyRecords.Conflict]) {
        for (name, first, second) in conflicts {
            ConflictReporting.report(name: name, first: first.description, second: second.description)
        }
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
    /// Whether the name is known to be ASCII (`BoundName.nameIsASCII`); false: not known.
    let nameIsASCII: Bool
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
