import Foundation

/// Typed access to one storage: `UserDefaults.standard` (as ``Defaults``), a suite, or any
/// ``KeyValueStorage``.
///
/// ```swift
/// Defaults[.launchCount] += 1
/// let group = DefaultsStore(suiteName: "group.example")!
/// group[.theme] = .dark
/// ```
///
/// A store is cheap to share and safe to use from any thread.
public final class DefaultsStore: Sendable {
    let context: StorageContext
    /// Prepended to every key's name: with `"app."`, `launchCount` is stored as `app.launchCount`.
    public let keyPrefix: String

    /// Reads through this store keep their values (`ReadCache.swift`): its storage tells when it changes,
    /// or the store was made with the app's promise (`Writers.onlyTypedDefaults`). Fixed when the store
    /// is made, so that a store that keeps nothing reads as it always did, at the cost of this test.
    @usableFromInline let keepsReads: Bool

    /// The context's write order, held here too: reached through `context` on each write, it was
    /// retained and released around the call (~40 instructions a write).
    private let log: ChangeLog

    init(context: StorageContext, keyPrefix: String, promised: Bool = false) {
        self.context = context
        log = context.log
        self.keyPrefix = canonicalName(keyPrefix)
        keepsReads = promised || context.storageHasGeneration
    }

    /// The store over `UserDefaults.standard`; also available as ``Defaults``.
    public static let standard = DefaultsStore(context: .standard, keyPrefix: "")

    /// A store over any storage: `UserDefaults`, ``InMemoryStorage``, or a backend of your own.
    ///
    /// A store over `UserDefaults.standard` is one with ``Defaults``. On Linux, a `UserDefaults` you made
    /// for a suite is the suite: its store shares observers, `modify`'s lock and saving with
    /// ``init(suiteName:keyPrefix:)``'s (the suite name is read from Foundation's object; should a future
    /// Foundation hide it, the library says so once through ``ErrorReporting``
    /// (``DefaultsError/savedBySynchronize(suite:reason:)``) and lets `synchronize()` save it). On Apple
    /// platforms such a store has observers of its own: prefer ``init(suiteName:keyPrefix:)`` for a suite.
    public convenience init(storage: some KeyValueStorage, keyPrefix: String = "") {
        self.init(context: .forStorage(storage), keyPrefix: keyPrefix)
    }

    /// A store over the `UserDefaults` suite `suiteName`. Every store over one suite shares its storage,
    /// observers and saving.
    ///
    /// `nil` where `UserDefaults(suiteName:)` is `nil`, and, on every platform, when `suiteName` is not a
    /// plain file name: empty, `.` or `..`, containing `/` or a NUL character, or longer than 231 UTF-8
    /// bytes (its files must fit a file system's 255). Foundation keeps suite `S` in a file `S.plist`,
    /// so such a name would write outside the preferences folder or into a hidden file. Also `nil` on
    /// Linux when the suite's file is a FIFO, a socket or a device, where Foundation's first read would
    /// wait forever.
    public convenience init?(suiteName: String, keyPrefix: String = "") {
        guard let context = StorageContext.forSuite(suiteName) else { return nil }
        self.init(context: context, keyPrefix: keyPrefix)
    }

    /// The storage values are kept in.
    public var storage: any KeyValueStorage { context.storage }

    // MARK: Reading

    /// What the storage holds for `key`, or its registered default.
    @usableFromInline
    func object<Value>(for key: UserDefaultTypedKey<Value>) -> Any? {
        if key.isNameless { return nil }
        return context.read(key, as: nameInStorage(key))
    }

    /// What a read of `key` gives for a stored object: the object converted to the key's type, or the
    /// key's default when nothing is stored or the object does not read. Reads and observers share it.
    @inlinable
    static func value<Value>(of key: UserDefaultTypedKey<Value>, from object: consuming Any?) -> Value {
        guard let object else { return key.defaultValue }
        return Value(userDefaultsObject: object) ?? key.defaultValue
    }

