#if canImport(ObjectiveC)
    import Foundation

    // Apple platforms: the cloud the sync engine (Sync/CloudSync.swift) talks to is iCloud's key-value
    // store. This file only adapts `NSUbiquitousKeyValueStore` and its change notification to
    // `CloudKeyValueStore`; what a change means (which version wins, what is pushed) is decided by the
    // engine, which the tests exercise on Linux against a simulated cloud.

    /// `NSUbiquitousKeyValueStore.default`, as a `CloudKeyValueStore` (watchOS has it from 9 on).
    @available(watchOS 9, *)
    final class UbiquitousCloud: CloudKeyValueStore, @unchecked Sendable {
        // @unchecked: `NSUbiquitousKeyValueStore` is thread-safe; nothing else is stored.
        private let store: NSUbiquitousKeyValueStore

        /// The app's store.
        static let shared = UbiquitousCloud(store: .default)

        private init(store: NSUbiquitousKeyValueStore) {
            self.store = store
        }

        func object(forKey key: String) -> Any? {
            store.object(forKey: key)
        }

        func set(_ object: Any?, forKey key: String) {
            if let object {
                store.set(object, forKey: key)
            } else {
                store.removeObject(forKey: key)
            }
        }

        func dictionaryRepresentation() -> [String: Any] {
            store.dictionaryRepresentation
        }

        func synchronize() {
            _ = store.synchronize()
        }

        func onChange(_ handler: @escaping @Sendable (CloudChangeReason, [String]) -> Void) {
            // The observation lasts as long as the process: one engine per synced storage.
            _ = NotificationCenter.default.addObserver(
                forName: NSUbiquitousKeyValueStore.didChangeExternallyNotification, object: store, queue: nil
            ) { notification in
                let info = notification.userInfo
                let keys = info?[NSUbiquitousKeyValueStoreChangedKeysKey] as? [String] ?? []
                let code =
                    info?[NSUbiquitousKeyValueStoreChangeReasonKey] as? Int ?? NSUbiquitousKeyValueStoreServerChange
                let reason: CloudChangeReason
                switch code {
                case NSUbiquitousKeyValueStoreInitialSyncChange: reason = .initialSync
                case NSUbiquitousKeyValueStoreQuotaViolationChange: reason = .quotaViolation
                case NSUbiquitousKeyValueStoreAccountChange: reason = .accountChange
                default: reason = .serverChange
                }
                handler(reason, keys)
            }
        }
    }
#endif
