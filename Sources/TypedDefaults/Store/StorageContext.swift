import Foundation

/// What every store over one storage shares: the storage, which names have registered defaults,
/// the observers, and (on Linux) the persistence that saves its writes.
///
/// There is one context per suite name and one per storage object, so two stores over the same suite
/// see each other's registrations and notify each other's observers.
@usableFromInline
final class StorageContext: @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); the rest is `let`
    // or guarded by a lock.
    @usableFromInline let storage: any KeyValueStorage
    /// `storage` when it is an ``InMemoryStorage``, which keys read through readers of their own.
    let inMemory: InMemoryStorage?
    /// The suite name, when known: it names the file on Linux and the persistent domain.
    let domain: String?
    let persistence: Persistence?
    let observers = ObserverRegistry()
    /// The first key used with each stored name. `UserDefaults` keeps registered defaults in one domain
    /// for the whole process, shared by every suite, so all `UserDefaults` storages share one record:
    /// two suites that give one name different defaults would show each other's default.
    private let keyRecords: Locked<[String: any AnyTypedKey]>
    private static let userDefaultsKeyRecords = Locked<[String: any AnyTypedKey]>([:])

    private init(storage: any KeyValueStorage, domain: String?) {
        self.storage = storage
        self.domain = domain
        inMemory = storage as? InMemoryStorage
        keyRecords = storage is UserDefaults ? Self.userDefaultsKeyRecords : Locked([:])
        if let defaults = storage as? UserDefaults {
            persistence = Persistence.make(domain: domain, defaults: defaults)
        } else {
            persistence = nil
        }
    }

    // MARK: Finding the context

    private static let bySuite = Locked<[String: StorageContext]>([:])
    private static let byObject = Locked<[ObjectIdentifier: StorageContext]>([:])

    static let standard = StorageContext(
        storage: UserDefaults.standard,
        domain: Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName)

    static func forSuite(_ suiteName: String) -> StorageContext? {
        bySuite.withLock { contexts in
            if let context = contexts[suiteName] { return context }
            guard let defaults = UserDefaults(suiteName: suiteName) else { return nil }
            let context = StorageContext(storage: defaults, domain: suiteName)
            contexts[suiteName] = context
            return context
        }
    }

    static func forStorage(_ storage: any KeyValueStorage) -> StorageContext {
        if storage === UserDefaults.standard { return standard }
        return byObject.withLock { contexts in
            let identifier = ObjectIdentifier(storage)
            if let context = contexts[identifier] { return context }
            // A UserDefaults made by the caller: its suite name cannot be read back from it.
            let context = StorageContext(storage: storage, domain: nil)
            contexts[identifier] = context
            return context
        }
    }

    // MARK: Registration

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

    // MARK: Reading what is stored

    /// Every stored value, without registered defaults and launch arguments, if the storage can list them.
    func storedValues() -> [String: Any]? {
        if let defaults = storage as? UserDefaults, let domain {
            var values = defaults.persistentDomain(forName: domain) ?? [:]
            persistence?.applyChanges(to: &values)
            return values
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

/// Whether two property-list objects are equal, compared structurally (dictionary order does not count).
func propertyListsEqual(_ first: Any?, _ second: Any?) -> Bool {
    guard let first = first.flatMap(unboxed), let second = second.flatMap(unboxed) else {
        return first.flatMap(unboxed) == nil && second.flatMap(unboxed) == nil
    }
    switch (first, second) {
    case (let first as String, let second as String): return first == second
    case (let first as Bool, let second as Bool): return first == second
    case (let first as Date, let second as Date): return first == second
    case (let first as Data, let second as Data): return first == second
    case (let first as [Any], let second as [Any]):
        return first.count == second.count && zip(first, second).allSatisfy(propertyListsEqual)
    case (let first as [String: Any], let second as [String: Any]):
        return first.count == second.count
            && first.allSatisfy { key, value in second[key].map { propertyListsEqual(value, $0) } ?? false }
    default:
        if let first: Int64 = exactInteger(first), let second: Int64 = exactInteger(second) { return first == second }
        if let first = exactDouble(first), let second = exactDouble(second) { return first == second }
        return false
    }
}
