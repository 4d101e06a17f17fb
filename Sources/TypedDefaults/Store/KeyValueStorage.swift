import Foundation

/// The seam between typed keys and where values live.
///
/// `UserDefaults` conforms, and so does ``InMemoryStorage``. A backend of your own (a Keychain, a
/// cloud store, a test double) implements the four requirements; everything else has a default.
///
/// A backend is called from any thread, as `UserDefaults` is: make it thread-safe.
public protocol KeyValueStorage: AnyObject {
    /// The stored value for `key`, else its registered default, else `nil`.
    func object(forKey key: String) -> Any?
    /// Stores a property-list object for `key`.
    func set(_ object: Any?, forKey key: String)
    /// Removes the stored value for `key`; its registered default, if any, shows again.
    func removeObject(forKey key: String)
    /// Registers defaults that `object(forKey:)` returns when nothing is stored. They are never stored.
    func register(defaults: [String: Any])

    /// Every stored value, without registered defaults, or `nil` when the backend cannot list them.
    ///
    /// The default returns `nil`; a store then answers `hasKey` by comparing with the registered
    /// default, and `snapshot()` and `removeAll()` see only the names it has used in this process.
    func storedValues() -> [String: Any]?
}

extension KeyValueStorage {
    /// Returns `nil`: the backend cannot list what it stores.
    public func storedValues() -> [String: Any]? { nil }
}

extension UserDefaults: KeyValueStorage {}

/// A thread-safe storage in memory, with the registration rules of `UserDefaults`: a registered
/// default shows until a value is stored, and comes back when that value is removed.
///
/// Use it in tests and previews: `DefaultsStore(storage: InMemoryStorage())`.
public final class InMemoryStorage: KeyValueStorage, @unchecked Sendable {
    private struct Contents {
        var stored: [String: Any] = [:]
        var registered: [String: Any] = [:]
    }
    private let contents = Locked(Contents())

    /// Creates an empty storage.
    public init() {}

    /// The stored value, else the registered default.
    public func object(forKey key: String) -> Any? {
        contents.withLock { $0.stored[key] ?? $0.registered[key] }
    }

    /// Stores `object`; `nil` removes the stored value.
    public func set(_ object: Any?, forKey key: String) {
        contents.withLock { $0.stored[key] = object }
    }

    /// Removes the stored value.
    public func removeObject(forKey key: String) {
        contents.withLock { $0.stored[key] = nil }
    }

    /// Adds registered defaults; a later registration of the same name replaces the earlier one.
    public func register(defaults: [String: Any]) {
        contents.withLock { $0.registered.merge(defaults) { _, new in new } }
    }

    /// The stored values, without registered defaults.
    public func storedValues() -> [String: Any]? {
        contents.withLock { $0.stored }
    }
}
