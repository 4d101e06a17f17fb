extension DefaultsStore {
    /// Moves a value stored under an old name to `key`, converting it through the key's type.
    ///
    /// Safe to call on every launch: it never overwrites a value stored for `key`, and it leaves an old
    /// value that does not read as the key's type where it is, so nothing is lost. One step, as
    /// ``moveObject(fromName:toName:)`` is: no write lands between the check and the move.
    ///
    /// ```swift
    /// Defaults.migrate(from: "kLaunchCount", to: .launchCount)
    /// ```
    /// - Parameters:
    ///   - oldName: The old stored name; the store's prefix is applied to it.
    ///   - key: The key to move the value to.
    /// - Returns: Whether a value was moved.
    @discardableResult
    public func migrate<Value>(from oldName: String, to key: UserDefaultTypedKey<Value>) -> Bool {
        guard !key.isNameless else { return false }
        return move(from: keyPrefix + oldName, to: registeringStoredName(key)) {
            Value(userDefaultsObject: $0)?.userDefaultsObject
        }
    }

    /// The values stored under this store's prefix, with the prefix removed; registered defaults
    /// and launch arguments are left out. For debug screens and logs.
    public func snapshot() -> [String: Any] {
        var values: [String: Any] = [:]
        for (name, object) in storedObjects() where !Self.reservedNames.contains(name) {
            guard let unprefixed = suffix(of: name, after: keyPrefix) else { continue }
            values[unprefixed] = plainPropertyList(object)
        }
        return values
    }

    /// Removes every value stored under this store's prefix (with no prefix, every value in the
    /// storage). Registered defaults remain, so reads give the keys' defaults.
    public func removeAll() {
        removeAll(keeping: [])
    }

    /// Removes every value stored under this store's prefix but those of `keys`: "reset the settings
    /// but keep the session". Observed and saved as ``remove(_:)-5ab4c`` is.
    ///
    /// ```swift
    /// Defaults.removeAll(except: .sessionToken, .userID)
    /// ```
    public func removeAll<each Value>(except keys: repeat UserDefaultTypedKey<each Value>) {
        removeAll(keeping: Set(registeringStoredNames(repeat each keys)))
    }

    private func removeAll(keeping kept: Set<String>) {
        for name in storedObjects().keys
        where suffix(of: name, after: keyPrefix) != nil && !kept.contains(name) && !Self.reservedNames.contains(name) {
            write(nil, forStoredName: name)
        }
    }

    /// What the storage holds, without registered defaults. For a backend that cannot list its values,
    /// the names used in this process whose value differs from the registered default.
    private func storedObjects() -> [String: Any] {
        if let stored = context.storedValues(context.prepareDomain()) { return stored }
        var values: [String: Any] = [:]
        for (name, defaultObject) in context.registeredDefaults() {
            if let object = context.storage.object(forKey: name), !propertyListsEqual(object, defaultObject) {
                values[name] = object
            }
        }
        return values
    }
}

extension DefaultsStore {
    /// What is stored under `name` (the store's prefix applied), as the plain `UserDefaults` API gives
    /// it (a registered default included): for an old name no key describes, which a migration reads.
    public func object(forName name: String) -> Any? {
        context.prepareDomain()
        // A value another process saved for a name not used here yet is brought in first.
        context.log.bringInDeferred(only: keyPrefix + name)
        return context.storage.object(forKey: keyPrefix + name)
    }

    /// Removes the value stored under `name` (the store's prefix applied), observed and saved as any
    /// write through a key: for an old name a migration leaves behind. Through the plain API
    /// (`removeObject(forKey:)`) the store's observers would not hear it, and on Linux it would not be
    /// saved.
    public func removeObject(forName name: String) {
        context.prepareDomain()
        write(nil, forStoredName: keyPrefix + name)
    }

    /// Moves the value stored under `oldName` to `newName` (the store's prefix applied to both), as it
    /// is, observed and saved as any write; a value already stored under `newName` is kept, and then
    /// nothing moves. Returns whether a value was moved. To move a value to a key, converting it
    /// through the key's type, use ``migrate(from:to:)``.
    ///
    /// One step: no other write in this process lands between the check and the move, and on Linux
    /// none of another process's saves either (it holds the suite's file lock, reads what others saved,
    /// and saves before it returns).
    @discardableResult
    public func moveObject(fromName oldName: String, toName newName: String) -> Bool {
        // The old name as it was stored; the new one in the form keys store: the whole joined name's
        // canonical form (`joinedName`).
        let (from, to) = (keyPrefix + oldName, joinedName(keyPrefix, canonicalName(newName)))
        return move(from: from, to: to) { $0 }
    }

    /// Moves the object stored under `from` to `to`, as `convert` makes it, when `to` stores nothing: one
    /// step of the storage's order (`ChangeLog.compoundStep`). A save that fails is reported; the
    /// move stands in memory and is saved later, as any write.
    ///
    /// `convert` runs with no lock held (a type's conversion may read the store, a key it uses for the
    /// first time included); the step then moves the object only if `from` still holds what was
    /// converted, else converts what it holds now, a few times at most: a move never lands a conversion
    /// of a value that is no longer there.
    ///
    /// The names are compared by their bytes, not by Swift's `==`: a value stored under a decomposed
    /// spelling moves to the composed one keys store under. Nothing stored under `from`: no step is
    /// taken (on Linux it would take the file lock), so calling it on every launch costs a read.
    func move(from: String, to: String, converting convert: (Any) -> Any?) -> Bool {
        guard !from.utf8.elementsEqual(to.utf8),
            var object = context.storedObject(forName: from, context.prepareDomain())
        else {
            return false
        }
        for _ in 0..<Self.conversionTries {
            // Inside a step when `migrate` is called in a `modify` transform: it joins that step.
            let converted = UserCode.run(insideStep: true) { convert(object) }
            // What the conversion wrote out of turn is delivered now, out of it (a no-op inside a
            // transform, whose step delivers it).
            UserCode.deliverHeldBack()
            guard let converted else { return false }
            enum Outcome {
                case moved, nothingToMove
                case changedMeanwhile(Any)
            }
            var outcome = Outcome.nothingToMove
            do {
                try context.log.compoundStep(context.prepareDomain(), names: [from, to]) { read, write in
                    guard read(to) == nil, let now = read(from) else { return }
                    guard propertyListsEqual(now, object, by: .exact) else {
                        outcome = .changedMeanwhile(now)
                        return
                    }
                    // The old name first: a change of a name replaces its other forms (Linux), and `to`
                    // may be another form of `from`.
                    write(nil, from)
                    write(converted, to)
                    outcome = .moved
                }
            } catch {
                ErrorReporting.report(error)
                if case .moved = outcome { return true }
                return false
            }
            switch outcome {
            case .moved: return true
            case .nothingToMove: return false
            case .changedMeanwhile(let now): object = now
            }
        }
        return false
    }

    /// How many times a move converts a value that changed while it was converted before it gives up
    /// (returns false; the old value stays where it is, to be moved at the next call).
    private static let conversionTries = 8
}
