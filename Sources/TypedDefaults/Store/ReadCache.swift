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
//   watcher (Linux) as bring-ins, and through key-value observing of each bound name (Apple), which
//   moves the generation too (`ChangeLog.externalChange`).
// Without either, a read asks the storage, as before. A fill reads the generation before the storage
// and keeps its value only if the generation has not moved meanwhile, so a read racing a write never
// keeps the older value. A computed default, and a name whose key objects gave different defaults, are
// never cached. Swift's Observation hears every read, cached or not.

enum ReadCache {
    /// Debug builds: one cached read in this many, under the promise, is checked against the plain read;
    /// every read in a test run (the tests' process), where a broken promise must be found at once.
    /// `TYPED_DEFAULTS_CHECK_EVERY_READ=1` checks every read, `=0` none (nil): for a process that changes
    /// memory by other means on purpose, to see what the kept reads give without the check's repair.
    static let checkInterval: Int? =
        switch ProcessInfo.processInfo.environment["TYPED_DEFAULTS_CHECK_EVERY_READ"] {
        case "0": nil
        case "1": 1
        default: ProcessInfo.processInfo.processName.contains("PackageTests") ? 1 : 64
        }
}

/// A kept value, in a box of its own type: the read gets it back by a class cast, which costs less than
/// a cast out of `Any`.
@usableFromInline
final class CachedValue<Value>: @unchecked Sendable {
    // @unchecked: immutable; kept values are read on any thread, as the storage's objects are.
    @usableFromInline let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

/// A read that may keep its value: the bound name, and the generation the storage was read at. A class:
/// a read that keeps nothing passes one word for it, nil (made only where a value may be kept).
@usableFromInline
final class CacheFill {
    let storedName: String
    let nameHash: Int
    let valueType: ObjectIdentifier
    let generation: UInt64
    /// The generation is the storage's own (`KeyValueStorage.valueGeneration`), not the bindings'.
    let storageHasGeneration: Bool

    init(storedName: String, nameHash: Int, valueType: ObjectIdentifier, generation: UInt64, storageHasGeneration: Bool)
    {
        self.storedName = storedName
        self.nameHash = nameHash
        self.valueType = valueType
        self.generation = generation
        self.storageHasGeneration = storageHasGeneration
    }
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
    /// the suite from then on; reads through this store keep their values (a store over the suite made
    /// without it reads the suite each time, as ever).
    public convenience init?(suiteName: String, keyPrefix: String = "", writers: Writers) {
        guard let context = StorageContext.forSuite(suiteName) else { return nil }
        if writers == .onlyTypedDefaults { context.promiseOnlyLibraryWrites() }
        self.init(context: context, keyPrefix: keyPrefix, promised: writers == .onlyTypedDefaults)
    }

    /// A store over `storage`, as ``init(storage:keyPrefix:)``, with the app's word on who changes it in
    /// this process (``Writers``): `DefaultsStore(storage: UserDefaults.standard, writers:
    /// .onlyTypedDefaults)` is ``Defaults``' storage with the promise, to hand to ``bootstrap(_:)``. A
    /// storage that tells when its values change (``KeyValueStorage/valueGeneration``) needs no promise.
    public convenience init(storage: some KeyValueStorage, keyPrefix: String = "", writers: Writers) {
        let context = StorageContext.forStorage(storage)
        if writers == .onlyTypedDefaults { context.promiseOnlyLibraryWrites() }
        self.init(context: context, keyPrefix: keyPrefix, promised: writers == .onlyTypedDefaults)
    }

    /// The storage's object for `key` to convert, or nil with `cached` set to the kept value (a
    /// `CachedValue<Value>`); `fill` is set where the value converted may be kept.
    @usableFromInline
    func typedRead<Value>(_ key: UserDefaultTypedKey<Value>, cached: inout AnyObject?, fill: inout CacheFill?)
        -> Any?
    {
        if key.isNameless { return nil }
        return context.typedRead(
            key, as: keyPrefix.isEmpty ? key.name : joinedName(keyPrefix, key.name), cached: &cached, fill: &fill)
    }

    /// Keeps `value`, which a read gave as `fill` says, for the next reads (unless anything changed since).
    @usableFromInline
    func install<Value>(_ value: Value, _ fill: CacheFill) {
        context.install(CachedValue(value), fill)
    }
}

extension StorageContext {
    /// The app's promise that in this process the storage changes only through the library
    /// (`DefaultsStore.Writers.onlyTypedDefaults`): from now on every change moves the bindings'
    /// generation, and reads keep their values.
    func promiseOnlyLibraryWrites() {
        guard log.promiseOnlyLibraryWrites(), log.externalStorage != nil else { return }
        // Apple: names bound before the promise are watched too (see `bindFirst`).
        let prepared = prepareDomain()
        for name in names.boundNames() { log.reports.keepWatching(name, of: self, prepared) }
    }
}
