import Foundation

/// What every store over one storage shares: the storage, the names bound in it, the observers, and
/// (on Linux) the persistence that saves its writes.
///
/// There is one context per suite name and one per storage object, so two stores over the same suite
/// see each other's registrations and notify each other's observers. A context lives as long as a store,
/// an observation or a wrapper over it does: `DefaultsStore(storage:)` stores that nobody holds any more
/// are freed with their storage and everything bound in it. Suite contexts live for the process, as
/// Foundation's own suites do.
final class StorageContext: @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); the rest is `let`
    // or guarded by a lock.
    let storage: any KeyValueStorage
    /// The suite name, when known: it names the file on Linux and the persistent domain.
    let domain: String?
    let persistence: Persistence?
    let observers = ObserverRegistry()
    /// Makes `modify` calls over this storage take turns.
    private let modifyLock = NSLock()

    /// The names bound in this storage by a read or write through a key, so that a key's default is
    /// registered and checked once per name and type, not on every access; each with the key object that
    /// bound it.
    private let bindings = Locked(BindingTable<BoundName>())
    /// A bound name: the key object that bound it first, and the name as Swift's Observation sees it.
    private struct BoundName {
        let firstKeyObject: ObjectIdentifier
        let tracked: any TrackedName
    }
    /// Each name bound in this storage, as Swift's Observation sees it (shared by the value types a name
    /// is used with).
    private let trackedNames = Locked<[String: any TrackedName]>([:])
    /// The first key used with each stored name. `UserDefaults` keeps registered defaults in one domain
    /// for the whole process, shared by every suite, so all `UserDefaults` storages share one record:
    /// two suites that give one name different defaults would show each other's default.
    private let keyRecords: Locked<[String: any AnyTypedKey]>
    private static let userDefaultsKeyRecords = Locked<[String: any AnyTypedKey]>([:])

    private init(storage: any KeyValueStorage, domain: String?) {
        self.storage = storage
        self.domain = domain
        keyRecords = storage is UserDefaults ? Self.userDefaultsKeyRecords : Locked([:])
        if let defaults = storage as? UserDefaults {
            persistence = Persistence.make(domain: domain, defaults: defaults)
        } else {
            persistence = nil
        }
        persistence?.onChangesSaved { [weak self] changes in self?.deliverChangesSavedElsewhere(changes) }
    }

    deinit {
        // Only contexts of `DefaultsStore(storage:)` are freed; forget the entry if nobody replaced it.
        let identifier = ObjectIdentifier(storage)
        Self.byObject.withLock { contexts in
            if contexts[identifier]?.context == nil { contexts[identifier] = nil }
        }
    }

    // MARK: Finding the context

    private struct WeakContext {
        weak var context: StorageContext?
    }

    private static let bySuite = Locked<[String: StorageContext]>([:])
    /// Weak, so that a storage nobody uses any more is freed; the context holds its storage, so while
    /// an entry's context lives no other object can take its identifier.
    private static let byObject = Locked<[ObjectIdentifier: WeakContext]>([:])

    /// The domain of `UserDefaults.standard`: the bundle identifier, else the process name.
    static let standardDomain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    static let standard = StorageContext(storage: UserDefaults.standard, domain: standardDomain)

    /// The context of suite `suiteName`, or nil for a name that is not a plain file name, a suite whose
    /// file is there but not a regular file (Linux), or one `UserDefaults(suiteName:)` refuses.
    static func forSuite(_ suiteName: String) -> StorageContext? {
        guard SuiteName.isPlainFileName(suiteName) else { return nil }
        return bySuite.withLock { contexts in
            if let context = contexts[suiteName] { return context }
            guard Persistence.suiteFileIsUsable(suiteName), let defaults = UserDefaults(suiteName: suiteName) else {
                return nil
            }
            let context = StorageContext(storage: defaults, domain: suiteName)
            contexts[suiteName] = context
            return context
        }
    }

    static func forStorage(_ storage: any KeyValueStorage) -> StorageContext {
        if storage === UserDefaults.standard { return standard }
        return byObject.withLock { contexts in
            let identifier = ObjectIdentifier(storage)
            if let context = contexts[identifier]?.context { return context }
            // A UserDefaults made by the caller: its suite name cannot be read back from it.
            let context = StorageContext(storage: storage, domain: nil)
            contexts[identifier] = WeakContext(context: context)
            return context
        }
    }

    // MARK: Binding keys

    /// Registers `key`'s default under `storedName` the first time the name is used with the key's value
    /// type in this storage. Later calls cost one lookup: a key made anew on each access (a computed
    /// `static var`) is bound as a `static let` key is.
    ///
    /// Another key object with the same name and type (a computed key, or a second `static let` key that
    /// may give the name another default) is checked against the first in debug builds, on every access,
    /// so that a developer sees the conflict; release builds keep the one lookup and leave that check to
    /// ``DefaultsStore/register(_:)`` and ``UserDefaultTypedKeys/conflicts(among:)``.
    @discardableResult
    func bind<Value>(_ key: UserDefaultTypedKey<Value>, as storedName: String) -> any TrackedName {
        // The stored name is the key's name after a prefix: of equal length only when there is none.
        let nameHash = storedName.utf8.count == key.name.utf8.count ? key.nameHash : storedName.hashValue
        let valueType = ObjectIdentifier(Value.self)
        let keyObject = ObjectIdentifier(key)
        guard let bound = bindings.withLock({ $0.entry(for: storedName, nameHash: nameHash, valueType: valueType) })
        else {
            persistence?.watch()
            recordUses(CollectionOfOne((storedName, key)))
            persistence?.loadOnce()
            let tracked = trackedNames.withLock { names in
                if let tracked = names[storedName] { return tracked }
                let tracked = makeTrackedName()
                names[storedName] = tracked
                return tracked
            }
            return bindings.withLock { bindings in
                if let bound = bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) {
                    return bound.tracked
                }
                bindings.insert(
                    BoundName(firstKeyObject: keyObject, tracked: tracked), for: storedName, nameHash: nameHash,
                    valueType: valueType)
                return tracked
            }
        }
        #if DEBUG
            if bound.firstKeyObject != keyObject { recordUses(CollectionOfOne((storedName, key))) }
        #endif
        return bound.tracked
    }

    /// `name` as Swift's Observation sees it, or nil when nothing in this storage ever bound it (then
    /// nothing can have tracked a read of it).
    func trackedName(_ name: String) -> (any TrackedName)? {
        trackedNames.withLock { $0[name] }
    }

    /// Records each key as a user of its stored name, and registers the defaults of the names new to this
    /// storage, all in one `register(defaults:)` call. A key whose type or default disagrees with its
    /// name's first key is reported.
    func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>) {
        let defaults = keyRecords.withLock { records in
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
        keyRecords.withLock { records in records.mapValues(\.defaultObject) }
    }

    // MARK: Writing

    /// Stores `object` under `name` (`nil` removes it) and, on Linux, records it for saving, as one step:
    /// the value and the record that it must be saved change together.
    func store(_ object: Any?, forName name: String) {
        if let persistence {
            persistence.store(object, forKey: name)
        } else if let object {
            storage.set(object, forKey: name)
        } else {
            storage.removeObject(forKey: name)
        }
    }

    /// Runs `body` so that no other `exclusively` over this storage runs meanwhile: in this process, and
    /// on Linux in any process that saves the suite (see `Persistence.exclusively`).
    func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
        modifyLock.lock()
        defer { modifyLock.unlock() }
        guard let persistence else { return try body() }
        return try persistence.exclusively(body)
    }

    /// Tells observers of values another process saved in the suite's file (Linux).
    private func deliverChangesSavedElsewhere(_ changes: [SavedChange]) {
        for change in changes {
            trackedName(change.name)?.change()
            ObserverRegistry.deliver(
                to: observers.observers(of: change.name), oldObject: change.oldObject, newObject: change.newObject)
        }
    }

    // MARK: Reading what is stored

    /// Every stored value, without registered defaults and launch arguments, if the storage can list them.
    func storedValues() -> [String: Any]? {
        if let persistence { return persistence.storedValues() }
        if let defaults = storage as? UserDefaults, let domain {
            return defaults.persistentDomain(forName: domain) ?? [:]
        }
        return storage.storedValues()
    }

    /// The object stored for `name`, not counting registered defaults. A backend that cannot list its
    /// values cannot tell a stored value equal to the registered default from the default itself.
    func storedObject(forName name: String) -> Any? {
        if let stored = storedValues() { return stored[name] }
        guard let object = storage.object(forKey: name) else { return nil }
        let defaultObject = keyRecords.withLock { $0[name]?.defaultObject }
        return propertyListsEqual(object, defaultObject) ? nil : object
    }
}
