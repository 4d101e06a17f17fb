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
    @usableFromInline let context: StorageContext
    /// Prepended to every key's name: with `"app."`, `launchCount` is stored as `app.launchCount`.
    public let keyPrefix: String
    /// Tells this store apart in the keys' caches of where they are registered.
    @usableFromInline let serial: UInt64
    /// Whether keys read this store's storage through readers of their own (``InMemoryStorage``).
    @usableFromInline let readsThroughReaders: Bool

    private static let serials = Locked<UInt64>(0)

    init(context: StorageContext, keyPrefix: String) {
        self.context = context
        self.keyPrefix = keyPrefix
        self.readsThroughReaders = context.inMemory != nil
        self.serial = Self.serials.withLock { counter in
            counter += 1
            return counter
        }
    }

    /// The store over `UserDefaults.standard`; also available as ``Defaults``.
    public static let standard = DefaultsStore(context: .standard, keyPrefix: "")

    /// A store over any storage: `UserDefaults`, ``InMemoryStorage``, or a backend of your own.
    ///
    /// On Linux, prefer ``init(suiteName:keyPrefix:)`` for a suite: the library cannot read a suite's
    /// name back from a `UserDefaults` you made, so it saves that one with `synchronize()`, which keeps
    /// dates to whole seconds and is not safe with several processes.
    public convenience init(storage: some KeyValueStorage, keyPrefix: String = "") {
        self.init(context: .forStorage(storage), keyPrefix: keyPrefix)
    }

    /// A store over the `UserDefaults` suite `suiteName`, or `nil` where `UserDefaults(suiteName:)`
    /// is `nil`. Every store over one suite shares its storage, observers and saving.
    public convenience init?(suiteName: String, keyPrefix: String = "") {
        guard let context = StorageContext.forSuite(suiteName) else { return nil }
        self.init(context: context, keyPrefix: keyPrefix)
    }

    /// The storage values are kept in.
    public var storage: any KeyValueStorage { context.storage }

    // MARK: Reading and writing

    /// The value for `key`: what is stored (or passed as a launch argument), else the key's default.
    ///
    /// Setting `nil` on an optional key removes the stored value. A value stored in a form the key's
    /// type does not read gives the default; nothing traps.
    public subscript<Value>(key: UserDefaultTypedKey<Value>) -> Value {
        // Inlinable so that a read is specialized for the key's type where it is written: generic code
        // would look up `Optional<Value>` metadata on every read.
        @inlinable get {
            if readsThroughReaders, let reader = key.registrations.reader(inStore: serial) {
                // The reader was made for this key's type, and the key keeps it alive.
                return reader._withUnsafeGuaranteedRef {
                    unsafeDowncast($0, to: InMemoryStorage.Reader<Value>.self).value(of: key)
                }
            }
            return Self.value(of: key, from: storedOrDefaultObject(for: key))
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
        try withLocation(of: key) { location in
            let object = value.userDefaultsObject
            if object == nil, !(value is any OptionalBox) {
                throw DefaultsError.unconvertibleValue(key: location.name, type: "\(Value.self)")
            }
            write(object, forStoredName: location.name, location: location)
        }
    }

    /// Whether a value is stored for `key`. Registered defaults and launch arguments do not count.
    public func hasKey<Value>(_ key: UserDefaultTypedKey<Value>) -> Bool {
        context.storedObject(forName: storedName(key)) != nil
    }

    /// Removes the stored value for `key`, so that reads give its default again.
    public func remove<Value>(_ key: UserDefaultTypedKey<Value>) {
        withLocation(of: key) { location in
            write(nil, forStoredName: location.name, location: location)
        }
    }

    /// The one path every change takes: storage, then saving (Linux), then observers.
    /// `location` is the key's location, when the write comes through a key.
    func write(_ object: Any?, forStoredName name: String, location: StoredLocation? = nil) {
        let storage = context.storage
        let observers = context.observers.observers(of: name)
        let oldObject = observers.isEmpty ? nil : storage.object(forKey: name)
        if let object {
            storage.set(object, forKey: name)
        } else {
            storage.removeObject(forKey: name)
        }
        if let persistence = context.persistence {
            if let location {
                persistence.recordWrite(object, at: location)
            } else {
                persistence.recordWrite(object, forKey: name)
            }
        }
        guard !observers.isEmpty else { return }
        let newObject = storage.object(forKey: name)
        for observer in observers {
            observer.deliver(oldObject: oldObject, newObject: newObject)
        }
    }

    /// Saves pending writes to disk now, and throws when they cannot be saved.
    ///
    /// You never need to call it for values to last: on Linux the library saves a moment after a write
    /// and when the process exits, and on Apple platforms the system does. Call it to know the values
    /// are on disk, or to learn that they cannot be written (a read-only home, a full disk).
    public func flush() throws {
        try context.persistence?.flush()
    }

    /// What a read of `key` gives for a stored object: the object converted to the key's type, or the
    /// key's default when nothing is stored or the object does not read. Reads and observers share it.
    @inlinable
    static func value<Value>(of key: UserDefaultTypedKey<Value>, from object: consuming Any?) -> Value {
        guard let object else { return key.defaultValue }
        return Value(userDefaultsObject: object) ?? key.defaultValue
    }

    // MARK: Suites

    /// Removes every value of the suite `suiteName` from memory and disk, as
    /// `UserDefaults.removeSuite(named:)` does on Apple platforms.
    public static func removeSuite(named suiteName: String) {
        guard let context = StorageContext.forSuite(suiteName),
            let defaults = context.storage as? UserDefaults
        else { return }
        context.persistence?.discardPending()
        defaults.removePersistentDomain(forName: suiteName)
        context.persistence?.removeFiles()
    }
}

/// The store over `UserDefaults.standard`: `Defaults[.launchCount] += 1`.
// swift-format-ignore: AlwaysUseLowerCamelCase
public let Defaults = DefaultsStore.standard
