import Foundation

/// What every store over one storage shares: the storage, the names bound in it, the observers, the
/// order of its changes and (on Linux) the saver that saves its writes.
///
/// One context per suite, however its stores were made: `DefaultsStore(suiteName: "S")` and
/// `DefaultsStore(storage: UserDefaults(suiteName: "S")!)` share one, where the platform tells a
/// `UserDefaults`' suite (Linux; on Apple platforms only `UserDefaults.standard` is recognized). Other
/// storages get one context per object, freed with the last store, observation or wrapper over it.
/// Suite contexts live for the process, as Foundation's own suites do.
final class StorageContext: SavedChangeReceiver, @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); every other field is
    // a `let`, and the mutable state lives in the lock-owning types they hold.
    let storage: any KeyValueStorage
    /// The `UserDefaults` domain, for a `UserDefaults` storage.
    let domain: DefaultsDomain?
    /// Saves the storage's writes where the platform does not (Linux); nil elsewhere and for other
    /// storages. The context's one seam to the platform.
    let saver: (any DomainSaver)?
    let observers = ObserverRegistry()
    /// Makes `modify` calls over this storage take turns.
    let modifyLock = RankedLock(.modify)
    /// The storage's order of changes and the state it guards (`ChangeOrder`): a value, the saver's
    /// record that it must be saved and the change's number change together (lock order: `LockRank`).
    let order = RankedLocked(.writeOrder, ChangeOrder())
    /// The storage, when it reports changes made by other means than the library's writes.
    let externalStorage: (any ExternallyChangingStorage)?
    /// The storage, when its values live in a domain of the platform's preferences (`UserDefaults`).
    let domainStorage: (any DomainStorage)?
    /// Names reported changed while the write order was taken, to be read again on `reportQueue`.
    let reportsToReadAgain = Locked<Set<String>>([])
    /// Where reports that could not take the write order at once are read again: one queue for the
    /// process, in the order they came.
    static let reportQueue = DispatchQueue(label: "TypedDefaults.externalChanges")
    /// The thread storing a value while a name is watched: a report from inside that `set` (key-value
    /// observing reports every `set`, on the writing thread) is the write's own echo.
    /// With the name it stores: a report of another name from inside that `set` is not the echo.
    let writingThread = Locked<(thread: ObjectIdentifier, name: String)?>(nil)

    /// The names bound in this storage by a read or write through a key, so that a key's default is
    /// registered and checked once per name and type, not on every access; each with the key object that
    /// bound it.
    let bindings = Locked(BindingTable<BoundName>())
    /// A bound name: the key object that bound it first, and the name as Swift's Observation sees it.
    struct BoundName {
        let firstKeyObject: ObjectIdentifier
        let tracked: any TrackedName
        let first: FirstKey
        /// Set once a key object of the name gave a default other than the registered one: from then on
        /// every read of the name tells a stored value from that default, and every other key object is
        /// compared with the name's record.
        var defaultChanged: Bool
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
    /// Each name bound in this storage, as Swift's Observation sees it (shared by the value types a name
    /// is used with).
    let trackedNames = Locked<[String: any TrackedName]>([:])
    /// The first key used with each stored name. `UserDefaults` keeps registered defaults in one domain
    /// for the whole process, shared by every suite, so all `UserDefaults` storages share one record:
    /// two suites that give one name different defaults would show each other's default.
    let keyRecords: Locked<[String: any AnyTypedKey]>
    static let domainKeyRecords = Locked<[String: any AnyTypedKey]>([:])

    private init(storage: any KeyValueStorage, domain: DefaultsDomain?) {
        self.storage = storage
        self.domain = domain
        externalStorage = storage as? any ExternallyChangingStorage
        let domainStorage = storage as? any DomainStorage
        self.domainStorage = domainStorage
        // Registered defaults are one per process for every domain (`UserDefaults`' registration domain).
        keyRecords = domainStorage != nil ? Self.domainKeyRecords : Locked([:])
        saver = domain.flatMap { domainStorage?.makeSaver(for: $0) }
        if externalStorage != nil {
            observers.onFirstAndLastObserver { [weak self] name, _ in self?.watchExternalChanges(of: name) }
        }
    }

    deinit {
        // Only contexts of `DefaultsStore(storage:)` are freed; forget the entry if nobody replaced it.
        let identifier = ObjectIdentifier(storage)
        Self.byObject.withLockedValue { contexts in
            if contexts[identifier]?.context == nil { contexts[identifier] = nil }
        }
    }

    // MARK: Finding the context

    struct WeakContext {
        weak var context: StorageContext?
    }

    /// Taken alone, and never across file I/O or a user callback.
    /// By the name's Unicode scalars: two forms of one name are two suites, as they are two files.
    static let bySuite = Locked<[ExactText: StorageContext]>([:])
    /// Weak, so that a storage nobody uses any more is freed; the context holds its storage, so while
    /// an entry's context lives no other object can take its identifier.
    static let byObject = Locked<[ObjectIdentifier: WeakContext]>([:])

    /// The domain of `UserDefaults.standard`: the bundle identifier, else the process name.
    static let standardDomain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    static let standard = StorageContext(storage: UserDefaults.standard, domain: .standard)

    /// The context of suite `suiteName`, or nil for a name that is not a plain file name, a suite whose
    /// file is there but not a regular file (Linux), or one `UserDefaults(suiteName:)` refuses.
    static func forSuite(_ suiteName: String) -> StorageContext? {
        guard SuiteName.isPlainFileName(suiteName) else { return nil }
        let key = ExactText(suiteName)
        if let context = bySuite.withLockedValue({ $0[key] }) { return context }
        // Made outside the map's lock, since making it looks at the suite's file; the first one in wins.
        guard Platform.isUsableSuite(suiteName), let defaults = UserDefaults(suiteName: suiteName) else {
            return nil
        }
        let made = StorageContext(storage: defaults, domain: .suite(suiteName))
        return bySuite.withLockedValue { contexts in
            if let context = contexts[key] { return context }
            contexts[key] = made
            return made
        }
    }

    /// The context of `storage`: its suite's, for a `UserDefaults` whose suite the platform tells;
    /// else one per storage object.
    static func forStorage(_ storage: some KeyValueStorage) -> StorageContext {
        var domain: DefaultsDomain?
        if let domainStorage = storage as? any DomainStorage {
            domain = domainStorage.preferencesDomain
            switch domain {
            case .standard: return .standard
            case .suite(let name): if let context = forSuite(name) { return context }
            default: break
            }
        }
        let identifier = ObjectIdentifier(storage)
        if let context = byObject.withLockedValue({ $0[identifier]?.context }) { return context }
        let made = StorageContext(storage: storage, domain: domain)
        return byObject.withLockedValue { contexts in
            if let context = contexts[identifier]?.context { return context }
            contexts[identifier] = WeakContext(context: made)
            return made
        }
    }

    // MARK: Preparing the domain

    /// Makes the domain ready for use, once per process (Linux: watched for other processes' saves, and
    /// read by Foundation, whose listing of a domain it has not read yet is empty for good). The one
    /// path to a prepared domain: binding a name calls it, and so does every operation that reaches the
    /// storage without binding (listings, removal, `flush`, `modify`, `sync`, watches), before it takes
    /// any lock of the context's.
    func prepareDomain() {
        saver?.prepare(receivingIn: self)
    }
}
