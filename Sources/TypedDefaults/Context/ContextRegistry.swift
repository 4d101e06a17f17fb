import Foundation

/// Every storage context of the process, found by suite name or by storage object: one context per
/// suite, however its stores were made; one per object for other storages, freed with the last user.
/// Each map is taken alone, never across file I/O or a user callback.
enum ContextRegistry {
    struct WeakContext {
        weak var context: StorageContext?
    }

    /// The two maps and the domains' key records, under one lock: taken alone, and never across file I/O
    /// or a user callback.
    struct Maps {
        /// By the name's Unicode scalars: two forms of one name are two suites, as they are two files.
        var bySuite: [ExactText: StorageContext] = [:]
        /// Weak, so that a storage nobody uses any more is freed; the context holds its storage, so
        /// while an entry's context lives no other object can take its identifier.
        var byObject: [ObjectIdentifier: WeakContext] = [:]
        /// The first key used with each stored name, for every `UserDefaults` storage: `UserDefaults`
        /// keeps registered defaults in one domain for the whole process, shared by every suite (see
        /// `NameBindings`).
        var domainKeyRecords = KeyRecords()
    }
    static let maps = Locked(Maps())

    /// The context of suite `suiteName`, or nil for a name that is not a plain file name, a suite whose
    /// file is there but not a regular file (Linux), or one `UserDefaults(suiteName:)` refuses.
    static func context(forSuite suiteName: String) -> StorageContext? {
        guard SuiteName.isPlainFileName(suiteName) else { return nil }
        let key = ExactText(suiteName)
        if let context = maps.withLockedValue({ $0.bySuite[key] }) { return context }
        // Made outside the map's lock, since making it looks at the suite's file; the first one in wins.
        guard Platform.isUsableSuite(suiteName), let defaults = UserDefaults(suiteName: suiteName) else {
            return nil
        }
        let made = StorageContext(storage: defaults, domain: .suite(suiteName))
        return maps.withLockedValue { maps in
            if let context = maps.bySuite[key] { return context }
            maps.bySuite[key] = made
            return made
        }
    }

    /// The context of `storage`: its suite's, for a `UserDefaults` whose suite the platform tells;
    /// else one per storage object.
    static func context(for storage: some KeyValueStorage) -> StorageContext {
        var domain: DefaultsDomain?
        if let domainStorage = storage as? any DomainStorage {
            domain = domainStorage.preferencesDomain
            switch domain {
            case .standard: return StorageContext.standard
            case .suite(let name): if let context = context(forSuite: name) { return context }
            default: break
            }
        }
        let identifier = ObjectIdentifier(storage)
        if let context = maps.withLockedValue({ $0.byObject[identifier]?.context }) { return context }
        let made = StorageContext(storage: storage, domain: domain)
        return maps.withLockedValue { maps in
            if let context = maps.byObject[identifier]?.context { return context }
            maps.byObject[identifier] = WeakContext(context: made)
            return made
        }
    }

    /// Forgets the entry of a freed context's storage, unless another context replaced it.
    static func forgetFreedContext(of identifier: ObjectIdentifier) {
        maps.withLockedValue { maps in
            if maps.byObject[identifier]?.context == nil { maps.byObject[identifier] = nil }
        }
    }
}