    /// `key`'s stored name in this store (the prefix and the key's name), bound in the storage (its
    /// default registered the first time the name is used with the key's value type), and its binding:
    /// the name as Swift's Observation sees it, and whether it is ASCII.
    func bound<Value>(_ key: UserDefaultTypedKey<Value>) -> (name: String, binding: KeyBinding) {
        let name = nameInStorage(key)
        // The lookup, the write's hot path, straight from here; the first binding through the context
        // (`StorageContext.bind`, for the context's own reads, is the same two steps).
        let binding = context.names.binding(of: key, as: name) ?? context.bindFirst(key, as: name)
        return (name, binding)
    }

    /// `key`'s stored name in this store: the prefix and the key's name, as one canonical name
    /// (`joinedName`).
    @inline(__always)
    private func nameInStorage<Value>(_ key: UserDefaultTypedKey<Value>) -> String {
        keyPrefix.isEmpty ? key.name : joinedName(keyPrefix, key.name)
    }

    /// `key`'s stored name in this store, bound as `bound(_:)` binds it: the first use of the name in the
    /// storage registers the key's default.
    func registeringStoredName<Value>(_ key: UserDefaultTypedKey<Value>) -> String {
        bound(key).name
    }

    /// The stored names of several keys, of any value types, each bound (its default registered).
    func registeringStoredNames<each Value>(_ keys: repeat UserDefaultTypedKey<each Value>) -> [String] {
        var names: [String] = []
        for key in repeat each keys { names.append(registeringStoredName(key)) }
        return names
    }

    // MARK: Reading and writing

    /// The value for `key`: what is stored (or passed as a launch argument), else the key's default.
    ///
    /// Setting `nil` on an optional key removes the stored value. A value stored in a form the key's
    /// type does not read gives the default; nothing traps.
    public subscript<Value>(key: UserDefaultTypedKey<Value>) -> Value {
        // Inlinable so that a read is specialized for the key's type where it is written: generic code
        // would look up `Optional<Value>` metadata on every read.
        // The cached value's cast is specialized here too (`ReadCache.swift`).
        // The stored object comes back as the result, not in an enum, so that it is consumed, not copied.
        @inlinable get {
            guard keepsReads else { return Self.value(of: key, from: object(for: key)) }
            var cached: AnyObject?
            var fill: CacheFill?
            let object = typedRead(key, cached: &cached, fill: &fill)
            if let cached { return (cached as! CachedValue<Value>).value }
            let value = Self.value(of: key, from: object)
            if let fill { install(value, fill) }
            return value
        }
        set {
            do {
                try set(newValue, for: key)
            } catch {
                ErrorReporting.report(error)
            }
        }
    }

    /// Stores `value` for `key`, throwing when the value has no property-list form (a `Codable` value
    /// that fails to encode); the stored value is then kept. The subscript reports that error to
    /// ``ErrorReporting`` instead.
    public func set<Value>(_ value: Value, for key: UserDefaultTypedKey<Value>) throws {
        try refuseIfNameless(key)
        let (name, binding) = bound(key)
        let object = UserCode.runUnmarked(insideStep: true) { value.userDefaultsObject }
        if object == nil, !Self.isNil(value) {
            throw DefaultsError.unconvertibleValue(key: name, type: unconvertibleDescription(value))
        }
        write(object, forStoredName: name, bound: binding)
    }

