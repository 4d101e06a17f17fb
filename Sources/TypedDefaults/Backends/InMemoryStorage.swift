import Foundation

/// A thread-safe storage in memory, with the registration rules of `UserDefaults`: a registered
/// default shows until a value is stored, and comes back when that value is removed.
///
/// Use it in tests and previews: `DefaultsStore(storage: InMemoryStorage())`. It is an ordinary
/// ``KeyValueStorage``, read and written through the same five methods as any backend you write.
public final class InMemoryStorage: KeyValueStorage, @unchecked Sendable {
    // @unchecked: all state is behind `contents`' lock.
    private struct Contents {
        var stored: [String: Any] = [:]
        var registered: [String: Any] = [:]
        /// Moves at every change, under the same lock (`valueGeneration`).
        var generation: UInt64 = 0
    }

    private let contents = Locked(Contents())

    /// Creates an empty storage.
    public init() {}

    /// The stored value, else the registered default.
    public func object(forKey key: String) -> Any? {
        contents.withLockedValue { $0.stored[key] ?? $0.registered[key] }
    }

    /// Stores `object`; `nil` removes the stored value.
    public func set(_ object: Any?, forKey key: String) {
        contents.withLockedValue {
            $0.stored[key] = object
            $0.generation &+= 1
        }
    }

    /// Removes the stored value.
    public func removeObject(forKey key: String) {
        contents.withLockedValue {
            $0.stored[key] = nil
            $0.generation &+= 1
        }
    }

    /// Adds registered defaults; a later registration of the same name replaces the earlier one.
    public func register(defaults: [String: Any]) {
        contents.withLockedValue {
            $0.registered.merge(defaults) { _, new in new }
            $0.generation &+= 1
        }
    }

    /// The stored values, without registered defaults.
    public func storedValues() -> [String: Any]? {
        contents.withLockedValue { $0.stored }
    }

    /// Moves at every `set`, `removeObject` and `register`, whoever calls them: a store over this storage
    /// reads a key's value again only after one.
    public var valueGeneration: UInt64? {
        contents.withLockedValue { $0.generation }
    }
}
