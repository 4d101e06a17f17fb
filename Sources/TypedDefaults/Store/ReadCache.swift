import Foundation

// Typed reads at a lookup's cost: each bound name keeps the value its last read gave, with the generation
// it was read at, and a read returns it while the generation has not moved. Exact where the library sees
// every change:
// - a storage that tells when its values change (`KeyValueStorage.valueGeneration`: `InMemoryStorage`,
//   a backend of the app's own), whoever changes them;
// - `UserDefaults`, once the app promises that in this process the suite changes only through the
//   library (`DefaultsStore.Writers.onlyTypedDefaults`): every change the library makes or hears of
//   (`ChangeLog.store`, a bring-in before its equality skip, a registration, a removed suite) moves the
//   bindings' generation (`NameBindings.valuesChanged`). Other processes' saves arrive through the
//   watcher (Linux) as bring-ins.
// Without either, a read asks the storage, as before. A fill reads the generation before the storage
// and keeps its value only if the generation has not moved meanwhile, so a read racing a write never
// keeps the older value. A computed default, and a name whose key objects gave different defaults, are
// never cached. Swift's Observation hears every read, cached or not.

enum ReadCache {
    /// Debug builds: one cached read in this many, under the promise, is checked against the plain read;
    /// every read in a test run (the tests' process), where a broken promise must be found at once.
    static let checkInterval: Int =
        ProcessInfo.processInfo.processName.contains("PackageTests")
            || ProcessInfo.processInfo.environment["TYPED_DEFAULTS_CHECK_EVERY_READ"] == "1" ? 1 : 64
}

/// What a typed read found: the cached value, or the storage's object with what it takes to cache the
/// value read from it.
@usableFromInline
enum TypedRead {
    case cached(Any)
    case stored(Any?, CacheFill?)
}

/// A read that may keep its value: the bound name, and the generation the storage was read at.
@usableFromInline
struct CacheFill {
    let storedName: String
    let nameHash: Int
    let valueType: ObjectIdentifier
    let generation: UInt64
    /// The generation is the storage's own (`KeyValueStorage.valueGeneration`), not the bindings'.
    let storageHasGeneration: Bool
}

extension DefaultsStore {
    /// Who changes a `UserDefaults` suite in this process: what decides whether a store may keep each
    /// key's last read value.
    public enum Writers: Sendable {
        /// Anything may change the suite in this process (the plain `UserDefaults` API, Foundation's
        /// `synchronize()`, another library): every typed read asks `UserDefaults`, as its own call does.
        case anyAPI
        /// A promise: in this process, the suite changes only through TypedDefaults (its stores,
        /// wrappers, `Defaults`, and the library's cloud sync), never through `UserDefaults`' own `set`,
        /// `removeObject`, `register(defaults:)`, `setVolatileDomain`, `addSuite` or `synchronize()`.
        /// Other processes may write it: their saves reach the store as ever. A typed read then keeps the
        /// key's value and reads the suite again only after a change: about a twentieth of the plain
        /// read's cost. Debug builds check the promise: one read in `promiseCheckInterval` (every read
        /// under a test) is compared with the plain read, and a difference is reported
        /// (``DefaultsError/promiseBroken(key:cached:stored:)``).
        case onlyTypedDefaults
    }

    /// A store over the `UserDefaults` suite `suiteName`, as ``init(suiteName:keyPrefix:)``, with the
    /// app's word on who changes the suite in this process (``Writers``). `.onlyTypedDefaults` holds for
    /// the suite from then on, for every store over it.
    public convenience init?(suiteName: String, keyPrefix: String = "", writers: Writers) {
        self.init(suiteName: suiteName, keyPrefix: keyPrefix)
        if writers == .onlyTypedDefaults { context.promiseOnlyLibraryWrites() }
    }

    /// A store over `storage`, as ``init(storage:keyPrefix:)``, with the app's word on who changes it in
    /// this process (``Writers``): `DefaultsStore(storage: UserDefaults.standard, writers:
    /// .onlyTypedDefaults)` is ``Defaults``' storage with the promise, to hand to ``bootstrap(_:)``. A
    /// storage that tells when its values change (``KeyValueStorage/valueGeneration``) needs no promise.
    public convenience init(storage: some KeyValueStorage, keyPrefix: String = "", writers: Writers) {
        self.init(storage: storage, keyPrefix: keyPrefix)
        if writers == .onlyTypedDefaults { context.promiseOnlyLibraryWrites() }
    }

    /// `key`'s value from the cache, or the storage's object to convert.
    @usableFromInline
    func typedRead<Value>(_ key: UserDefaultTypedKey<Value>) -> TypedRead {
        if key.isNameless { return .stored(nil, nil) }
        return context.typedRead(key, as: keyPrefix.isEmpty ? key.name : joinedName(keyPrefix, key.name))
    }

    /// Keeps `value`, which a read gave as `fill` says, for the next reads (unless anything changed since).
    @usableFromInline
    func install<Value>(_ value: Value, _ fill: CacheFill) {
        context.install(value, fill)
    }
}

extension StorageContext {
    /// The app's promise that in this process the storage changes only through the library
    /// (`DefaultsStore.Writers.onlyTypedDefaults`): from now on every change moves the bindings'
    /// generation, and reads keep their values.
    func promiseOnlyLibraryWrites() {
        log.promiseOnlyLibraryWrites()
    }
}
