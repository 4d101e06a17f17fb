import Foundation

/// A cloud key-value store, as the sync engine sees it: iCloud's `NSUbiquitousKeyValueStore` on Apple
/// platforms (Platform/Apple/UbiquitousKeyValueStore.swift), a simulated cloud in the tests (`package`:
/// the package's tests hand a store a fake cloud; no user sees it).
///
/// Like iCloud's, it is a local copy of the cloud's values: `set` changes the copy at once and
/// `synchronize` asks for it to be sent; changes other devices made arrive later, through `onChange`,
/// already in the copy when it is called.
package protocol CloudKeyValueStore: AnyObject, Sendable {
    /// The value the local copy holds for `key`.
    func object(forKey key: String) -> Any?
    /// Sets `key` in the local copy, to be sent to the cloud; `nil` removes it.
    func set(_ object: Any?, forKey key: String)
    /// Every value of the local copy.
    func dictionaryRepresentation() -> [String: Any]
    /// Asks for local changes to be sent and the cloud's to be fetched.
    func synchronize()
    /// Calls `handler` after each change made elsewhere, with its reason and the keys it changed, from
    /// any thread.
    func onChange(_ handler: @escaping @Sendable (CloudChangeReason, [String]) -> Void)
}

/// Why the cloud's values changed, as iCloud's key-value store tells it.
package enum CloudChangeReason: Sendable, Equatable {
    /// Another device changed values.
    case serverChange
    /// The first fetch after a launch or a sign-in brought the cloud's values.
    case initialSync
    /// The cloud refused values: over 1 MB in all, or 1,024 keys.
    case quotaViolation
    /// The user signed in to another account: its values are in the local copy now.
    case accountChange
}

/// The limits of iCloud's key-value store, checked before each push.
enum CloudLimits {
    /// All keys and values together.
    static let totalBytes = 1_048_576
    /// Keys in the store.
    static let keys = 1_024
    /// Bytes of one key's name (UTF-8).
    static let nameBytes = 64
}
