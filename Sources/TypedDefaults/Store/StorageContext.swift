import Foundation

/// Which `UserDefaults` domain a storage is: the standard one, a suite, or one the library cannot name
/// (a `UserDefaults` made by the caller, on a platform that does not tell its suite).
enum DefaultsDomain: Equatable, Sendable {
    case standard
    case suite(String)
    case unknown

    /// The domain's name, as files and errors name it.
    var name: String {
        switch self {
        case .standard: StorageContext.standardDomain
        case .suite(let name): name
        case .unknown: "?"
        }
    }
}

/// What every store over one storage shares: the storage, the names bound in it, the observers, the
/// order of its changes and (on Linux) the saver that saves its writes.
///
/// One context per suite, however its stores were made: `DefaultsStore(suiteName: "S")` and
/// `DefaultsStore(storage: UserDefaults(suiteName: "S")!)` share one, where the platform tells a
/// `UserDefaults`' suite (Linux; on Apple platforms only `UserDefaults.standard` is recognized). Other
/// storages get one context per object, freed with the last store, observation or wrapper over it.
/// Suite contexts live for the process, as Foundation's own suites do.
final class StorageContext: SavedChangeReceiver, @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); `sequence` is
    // guarded by `writeOrder`; the rest is `let` or guarded by a lock.
    let storage: any KeyValueStorage
    /// The `UserDefaults` domain, for a `UserDefaults` storage.
    let domain: DefaultsDomain?
    /// Saves the storage's writes where the platform does not (Linux); nil elsewhere and for other
    /// storages. The context's one seam to the platform.
    let saver: (any DomainSaver)?
    let observers = ObserverRegistry()
    /// Makes `modify` calls over this storage take turns.
    private let modifyLock = NSLock()
    /// Orders the storage's changes: a value, the saver's record that it must be saved and the change's
    /// sequence number change together (lock order: see `LinuxSaver`).
    private let writeOrder = NSLock()
    /// The number of the last change announced; guarded by `writeOrder`.
    private var sequence: UInt64 = 0
    /// Values other processes saved for names this process has not used (no key bound them and the
    /// storage does not hold them): brought in when a key first uses the name, or the suite is listed.
    /// Guarded by `writeOrder`.
    private var deferred: [ExactText: Any] = [:]
    /// The storage, when it reports changes made by other means than the library's writes.
    private let externalStorage: (any ExternallyChangingStorage)?
    /// Names watched for such changes (those with an observer), each with its watch and the object
    /// observers last heard of. Guarded by `writeOrder`.
    private var externalWatches: [String: (watch: any ExternalChangeWatch, last: Any?)] = [:]
    /// Syncs the names chosen by `sync` through a cloud; nil until then. Guarded by `writeOrder`.
    private var cloudSync: CloudSync?
    /// Names watched for Swift's Observation whether or not they have observers, for the context's life:
    /// Observation does not tell when a tracking ends. Guarded by `writeOrder`.
    private var watchedForObservation: Set<String> = []
    /// Names reported changed while the write order was taken, to be read again on `reportQueue`.
    private let reportsToReadAgain = Locked<Set<String>>([])
    /// Where reports that could not take the write order at once are read again: one queue for the
    /// process, in the order they came.
    private static let reportQueue = DispatchQueue(label: "TypedDefaults.externalChanges")
    /// The thread storing a value while a name is watched: a report from inside that `set` (key-value
    /// observing reports every `set`, on the writing thread) is the write's own echo.
    /// With the name it stores: a report of another name from inside that `set` is not the echo.
    private let writingThread = Locked<(thread: ObjectIdentifier, name: String)?>(nil)

    /// The names bound in this storage by a read or write through a key, so that a key's default is
    /// registered and checked once per name and type, not on every access; each with the key object that
    /// bound it.
    private let bindings = Locked(BindingTable<BoundName>())
    /// A bound name: the key object that bound it first, and the name as Swift's Observation sees it.
    private struct BoundName {
        let firstKeyObject: ObjectIdentifier
        let tracked: any TrackedName
        let first: FirstKey
    }
    /// The key that bound a name, held (a freed key's address may be given to the next key object
    /// made, which must not pass for it), with its default, which another key object of the name (a
    /// computed key) is compared with without a lock of its own.
    private final class FirstKey: @unchecked Sendable {
        // @unchecked: `defaultChanged` is guarded by `bindings`' lock; the rest is immutable.
        let key: AnyObject
        let defaultObject: Any?
        let hasComputedDefault: Bool
        /// Set once a key object of the name gave a default other than the registered one: from then on
        /// every read of the name tells a stored value from that default, and every other key object is
        /// compared with the name's record.
        var defaultChanged = false

        init(_ key: some AnyTypedKey & AnyObject) {
            self.key = key
            defaultObject = key.defaultObject
            hasComputedDefault = key.hasComputedDefault
        }
    }
    /// Each name bound in this storage, as Swift's Observation sees it (shared by the value types a name
    /// is used with).
    private let trackedNames = Locked<[String: any TrackedName]>([:])
    /// The first key used with each stored name. `UserDefaults` keeps registered defaults in one domain
    /// for the whole process, shared by every suite, so all `UserDefaults` storages share one record:
    /// two suites that give one name different defaults would show each other's default.
    private let keyRecords: Locked<[String: any AnyTypedKey]>
    private static let userDefaultsKeyRecords = Locked<[String: any AnyTypedKey]>([:])

    private init(storage: any KeyValueStorage, domain: DefaultsDomain?) {
        self.storage = storage
        self.domain = domain
        externalStorage = storage as? any ExternallyChangingStorage
        keyRecords = storage is UserDefaults ? Self.userDefaultsKeyRecords : Locked([:])
        if let defaults = storage as? UserDefaults, let domain {
            saver = Platform.makeSaver(domain: domain, defaults: defaults)
        } else {
            saver = nil
        }
        saver?.attach(to: self)
        if externalStorage != nil {
            observers.onFirstAndLastObserver { [weak self] name, _ in self?.watchExternalChanges(of: name) }
        }
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

    /// Taken alone, and never across file I/O or a user callback.
    /// By the name's Unicode scalars: two forms of one name are two suites, as they are two files.
    private static let bySuite = Locked<[ExactText: StorageContext]>([:])
    /// Weak, so that a storage nobody uses any more is freed; the context holds its storage, so while
    /// an entry's context lives no other object can take its identifier.
    private static let byObject = Locked<[ObjectIdentifier: WeakContext]>([:])

    /// The domain of `UserDefaults.standard`: the bundle identifier, else the process name.
    static let standardDomain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    static let standard = StorageContext(storage: UserDefaults.standard, domain: .standard)

    /// The context of suite `suiteName`, or nil for a name that is not a plain file name, a suite whose
    /// file is there but not a regular file (Linux), or one `UserDefaults(suiteName:)` refuses.
    static func forSuite(_ suiteName: String) -> StorageContext? {
        guard SuiteName.isPlainFileName(suiteName) else { return nil }
        let key = ExactText(suiteName)
        if let context = bySuite.withLock({ $0[key] }) { return context }
        // Made outside the map's lock, since making it looks at the suite's file; the first one in wins.
        guard Platform.isUsableSuite(suiteName), let defaults = UserDefaults(suiteName: suiteName) else {
            return nil
        }
        let made = StorageContext(storage: defaults, domain: .suite(suiteName))
        return bySuite.withLock { contexts in
            if let context = contexts[key] { return context }
            contexts[key] = made
            return made
        }
    }

    /// The context of `storage`: its suite's, for a `UserDefaults` whose suite the platform tells;
    /// else one per storage object.
    static func forStorage(_ storage: some KeyValueStorage) -> StorageContext {
        var domain: DefaultsDomain?
        if let defaults = storage as? UserDefaults {
            domain = Platform.domain(of: defaults)
            switch domain {
            case .standard: return .standard
            case .suite(let name): if let context = forSuite(name) { return context }
            default: break
            }
        }
        let identifier = ObjectIdentifier(storage)
        if let context = byObject.withLock({ $0[identifier]?.context }) { return context }
        let made = StorageContext(storage: storage, domain: domain)
        return byObject.withLock { contexts in
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
        saver?.prepareForFirstUse()
    }

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
        let found = bindings.withLock { bindings -> (tracked: any TrackedName, other: FirstKey?, changed: Bool)? in
            guard let bound = bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) else {
                return nil
            }
            if bound.firstKeyObject == keyObject { return (bound.tracked, nil, bound.first.defaultChanged) }
            return (bound.tracked, bound.first, bound.first.defaultChanged)
        }
        guard let found else {
            recordUses(CollectionOfOne((storedName, key)))
            // Another storage may have registered the name first (`UserDefaults` share one registration).
            let differs = keyRecords.withLock { records in
                records[storedName].map { !$0.agreesOnDefault(with: key) } ?? false
            }
            // After the name's default is registered: Foundation's first read of a domain before
            // registrations made every later read of it slower.
            prepareDomain()
            let tracked = trackedNames.withLock { names in
                if let tracked = names[storedName] { return tracked }
                let tracked = makeTrackedName()
                names[storedName] = tracked
                return tracked
            }
            // Once the name is tracked, a change saved elsewhere is brought in at once; one that came before
            // was put aside until now.
            if saver != nil { bringInDeferred(only: storedName) }
            return bindings.withLock { bindings in
                // Another thread bound the name meanwhile, with another key object.
                if let bound = bindings.entry(for: storedName, nameHash: nameHash, valueType: valueType) {
                    if differs { bound.first.defaultChanged = true }
                    return KeyBinding(tracked: bound.tracked, defaultChanged: bound.first.defaultChanged)
                }
                let first = FirstKey(key)
                first.defaultChanged = differs
                bindings.insert(
                    BoundName(firstKeyObject: keyObject, tracked: tracked, first: first), for: storedName,
                    nameHash: nameHash, valueType: valueType)
                return KeyBinding(tracked: tracked, defaultChanged: differs)
            }
        }
        if let first = found.other, found.changed || !Self.sameDefault(first, key),
            checkAnotherKeyObject(key, as: storedName)
        {
            bindings.withLock { _ in first.defaultChanged = true }
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
        let record = keyRecords.withLock { $0[name] }
        guard let record, let registered = record.defaultObject, !record.agreesOnDefault(with: key),
            !LaunchArguments.names.contains(name), propertyListsEqual(object, registered)
        else { return object }
        guard let stored = storedValues() else { return object }
        return stored[name]
    }

    /// Whether `key` gives its name the default `first` gave it: by the value type's `==` where it has
    /// one (the common case costs that), else by property list. Two computed defaults are taken as one.
    private static func sameDefault<Value>(_ first: FirstKey, _ key: UserDefaultTypedKey<Value>) -> Bool {
        if !first.hasComputedDefault, !key.hasComputedDefault, key.hasSameGivenDefault(as: first.key) { return true }
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
    private func checkAnotherKeyObject(_ key: some AnyTypedKey, as storedName: String) -> Bool {
        let (conflict, differs) = keyRecords.withLock { records -> ((any AnyTypedKey)?, Bool) in
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

    // MARK: Changing values: the one commit-and-announce path

    /// Stores `object` under `name` (`nil` removes it) and has the saver record it, as one step in the
    /// storage's order of changes. Returns what observers and Swift's Observation must hear, to be passed
    /// to `announce` once no lock is held; nil when nobody can be listening (a name never bound, or a
    /// write inside `withoutPropagation`).
    ///
    /// `asciiName`: the caller knows `name` has no character outside ASCII (it has no other forms).
    func commit(_ object: Any?, forName name: String, tracked: (any TrackedName)?, asciiName: Bool = false) -> Commit? {
        // A name nothing in this storage bound has no tracked name and no observers: observing binds.
        guard let tracked = tracked ?? trackedName(name), Propagation.isOn else {
            writeOrder.lock()
            defer { writeOrder.unlock() }
            storeAndRecord(object, forName: name, asciiName: asciiName)
            if cloudSync != nil { noteForSync(object, forName: name) }
            return nil
        }
        writeOrder.lock()
        defer { writeOrder.unlock() }
        // Looked up in the order of changes: an observer added before a change is committed hears it.
        let observers = observers.observers(of: name)
        let oldObject = observers.isEmpty ? nil : storage.object(forKey: name)
        storeAndRecord(object, forName: name, asciiName: asciiName)
        if cloudSync != nil { noteForSync(object, forName: name) }
        sequence &+= 1
        let newObject = observers.isEmpty ? nil : storage.object(forKey: name)
        expect(sequence, by: observers)
        return Commit(
            tracked: tracked, observers: observers,
            change: ObjectChange(oldObject: oldObject, newObject: newObject, sequence: sequence))
    }

    func applySavedElsewhere(_ changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool) -> [Commit] {
        writeOrder.withLock { applyInOrder(changed, isOwnWrite: isOwnWrite, deferringUnused: true) }
    }

    /// Brings in the values put aside for names this process had not used: `name`'s alone, or all.
    private func bringInDeferred(only name: String? = nil) {
        let commits = writeOrder.withLock { () -> [Commit] in
            guard !deferred.isEmpty else { return [] }
            var taken: [(name: String, object: Any?)] = []
            if let name {
                guard let object = deferred.removeValue(forKey: ExactText(name)) else { return [] }
                taken = [(name, object)]
            } else {
                taken = deferred.map { ($0.key.text, $0.value) }
                deferred = [:]
            }
            return applyInOrder(taken)
        }
        announce(commits)
    }

    /// Puts changes this process did not write into the storage, and numbers those a read sees. Called
    /// with `writeOrder` held.
    ///
    /// In three passes, every read before every write and every write before the reads after: on Linux,
    /// Foundation recomputes its whole merged view of a suite at the first read after any write, so a
    /// read, write, read per name cost the suite's size for every name brought in; this way the suite is
    /// gone through twice for the whole change.
    ///
    /// With `deferringUnused`, a name this process has not used (no key bound it, the storage does not
    /// hold it) is put aside rather than set: Foundation's `set` of a name costs more the more names the
    /// process has set since it started (corelibs keeps them in a list it searches), and bringing in every
    /// name many other processes write made each of them spend more time on it than on its own work.
    private func applyInOrder(
        _ changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool = { _ in false },
        deferringUnused: Bool = false
    ) -> [Commit] {
        // A null or a set another tool put in the file: Foundation's `set` traps on it. The file keeps it
        // (a save writes it back); memory keeps what it had.
        let incoming = changed.filter { name, object in
            !isOwnWrite(name) && (object.map(isStorablePropertyList) ?? true)
        }
        var written: [(name: String, oldObject: Any?)] = []
        for (name, object, oldObject) in incoming.map({ ($0.name, $0.object, storage.object(forKey: $0.name)) }) {
            if deferringUnused {
                if oldObject == nil, trackedName(name) == nil {
                    deferred[ExactText(name)] = object
                    continue
                }
                deferred[ExactText(name)] = nil
            }
            // Already so here (Foundation read it, or this process wrote it): nothing to bring in. What
            // reads as the registered default may be the default alone: a value equal to it is set, so
            // that listings hold it.
            if sameStoredObject(oldObject, object), !isRegisteredDefault(oldObject, forName: name) { continue }
            written.append((name, oldObject))
            store(object, forName: name)
        }
        var commits: [Commit] = []
        for (name, oldObject) in written {
            let newObject = storage.object(forKey: name)
            // A removal that leaves the registered default in view of a value equal to it: no read changes.
            if sameStoredObject(oldObject, newObject) { continue }
            commits.append(numberedChange(of: name, from: oldObject, to: newObject))
        }
        return commits
    }

    /// Whether `object` is the default the library registered for `name`.
    private func isRegisteredDefault(_ object: Any?, forName name: String) -> Bool {
        guard let object, let record = keyRecords.withLock({ $0[name] }) else { return false }
        return propertyListsEqual(object, record.defaultObject)
    }

    /// A change the library did not make through `commit` (another process's save, a report of another
    /// writer, a cloud value), numbered in the storage's order, with those who must hear it. Called with
    /// `writeOrder` held.
    private func numberedChange(of name: String, from oldObject: Any?, to newObject: Any?) -> Commit {
        sequence &+= 1
        let observers = observers.observers(of: name)
        expect(sequence, by: observers)
        return Commit(
            tracked: trackedName(name), observers: observers,
            change: ObjectChange(oldObject: oldObject, newObject: newObject, sequence: sequence))
    }

    /// Tells `observers` that change `sequence` is theirs, in the order of changes: those that get changes
    /// in commit order (a stream) wait for it. Called with `writeOrder` held, where the change is numbered.
    private func expect(_ sequence: UInt64, by observers: [Observer]) {
        for observer in observers { observer.expect(sequence) }
    }

    func announce(_ commits: [Commit]) {
        for commit in commits { announce(commit) }
    }

    /// Tells Swift's Observation and the observers of a change. Called with no lock held: an observer
    /// may read and write the store.
    func announce(_ commit: Commit) {
        commit.tracked?.change()
        for observer in commit.observers {
            observer.deliver(commit.change)
        }
    }

    /// What the storage holds for `name` now, and the number of the last change announced: a change
    /// numbered after it is not in the value.
    func currentObject(forName name: String) -> (object: Any?, sequence: UInt64) {
        writeOrder.lock()
        defer { writeOrder.unlock() }
        return (storage.object(forKey: name), sequence)
    }

    /// A change made here: into the storage, and into the saver's record of what to save (Linux).
    /// Called with `writeOrder` held.
    private func storeAndRecord(_ object: Any?, forName name: String, asciiName: Bool = false) {
        store(object, forName: name, asciiName: asciiName)
        saver?.recordWrite(object, forName: name)
    }

    private func store(_ object: Any?, forName name: String, asciiName: Bool = false) {
        let watched = !externalWatches.isEmpty
        if watched { writingThread.withLock { $0 = (ObjectIdentifier(Thread.current), name) } }
        // One form of a name at a time (Linux: see `DomainSaver.otherForms`, which tells an ASCII name at
        // once; a key's write knows it already).
        if let saver, !asciiName {
            for other in saver.otherForms(of: name) { storage.removeObject(forKey: other) }
        }
        if let object {
            storage.set(object, forKey: name)
        } else {
            storage.removeObject(forKey: name)
        }
        if watched {
            writingThread.withLock { $0 = nil }
            // Read only for a watched name: optional chaining skips the right-hand side otherwise.
            externalWatches[name]?.last = storage.object(forKey: name)
        }
    }

    // MARK: Changes made by other means (ExternallyChangingStorage)

    /// Watches `name` from now on, observers or not, so that Swift's Observation hears changes made by
    /// other means. Cheap when the name is watched already (a SwiftUI view asks at each update).
    func keepWatchingExternalChanges(of name: String) {
        prepareDomain()
        guard externalStorage != nil, writeOrder.withLock({ watchedForObservation.insert(name).inserted }) else {
            return
        }
        watchExternalChanges(of: name)
    }

    /// Whether `name` must be watched: it has observers, or Observation asked. Called with `writeOrder`
    /// held.
    private func needsWatching(_ name: String) -> Bool {
        watchedForObservation.contains(name) || !observers.observers(of: name).isEmpty
    }

    /// Watches `name` while it has observers (or `keepWatchingExternalChanges` asked), and stops when it
    /// has none. Called when a name gets its first observer or loses its last, in any order: it looks at
    /// the registry each time.
    private func watchExternalChanges(of name: String) {
        guard let externalStorage, externalStorage.canWatchChanges(ofKey: name) else { return }
        // The storage's own locks (key-value observing's) are never taken under `writeOrder`: a report
        // on another thread may be waiting for `writeOrder` while holding them.
        var started: (any ExternalChangeWatch)?
        if writeOrder.withLock({ needsWatching(name) && externalWatches[name] == nil }) {
            started = externalStorage.watchChanges(ofKey: name) { [weak self] in self?.externalChange(of: name) }
        }
        let unused = writeOrder.withLock { () -> [any ExternalChangeWatch] in
            let stillObserved = needsWatching(name)
            if stillObserved, externalWatches[name] == nil, let started {
                externalWatches[name] = (started, storage.object(forKey: name))
                return []
            }
            var unused = started.map { [$0] } ?? []
            if !stillObserved, let entry = externalWatches.removeValue(forKey: name) { unused.append(entry.watch) }
            return unused
        }
        for watch in unused { watch.stop() }
    }

    /// A report that `name` may have changed by other means: read again, and heard as a change when it
    /// differs from what observers last heard.
    ///
    /// Never waits for the write order: a storage may report while holding a lock of its own, which a
    /// commit holding the write order may be waiting for (in `object(forKey:)`). When the write order is
    /// taken, the report is read again on the library's report queue once it is free.
    private func externalChange(of name: String) {
        if let writing = writingThread.withLock({ $0 }), writing.thread == ObjectIdentifier(Thread.current),
            writing.name == name
        {
            return
        }
        guard writeOrder.try() else { return readAgainLater(name) }
        let commit = externalCommit(of: name)
        writeOrder.unlock()
        if let commit { announce(commit) }
    }

    /// Reads `name` again on the report queue, once per name however many reports come meanwhile.
    private func readAgainLater(_ name: String) {
        guard reportsToReadAgain.withLock({ $0.insert(name).inserted }) else { return }
        Self.reportQueue.async { [weak self] in
            guard let self else { return }
            // Taken off first: a report that comes while this one is read is read again after it.
            reportsToReadAgain.withLock { _ = $0.remove(name) }
            let commit = writeOrder.withLock { externalCommit(of: name) }
            if let commit { announce(commit) }
        }
    }

    /// The change a report of `name` stands for, if observers have not heard it yet. Called with
    /// `writeOrder` held.
    private func externalCommit(of name: String) -> Commit? {
        guard let entry = externalWatches[name] else { return nil }
        let now = storage.object(forKey: name)
        if sameStoredObject(now, entry.last) { return nil }
        externalWatches[name]?.last = now
        if cloudSync != nil { noteForSync(now, forName: name) }
        return numberedChange(of: name, from: entry.last, to: now)
    }

    /// Runs `body` so that no other `exclusively` over this storage runs meanwhile: in this process, and
    /// on Linux in any process that saves the suite (see `DomainSaver.exclusively`).
    func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
        prepareDomain()
        modifyLock.lock()
        defer { modifyLock.unlock() }
        guard let saver else { return try body() }
        return try saver.exclusively(body)
    }

    /// Saves pending writes now (Linux), then pushes the synced names' changes not pushed yet.
    func flush() throws {
        prepareDomain()
        try saver?.flush()
        let refused = writeOrder.withLock({ cloudSync })?.push() ?? []
        // One error is thrown; the others would be lost with it, so they are reported.
        for other in refused.dropFirst() { ErrorReporting.report(other) }
        if let first = refused.first { throw first }
    }

    // MARK: Syncing through a cloud

    /// Syncs `names` through `cloud` from now on. The first call chooses the cloud; later calls add names.
    func sync(
        _ names: [String], cloud: any CloudKeyValueStore, debounce: TimeInterval?,
        clock: @escaping @Sendable () -> Double
    ) {
        prepareDomain()
        var engine = writeOrder.withLock { cloudSync }
        if engine == nil {
            // Made outside `writeOrder`: it reads the storage.
            let made = CloudSync(cloud: cloud, context: self, debounce: debounce, clock: clock)
            engine = writeOrder.withLock {
                if cloudSync == nil { cloudSync = made }
                return cloudSync
            }
        }
        engine?.start(names)
        // A change made by other means (the plain API, an app extension: Apple platforms) is pushed too.
        for name in names { keepWatchingExternalChanges(of: name) }
    }

    /// A change of `name` made on this device: versioned for the sync, if the name is synced, and the
    /// versions kept beside the values. Called with `writeOrder` held.
    private func noteForSync(_ object: Any?, forName name: String) {
        guard name != CloudSync.recordName, let saved = cloudSync?.localChange(name, object: object) else { return }
        storeAndRecord(saved, forName: CloudSync.recordName)
    }

    /// Stores a value that came from the cloud, if it is newer than this device's, without pushing it
    /// back; observers and Swift's Observation hear it as any change.
    func applyFromCloud(_ entry: CloudEntry, forName name: String, sync: CloudSync) {
        // A value `UserDefaults` cannot hold (a null, a set): this device keeps its own.
        if let object = entry.object, !isStorablePropertyList(object) { return }
        let commit = writeOrder.withLock { () -> Commit? in
            guard let saved = sync.acceptCloud(entry, forName: name) else { return nil }
            let oldObject = storage.object(forKey: name)
            storeAndRecord(entry.object, forName: name)
            storeAndRecord(saved, forName: CloudSync.recordName)
            let newObject = storage.object(forKey: name)
            if sameStoredObject(oldObject, newObject) { return nil }
            return numberedChange(of: name, from: oldObject, to: newObject)
        }
        if let commit { announce(commit) }
    }

    /// Removes every value of the domain from memory and disk; observers hear of each change a read sees.
    func removeDomain() {
        prepareDomain()
        guard let saver else {
            (storage as? UserDefaults)?.removePersistentDomain(forName: domain?.name ?? "")
            return
        }
        let commits = writeOrder.withLock {
            saver.forgetUnsavedWrites()
            deferred = [:]
            return applyInOrder((saver.storedValues() ?? [:]).map { ($0.key, nil) })
        }
        saver.removeFile()
        announce(commits)
    }

    // MARK: Reading what is stored

    /// Every stored value, without registered defaults and launch arguments, if the storage can list them.
    func storedValues() -> [String: Any]? {
        prepareDomain()
        if let saver {
            bringInDeferred()
            return saver.storedValues()
        }
        if let defaults = storage as? UserDefaults, let domain, domain != .unknown {
            return defaults.persistentDomain(forName: domain.name) ?? [:]
        }
        return storage.storedValues()
    }

    /// The object stored for `name`, not counting registered defaults and launch arguments.
    ///
    /// About the cost of one read wherever the library can tell without listing the storage: nothing
    /// readable at all, or a value that is not a launch argument and differs from the default the
    /// library registered (or there is none). Else the storage's listing decides (for `UserDefaults`, a
    /// copy of the whole domain). A backend that cannot list its values cannot tell a stored value equal
    /// to the registered default from the default itself.
    func storedObject(forName name: String) -> Any? {
        guard let object = storage.object(forKey: name) else { return nil }
        let record = keyRecords.withLock { $0[name] }
        if !LaunchArguments.names.contains(name), let record {
            if record.defaultObject == nil || !propertyListsEqual(object, record.defaultObject) { return object }
        }
        // On Linux the saver knows what this process saved and what the file held: its answer stands when
        // it explains what was read (a plain-API write in this process, never saved, can make it not).
        if let saver {
            bringInDeferred(only: name)
            switch saver.knownObject(forName: name) {
            case .stored(let stored) where propertyListsEqual(stored, object):
                return stored
            case .absent
            where LaunchArguments.names.contains(name)
                || record.map { propertyListsEqual(object, $0.defaultObject) } == true:
                return nil
            default: break
            }
        }
        if let stored = storedValues() { return stored[name] }
        return propertyListsEqual(object, record?.defaultObject) ? nil : object
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

/// A change made in a storage, to be announced once no lock is held: to Swift's Observation through
/// the name's tracked name, and to the name's observers.
struct Commit {
    let tracked: (any TrackedName)?
    let observers: [Observer]
    let change: ObjectChange
}

/// The names `UserDefaults` may hold a launch argument for (`-name value`): any argument that starts
/// with a dash, a few more than Foundation reads, so that a name here may have one.
enum LaunchArguments {
    static let names: Set<String> = Set(
        CommandLine.arguments.dropFirst().lazy.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
}
