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

    /// What the storage holds for `key`, or its registered default: a read that does not go through a
    /// reader.
    @usableFromInline
    func storedOrDefaultObject<Value>(for key: UserDefaultTypedKey<Value>) -> Any? {
        withLocation(of: key) { context.storage.object(forKey: $0.name) }
    }

    /// Runs `body` with where `key` is stored in this store, without retaining it (the key keeps it).
    func withLocation<Value, Result>(
        of key: UserDefaultTypedKey<Value>, _ body: (StoredLocation) throws -> Result
    ) rethrows -> Result {
        try location(of: key)._withUnsafeGuaranteedRef(body)
    }

    /// Where `key` is stored in this store, with its default registered the first time; unretained,
    /// valid as long as the key lives.
    private func location<Value>(of key: UserDefaultTypedKey<Value>) -> Unmanaged<StoredLocation> {
        if let location = key.registrations.location(inStore: serial) { return location }
        let name = keyPrefix + key.name
        context.recordUses(CollectionOfOne((name, key)))
        let location = StoredLocation(name: name, reader: context.inMemory?.reader(forKey: name, as: Value.self))
        key.registrations.remember(location, inStore: serial)
        return Unmanaged.passUnretained(location)
    }

    /// The name `key` is stored under in this store, with its default registered the first time.
    func storedName<Value>(_ key: UserDefaultTypedKey<Value>) -> String {
        withLocation(of: key, \.name)
    }
}
