extension DefaultsStore {
    /// Registers the defaults of `keys` with the storage in one call, and reports conflicts among them
    /// and with keys used before.
    ///
    /// You never need it: a key registers its default the first time a store uses it. Call it at launch
    /// when you have many keys (registering 10,000 keys one at a time costs several times one call), or
    /// to learn of conflicts at launch rather than at first use, or so that code reading the storage
    /// through the plain API sees your defaults before your own code reads them.
    ///
    /// ```swift
    /// Defaults.register([.launchCount, .theme, .username])
    /// ```
    public func register(_ keys: [UserDefaultTypedKeys]) {
        context.recordUses(keys.lazy.compactMap(\.typedKey).map { (self.keyPrefix + $0.name, $0) })
    }

    /// What the storage holds for `key`, or its registered default.
    @usableFromInline
    func object<Value>(for key: UserDefaultTypedKey<Value>) -> Any? {
        let (name, tracked) = bound(key)
        tracked.access()
        return context.storage.object(forKey: name)
    }

    /// The name `key` is stored under in this store, with its default registered the first time the
    /// name is used with the key's value type.
    func storedName<Value>(_ key: UserDefaultTypedKey<Value>) -> String {
        bound(key).name
    }

    /// `key`'s stored name, bound in the storage as `storedName(_:)` binds it, and the name as Swift's
    /// Observation sees it.
    func bound<Value>(_ key: UserDefaultTypedKey<Value>) -> (name: String, tracked: any TrackedName) {
        let name = keyPrefix.isEmpty ? key.name : keyPrefix + key.name
        return (name, context.bind(key, as: name))
    }
}
