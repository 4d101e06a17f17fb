/// A storage that can tell when one of its values changes by other means than the library's writes:
/// another process, an app extension, the plain `UserDefaults` API, `defaults write`.
///
/// The library asks it to watch a name when the first observer of that name starts and stops it with
/// the last, and reads the name again at each report: observers (callbacks, `updates`, Swift's
/// Observation) then hear the change once, with the old and new value, through the same path as the
/// library's own writes. Reports of the library's own writes (key-value observing reports every `set`,
/// on the writing thread) and reports where nothing changed are not passed on.
///
/// On Apple platforms, `UserDefaults` conforms through key-value observing. Conform a backend of your
/// own (a cloud store, a database) to have its observers hear changes made elsewhere.
public protocol ExternallyChangingStorage: KeyValueStorage {
    /// Starts calling `onChange` after each change of `key`'s value, from any thread (on the writing
    /// thread, inside `set`, is allowed). Returns what stops it.
    ///
    /// `onChange` never waits for a lock of the library's: it may be called with a lock of the storage
    /// held (the library then reads the value again a moment later, once its own write order is
    /// free). It may read the storage (`object(forKey:)`) on the calling thread, so a storage that
    /// reports with its own lock held makes that lock recursive.
    func watchChanges(ofKey key: String, _ onChange: @escaping @Sendable () -> Void) -> any ExternalChangeWatch

    /// Whether changes of `key` can be watched at all; the library asks before it calls
    /// ``watchChanges(ofKey:_:)``. Observers of a name that cannot be watched hear the library's own
    /// writes only. The default is `true`.
    func canWatchChanges(ofKey key: String) -> Bool
}

extension ExternallyChangingStorage {
    /// Every name can be watched.
    public func canWatchChanges(ofKey key: String) -> Bool { true }
}

/// The names key-value observing can take as a `UserDefaults` key, the rule the Apple adapter follows
/// (Platform/Apple/KeyValueObserving.swift) and the tests check on every platform: not empty, no `.`
/// (it reads as a key path), not beginning with `@` (a collection operator). `addObserver` raises an
/// Objective-C exception, which no Swift code can catch, for the empty name and an `@` name.
package enum KeyValueObservingNames {
    package static func canObserve(_ key: String) -> Bool {
        !key.isEmpty && !key.hasPrefix("@") && !key.contains(".")
    }
}

/// Stops the reports of one name's changes: ``ExternallyChangingStorage/watchChanges(ofKey:_:)``.
public protocol ExternalChangeWatch: Sendable {
    /// Stops the reports; none starts after it returns.
    func stop()
}
