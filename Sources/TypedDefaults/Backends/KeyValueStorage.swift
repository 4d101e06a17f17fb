import Foundation

/// The seam between typed keys and where values live.
///
/// `UserDefaults` conforms, and so does ``InMemoryStorage``. A backend of your own (a Keychain, a
/// cloud store, a test double) implements the four requirements; everything else has a default.
///
/// A backend is called from any thread, as `UserDefaults` is: make it thread-safe. Its `set` and
/// `removeObject` run inside the storage's write order, the one lock that gives every change its place
/// among the others (a value and its number change together): a backend must not call a store over
/// itself from there, nor wait for a thread that does.
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

    /// A number that changes whenever anything `object(forKey:)` returns may have changed (a `set`, a
    /// removal, a registration, whoever made it), or `nil` when the backend cannot tell.
    ///
    /// Where a backend gives one, a store keeps each key's last read value and asks the backend again
    /// only once the number has moved: a typed read then costs a lookup in the store's own table.
    /// Change it after the change is made, never before, and never back to a number it had. Asked first
    /// when the store is made: a backend that answers `nil` then is never asked again. The default
    /// returns `nil`: every read asks the backend.
    var valueGeneration: UInt64? { get }
}

extension KeyValueStorage {
    /// Returns `nil`: the backend cannot list what it stores.
    public func storedValues() -> [String: Any]? { nil }

    /// Returns `nil`: the backend cannot tell when its values change, so every read asks it.
    public var valueGeneration: UInt64? { nil }
}

extension UserDefaults: KeyValueStorage {}
