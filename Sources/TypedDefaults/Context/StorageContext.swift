import Foundation

/// What every store over one storage shares: the storage, the names bound in it, the observers, the
/// order of its changes and (on Linux) the saver that saves its writes.
///
/// One context per suite, however its stores were made: `DefaultsStore(suiteName: "S")` and
/// `DefaultsStore(storage: UserDefaults(suiteName: "S")!)` share one, where the platform tells a
/// `UserDefaults`' suite (Linux; on Apple platforms only `UserDefaults.standard` is recognized). Other
/// storages get one context per object, freed with the last store, observation or wrapper over it.
/// Suite contexts live for the process, as Foundation's own suites do.
///
/// It holds no lock of its own: its state lives in the types that own it, each with its lock and the
/// functions that use it: the write order (`ChangeLog`), the bound names (`NameBindings`), the
/// observers (`ObserverRegistry`); the contexts themselves are found in `ContextRegistry`.
final class StorageContext: SavedChangeReceiver, @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); every other field is
    // a `let`, and the mutable state lives in the lock-owning types they hold.
    let storage: any KeyValueStorage
    /// The `UserDefaults` domain, for a `UserDefaults` storage.
    let domain: DefaultsDomain?
    /// Saves the storage's writes where the platform does not (Linux); nil elsewhere and for other
    /// storages. The context's one seam to the platform.
    let saver: (any DomainSaver)?
    let observers: ObserverRegistry
    /// The storage's write order: every change to it, numbered and announced there.
    let log: ChangeLog
    /// The names bound in this storage, with their keys and their registered defaults.
    let names: NameBindings
    /// The storage tells when its values change (`KeyValueStorage.valueGeneration`), asked once: a read
    /// of a storage that does not asks nothing more.
    let storageHasGeneration: Bool
    init(storage: any KeyValueStorage, domain: DefaultsDomain?) {
        self.storage = storage
        self.domain = domain
        storageHasGeneration = storage.valueGeneration != nil
        // What the storage is, asked once: the log keeps the answers (`ChangeLog.domainStorage`,
        // `externalStorage`).
        let domainStorage = storage as? any DomainStorage
        // Registered defaults are one per process for every domain (`UserDefaults`' registration domain).
        names = NameBindings(sharesDomainKeyRecords: domainStorage != nil)
        let saver = domain.flatMap { domainStorage?.makeSaver(for: $0) }
        self.saver = saver
        let observers = ObserverRegistry()
        self.observers = observers
        let log = ChangeLog(
            storage: storage, domain: domain, domainStorage: domainStorage, saver: saver, observers: observers,
            names: names)
        self.log = log
        // Through the context held weakly, never the `log` above: that local captured would hold the log
        // from its own registry (a cycle), and a weak reference to the log, which the write path retains,
        // would make each of its retains slower (see the saver's receiver below).
        observers.onFirstAndLastObserver { [weak self] name, _ in
            guard let context = self else { return }
            context.log.observersChanged()
            if context.log.externalStorage != nil { context.log.reports.watch(name, of: context) }
        }
    }

    deinit {
        // Only contexts of `DefaultsStore(storage:)` are freed; forget the entry if nobody replaced it.
        ContextRegistry.forgetFreedContext(of: ObjectIdentifier(storage))
    }

    // MARK: Finding the context (`ContextRegistry`)

    /// The domain of `UserDefaults.standard`: the bundle identifier, else the process name.
    static let standardDomain = Bundle.main.bundleIdentifier ?? ProcessInfo.processInfo.processName

    /// The context of `UserDefaults.standard`.
    static let standard = StorageContext(storage: UserDefaults.standard, domain: .standard)

    /// The context of suite `suiteName` (see `ContextRegistry.context(forSuite:)`).
    static func forSuite(_ suiteName: String) -> StorageContext? {
        ContextRegistry.context(forSuite: suiteName)
    }

    /// The context of `storage` (see `ContextRegistry.context(for:)`).
    static func forStorage(_ storage: some KeyValueStorage) -> StorageContext {
        ContextRegistry.context(for: storage)
    }

    // MARK: Preparing the domain

    /// Makes the domain ready for use, once per process (Linux: watched for other processes' saves, which
    /// come in through this context, and read by Foundation, whose listing of a domain it has not read
    /// yet is empty for good). The one path to a prepared domain: binding a name calls it, and every
    /// operation of the log that reaches the storage without binding (listings, removal, `flush`,
    /// `modify`, `sync`, watches) takes the proof it returns, so it cannot be left out.
    @discardableResult
    func prepareDomain() -> DomainPrepared {
        saver?.prepare(receivingIn: self)
        return DomainPrepared(of: log)
    }

    // MARK: The saver's receiver

    // The context, not the log, is the saver's receiver, held weakly: a weak reference gives an object a
    // side table, which makes every retain of it slower, and the log is retained on the write path
    // (about 150 instructions a write, measured).

    func bringIn(savedElsewhere changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool) -> [Announcement]
    {
        log.bringIn(savedElsewhere: changed, isOwnWrite: isOwnWrite)
    }
}

/// Proof that a storage's domain was prepared (`StorageContext.prepareDomain()`), taken by the change
/// log's operations that reach the storage without binding a name. A domain once prepared stays so.
/// Made only by the context, for its own log; a debug build checks that no other log takes it (`check`).
struct DomainPrepared {
    #if DEBUG
        /// The log of the context that prepared its domain.
        private let log: ObjectIdentifier
    #endif

    fileprivate init(of log: ChangeLog) {
        #if DEBUG
            self.log = ObjectIdentifier(log)
        #endif
    }

    /// Debug builds: stops when `log` is not the one whose context prepared the domain (a release build
    /// carries nothing: the proof stays free on the write path).
    @inline(__always)
    func check(for log: ChangeLog) {
        #if DEBUG
            precondition(
                self.log == ObjectIdentifier(log), "TypedDefaults: another storage's proof of a prepared domain")
        #endif
    }
}