    /// Reads `key`'s value, changes it with `transform`, and stores the result, as one step: another
    /// `modify` over the same storage never runs in between, so concurrent increments are never lost.
    ///
    /// ```swift
    /// try store.modify(.launchCount) { $0 += 1 }
    /// ```
    ///
    /// Between threads, on every platform. Between processes, on Linux: `modify` holds the suite's file
    /// lock, reads the value other processes saved, and saves the result before it returns (so it costs a
    /// save). On Apple platforms the system's preferences daemon offers no such lock: two processes that
    /// modify one key at once can lose one of the changes. Plain writes (the subscript, `set(_:for:)`)
    /// do not wait for `modify`.
    ///
    /// `transform` runs while the lock is held. It may read and write the store, and move or migrate
    /// values (they join this step); it must not call `modify`, ``flush()`` or
    /// ``removeSuite(named:)`` on the same storage, which would wait for the lock it holds: those are
    /// refused with ``DefaultsError/calledInsideModify(operation:)`` (thrown by `modify` and `flush()`,
    /// reported by `removeSuite`). Observers hear of every change the step made, and of what other
    /// processes saved that it brought in, after the lock is released, also when `transform` throws or
    /// the save fails: an observer's callback may call `modify`. A transform that leaves the value as it
    /// read it stores it and announces nothing: an `onChange` that calls `modify` without changing the
    /// value is not called again by it.
    ///
    /// - Returns: The value stored.
    /// - Throws: What `transform` throws (nothing is stored then), ``DefaultsError/unconvertibleValue(key:type:)``,
    ///   ``DefaultsError/calledInsideModify(operation:)`` inside another `modify`'s transform on the same
    ///   storage, or, on Linux, a save that failed (the value stays pending, as for any write).
    @discardableResult
    public func modify<Value>(_ key: UserDefaultTypedKey<Value>, _ transform: (inout Value) throws -> Void) throws
        -> Value
    {
        try refuseIfNameless(key)
        let (name, binding) = bound(key)
        return try context.log.exclusively(context.prepareDomain(), refusingNested: "modify") {
            let readObject = context.read(key, as: name, bound: binding)
            var value = Self.value(of: key, from: readObject)
            try UserCode.run(insideStep: true) { try transform(&value) }
            let object = UserCode.runUnmarked(insideStep: true) { value.userDefaultsObject }
            if object == nil, !Self.isNil(value) {
                throw DefaultsError.unconvertibleValue(key: name, type: unconvertibleDescription(value))
            }
            // A value the transform left as it read is stored (as before), but no change: announced, an
            // `onChange` that calls `modify` again would hear it and call it again, without end.
            let unchanged = object.map { propertyListsEqual(readObject, $0, by: .exact) } ?? (readObject == nil)
            // On the step's thread: kept by the step, announced when it ends, once its locks are released.
            let commitChange = {
                self.context.log.commit(
                    object, forName: name, tracked: binding.tracked, nameIsASCII: binding.nameIsASCII)
            }
            let unannounced = unchanged ? Propagation.$isOn.withValue(false, operation: commitChange) : commitChange()
            assert(unannounced == nil, "a change numbered in a step is the step's to announce")
            return value
        }
    }

    /// Whether a value is stored for `key`. Registered defaults and launch arguments do not count.
    ///
    /// Costs about one read when nothing is stored, when the key's default is `nil`, or when the stored
    /// value differs from the default. A stored value equal to the default, or a name passed as a launch
    /// argument, costs about one read too on Linux, where the library knows what it saved and what the
    /// suite's file held (a name with non-ASCII characters excepted), and a listing of the storage
    /// elsewhere (for `UserDefaults`, a copy of the domain).
    public func hasKey<Value>(_ key: UserDefaultTypedKey<Value>) -> Bool {
        guard !key.isNameless else { return false }
        // The binding proves the domain prepared: no call to prepare it again (a lock, on Linux).
        let (name, binding) = bound(key)
        return context.storedObject(forName: name, binding.prepared) != nil
    }

    /// Removes the stored value for `key`, so that reads give its default again.
    public func remove<Value>(_ key: UserDefaultTypedKey<Value>) {
        do {
            try refuseIfNameless(key)
        } catch {
            return ErrorReporting.report(error)
        }
        let (name, binding) = bound(key)
        write(nil, forStoredName: name, bound: binding)
    }

    /// Removes the stored values of several keys, of any value types: `store.remove(.theme, .launchCount)`.
    public func remove<each Value>(_ keys: repeat UserDefaultTypedKey<each Value>) {
        for key in repeat each keys {
            remove(key)
        }
    }

