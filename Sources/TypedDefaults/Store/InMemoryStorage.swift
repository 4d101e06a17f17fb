import Foundation

/// A thread-safe storage in memory, with the registration rules of `UserDefaults`: a registered
/// default shows until a value is stored, and comes back when that value is removed.
///
/// Use it in tests and previews: `DefaultsStore(storage: InMemoryStorage())`.
///
/// A store reads it without looking up the name, and converts a value only when it has changed since
/// the key's last read in that store, so a typed read costs a few tens of nanoseconds.
public final class InMemoryStorage: KeyValueStorage, @unchecked Sendable {
    /// What one name holds. `version` changes with every change, so a reader knows when its
    /// converted value is stale.
    @usableFromInline
    struct Values {
        var stored: Any?
        var registered: Any?
        @usableFromInline var version: UInt64 = 0
        @usableFromInline var object: Any? { stored ?? registered }
    }

    /// The values of one name. Slots are never removed, so a reader can keep the slot of its name.
    @usableFromInline
    final class Slot {
        // Guarded by the storage's lock. Behind a pointer rather than in a `var`, so that access pays no
        // dynamic exclusivity check: the lock already makes it exclusive.
        @usableFromInline let values = UnsafeMutablePointer<Values>.allocate(capacity: 1)

        init() { values.initialize(to: Values()) }

        deinit {
            values.deinitialize(count: 1)
            values.deallocate()
        }
    }

    @usableFromInline let slots = Locked<[String: Slot]>([:])

    /// Creates an empty storage.
    public init() {}

    /// The stored value, else the registered default.
    public func object(forKey key: String) -> Any? {
        slots.withLock { slots in slots[key]?.values.pointee.object }
    }

    /// Stores `object`; `nil` removes the stored value.
    public func set(_ object: Any?, forKey key: String) {
        slots.withLock { slots in Self.change(key, in: &slots) { $0.stored = object } }
    }

    /// Removes the stored value.
    public func removeObject(forKey key: String) {
        slots.withLock { slots in Self.change(key, in: &slots) { $0.stored = nil } }
    }

    /// Adds registered defaults; a later registration of the same name replaces the earlier one.
    public func register(defaults: [String: Any]) {
        slots.withLock { slots in
            for (key, value) in defaults {
                Self.change(key, in: &slots) { $0.registered = value }
            }
        }
    }

    /// The stored values, without registered defaults.
    public func storedValues() -> [String: Any]? {
        slots.withLock { slots in slots.compactMapValues(\.values.pointee.stored) }
    }

    /// A reader of `key`'s values as `Value`, for a store to keep.
    func reader<Value>(forKey key: String, as type: Value.Type) -> Reader<Value> {
        let slot = slots.withLock { slots in Self.slot(key, in: &slots) }
        return Reader(storage: self, slot: slot)
    }

    private static func change(_ key: String, in slots: inout [String: Slot], _ body: (inout Values) -> Void) {
        let values = slot(key, in: &slots).values
        body(&values.pointee)
        values.pointee.version &+= 1
    }

    private static func slot(_ key: String, in slots: inout [String: Slot]) -> Slot {
        if let slot = slots[key] { return slot }
        let slot = Slot()
        slots[key] = slot
        return slot
    }

    /// Reads one name's values as `Value` for one key in one store, converting only what changed since
    /// its last read.
    ///
    /// A `Value` that is a class comes back as the same instance until the stored value changes, as
    /// decoded `Codable` values do.
    @usableFromInline
    final class Reader<Value: UserDefaultConvertible>: @unchecked Sendable {
        // @unchecked: `cache` is guarded by the storage's lock.
        // No reference to the storage or the slot: a reader is used only through its store, which keeps
        // the storage (and so the slot) alive, while a key keeps its readers as long as it lives.
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
        @usableFromInline let values: UnsafeMutablePointer<Values>
        @usableFromInline let cache = UnsafeMutablePointer<(version: UInt64, value: Value)?>.allocate(capacity: 1)

        init(storage: InMemoryStorage, slot: Slot) {
            mutex = storage.slots.mutex
            values = slot.values
            cache.initialize(to: nil)
        }

        deinit {
            cache.deinitialize(count: 1)
            cache.deallocate()
        }

        /// The value `key` reads: the converted stored value, else the key's default.
        ///
        /// The conversion runs outside the lock: it may be slow (decoding JSON) or call code that reads
        /// this storage.
        @inlinable
        func value(of key: UserDefaultTypedKey<Value>) -> Value {
            pthread_mutex_lock(mutex)
            let version = values.pointee.version
            if let cached = cache.pointee, cached.version == version {
                pthread_mutex_unlock(mutex)
                return cached.value
            }
            let object = values.pointee.object
            pthread_mutex_unlock(mutex)
            let value = DefaultsStore.value(of: key, from: object)
            pthread_mutex_lock(mutex)
            if values.pointee.version == version { cache.pointee = (version, value) }
            pthread_mutex_unlock(mutex)
            return value
        }
    }
}
