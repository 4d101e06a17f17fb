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
    /// The suite name, when known: it names the file on Linux and the persistent domain.
    let domain: String?
    let persistence: Persistence?
    let observers = ObserverRegistry()
    /// The first key seen for each stored name. `UserDefaults` keeps registered defaults in one domain
    /// for the whole process, shared by every suite, so all `UserDefaults` storages share one record:
    /// two suites that give one name different defaults would show each other's default.
    private let keyRecords: Locked<[String: KeyRecord]>
    private static let userDefaultsKeyRecords = Locked<[String: KeyRecord]>([:])

    private init(storage: any KeyValueStorage, domain: String?) {
        self.storage = storage
        self.domain = domain
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

    /// What the first key of a stored name declared, to register its default once and to detect a
    /// second key that disagrees.
    struct KeyRecord {
        let valueType: Any.Type
        let defaultObject: Any?
        let description: String
    }

    /// Registers the key's default under `storedName` the first time the name is used with this
    /// storage, and reports a key whose type or default disagrees with the first one.
    func prepare<Value>(_ key: UserDefaultTypedKey<Value>, storedName: String) {
        let isFirstUse = keyRecords.withLock { records -> Bool in
            if let record = records[storedName] {
                if record.valueType != Value.self || !propertyListsEqual(record.defaultObject, key.defaultObject) {
                    ConflictReporting.report(name: storedName, first: record.description, second: key.description)
                }
                return false
            }
            records[storedName] = KeyRecord(
                valueType: Value.self, defaultObject: key.defaultObject, description: key.description)
            return true
        }
        if isFirstUse, let defaultObject = key.defaultObject {
            storage.register(defaults: [storedName: defaultObject])
        }
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