    /// Whether a read of `key` gives its default: nothing readable is stored, or the stored value equals
    /// the default.
    public func isDefaultValue<Value: Equatable>(_ key: UserDefaultTypedKey<Value>) -> Bool {
        self[key] == key.defaultValue
    }

    /// Refuses a write through a key with no name of its own: its name is shared by every key made the
    /// same way (see ``DefaultsError/namelessKey(key:)``).
    private func refuseIfNameless<Value>(_ key: UserDefaultTypedKey<Value>) throws {
        if key.isNameless { throw DefaultsError.namelessKey(key: key.description) }
    }

    /// Whether `value` is an optional holding nothing: a write of it removes the stored value. An
    /// optional holding a value that has no property-list form is not.
    private static func isNil<Value>(_ value: Value) -> Bool {
        guard let box = value as? any OptionalBox else { return false }
        return box.unboxed == nil
    }

    /// What an error says of a value with no property-list form: its type, and why where it is known.
    private func unconvertibleDescription<Value>(_ value: Value) -> String {
        if let value = value as? PropertyListValue {
            let depth = value.nestingDepth(limit: PropertyListValue.maximumNesting)
            if depth > PropertyListValue.maximumNesting {
                return "PropertyListValue nested more than \(PropertyListValue.maximumNesting) levels "
                    + "(a suite's file holds at most that)"
            }
        }
        return "\(Value.self)"
    }

    /// Every change but `modify`'s: committed in the storage's order (and recorded for saving on Linux),
    /// then announced. `binding`: the name's, when a key bound it.
    func write(_ object: Any?, forStoredName name: String, bound binding: KeyBinding? = nil) {
        if let announcement = log.commit(
            object, forName: name, tracked: binding?.tracked, nameIsASCII: binding?.nameIsASCII == true)
        {
            announcement.deliver()
        }
    }

    /// Runs `body`; the writes it makes through any store, on this thread and in tasks it waits for, do
    /// not notify observers: no callback, no `updates`, no Swift Observation. For breaking a feedback
    /// loop between two settings that observe each other.
    ///
    /// ```swift
    /// Defaults.observe(.celsius) { change in
    ///     Defaults.withoutPropagation { Defaults[.fahrenheit] = change.newValue * 9 / 5 + 32 }
    /// }
    /// ```
    public func withoutPropagation<Result>(_ body: () throws -> Result) rethrows -> Result {
        try Propagation.$isOn.withValue(false, operation: body)
    }

    /// Saves pending writes to disk now, and throws when they cannot be saved.
    ///
    /// You never need to call it for values to last: on Linux the library saves a moment after a write
    /// and when the process exits, and on Apple platforms the system does. Call it to know the values
    /// are on disk, or to learn that they cannot be written (a read-only home, a full disk).
    ///
    /// Synced keys (``sync(_:)``) are pushed at once too. A value the cloud would refuse throws
    /// ``DefaultsError/syncRefused(key:reason:)``; when several are refused, one is thrown and the others
    /// go to ``ErrorReporting``.
    public func flush() throws {
        try context.log.flush(context.prepareDomain())
    }

    // MARK: Suites

    /// Removes every value of the suite `suiteName` from memory and disk, as
    /// `UserDefaults.removeSuite(named:)` does on Apple platforms. Writes not saved yet are dropped, not
    /// saved later; observers of the suite hear of each value a read then gives differently (Linux).
    public static func removeSuite(named suiteName: String) {
        if let context = StorageContext.forSuite(suiteName) { context.log.removeDomain(context.prepareDomain()) }
    }
}

/// The app's store: `Defaults[.launchCount] += 1`. The store over `UserDefaults.standard`, unless the
/// app chose another at launch with ``DefaultsStore/bootstrap(_:)``; every `@UserDefault` without
/// `store:` uses it too.
// swift-format-ignore: AlwaysUseLowerCamelCase
public var Defaults: DefaultsStore { BootstrappedStore.resolved }
