#if canImport(ObjectiveC)
    import Foundation

    // Apple platforms: `UserDefaults` tells of a name's changes by key-value observing, whoever made
    // them (the plain API in this process, another `UserDefaults` object of the suite, another process
    // or an app extension on the same suite, `defaults write`). This file only adapts it; what a change
    // means for observers (old and new value, once, no echo of the library's own writes) is decided by
    // `StorageContext`, which the tests exercise on Linux through a fake storage.

    extension UserDefaults: ExternallyChangingStorage {
        /// Observes `key` by key-value observing.
        public func watchChanges(ofKey key: String, _ onChange: @escaping @Sendable () -> Void)
            -> any ExternalChangeWatch
        {
            KeyValueWatch(defaults: self, key: key, onChange: onChange)
        }

        /// Whether key-value observing can take `key`: not empty, no `.`, not beginning with `@`
        /// (`KeyValueObservingNames`). Observers of other names hear the library's own writes only.
        public func canWatchChanges(ofKey key: String) -> Bool {
            KeyValueObservingNames.canObserve(key)
        }
    }

    /// One name's key-value observation; `stop()` removes it, once.
    private final class KeyValueWatch: NSObject, ExternalChangeWatch, @unchecked Sendable {
        // @unchecked: `defaults` is thread-safe; the rest is immutable or `Locked`.
        private let defaults: UserDefaults
        private let key: String
        private let onChange: @Sendable () -> Void
        private let isStopped = Locked(false)

        init(defaults: UserDefaults, key: String, onChange: @escaping @Sendable () -> Void) {
            self.defaults = defaults
            self.key = key
            self.onChange = onChange
            super.init()
            if KeyValueObservingNames.canObserve(key) {
                defaults.addObserver(self, forKeyPath: key, options: [], context: nil)
            }
        }

        override func observeValue(
            forKeyPath keyPath: String?, of object: Any?, change: [NSKeyValueChangeKey: Any]?,
            context: UnsafeMutableRawPointer?
        ) {
            onChange()
        }

        func stop() {
            let wasStopped = isStopped.withLockedValue { isStopped in
                defer { isStopped = true }
                return isStopped
            }
            if !wasStopped, KeyValueObservingNames.canObserve(key) { defaults.removeObserver(self, forKeyPath: key) }
        }

        deinit { stop() }
    }
#endif
