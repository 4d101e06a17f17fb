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
        context.recordUses(keys.lazy.compactMap(\.typedKey).map { (joinedName(self.keyPrefix, $0.name), $0) })
    }
}
