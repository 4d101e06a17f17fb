import Foundation

extension DefaultsStore {
    /// Names the library keeps for itself in a storage, declared by what keeps them (the sync's record
    /// of versions): listed by no snapshot and removed by no `removeAll`, so that a removal is pushed as
    /// one.
    static let reservedNames: Set<String> = [CloudSync.recordName]

    /// Syncs `keys` across the user's devices through iCloud's key-value store, from now on: a change
    /// made on one device appears on the others, and the newest change of a key wins everywhere.
    ///
    /// ```swift
    /// Defaults.sync(.theme, .fontSize)    // once, at launch
    /// ```
    ///
    /// Only these keys ever reach the cloud. A device that never changed a key (a new install, a reset)
    /// takes the cloud's value and never pushes its default over it. A change is pushed a second after
    /// it is made, or at once by ``flush()``; a change that arrives from the cloud is applied here,
    /// heard by observers and Swift's Observation like any change, and not pushed back. Removal syncs as
    /// removal. A value over the cloud's limits (names of at most 64 bytes, 1 MB and 1,024 keys in all)
    /// stays on this device and is reported: thrown by `flush()`, else to ``ErrorReporting``.
    ///
    /// Names are synced as they are stored: two suites that sync one name share its cloud value. The app
    /// needs the iCloud key-value storage capability. On platforms without iCloud (Linux, watchOS
    /// before 9) this does nothing. See <doc:SyncingAcrossDevices>.
    ///
    /// - Parameter keys: The keys to sync.
    public func sync<each Value>(_ keys: repeat UserDefaultTypedKey<each Value>) {
        guard let cloud = SystemCloud.store else { return }
        CloudSync.sync(
            registeringStoredNames(repeat each keys), of: context, cloud: cloud, debounce: 1,
            clock: { Date().timeIntervalSinceReferenceDate })
    }

    /// ``sync(_:)`` through a simulated cloud, for tests: pushes after `debounce` (nil: only at
    /// `flush()`), with versions from `clock`.
    package func sync<each Value>(
        _ keys: repeat UserDefaultTypedKey<each Value>, through cloud: any CloudKeyValueStore,
        debounce: TimeInterval?, clock: @escaping @Sendable () -> Double
    ) {
        CloudSync.sync(
            registeringStoredNames(repeat each keys), of: context, cloud: cloud,
            debounce: debounce,
            clock: clock)
    }
}

/// The system's cloud: iCloud's key-value store on Apple platforms (Platform/Apple), none elsewhere.
enum SystemCloud {
    static var store: (any CloudKeyValueStore)? {
        #if canImport(ObjectiveC)
            if #available(watchOS 9, *) { return UbiquitousCloud.shared }
        #endif
        return nil
    }
}
