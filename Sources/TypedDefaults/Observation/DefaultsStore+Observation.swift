extension DefaultsStore {
    /// Calls `onChange` with the old and new value each time `key`'s value changes through any store
    /// over the same suite or storage: a set, a `nil` assignment, `remove`, `removeAll`, `migrate`,
    /// or a write through another key of the same stored name.
    ///
    /// The callback runs on the thread that made the change, once the new value is readable, with no
    /// lock of the library held: it may read and write the store, the observed key included.
    ///
    /// On Linux, values another process saved in the suite's file, and hand edits of it, are seen too,
    /// on the library's file-watching thread. Not seen: writes made through the plain `UserDefaults`
    /// API in this process (Linux posts no notification), and on Apple platforms changes made by
    /// another process (reads return them; observers do not hear of them).
    ///
    /// - Returns: A token; the observation lasts until you cancel or release it.
    public func observe<Value>(
        _ key: UserDefaultTypedKey<Value>,
        _ onChange: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        let name = storedName(key)
        let observer = Observer(name: name, registry: context.observers) { oldObject, newObject in
            onChange(
                DefaultsChange(
                    oldValue: Self.value(of: key, from: oldObject), newValue: Self.value(of: key, from: newObject)))
        }
        context.observers.add(observer)
        return ObservationToken(observer: observer, context: context)
    }

    /// The current value of `key`, then its value after each change, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await theme in Defaults.updates(.theme) { apply(theme) }
    /// ```
    /// The sequence ends its observation when the loop ends or its task is cancelled. Changes that come
    /// faster than the loop consumes them are all delivered, in order.
    public func updates<Value>(_ key: UserDefaultTypedKey<Value>) -> AsyncStream<Value> {
        AsyncStream { continuation in
            // The first value must come before any change: hold back changes until it is sent.
            let firstSent = Locked(false)
            let pendingChanges = Locked<[Value]>([])
            let token = observe(key) { change in
                let sendNow = firstSent.withLock { sent in
                    if !sent { pendingChanges.withLock { $0.append(change.newValue) } }
                    return sent
                }
                if sendNow { continuation.yield(change.newValue) }
            }
            firstSent.withLock { sent in
                continuation.yield(self[key])
                for value in pendingChanges.withLock({ $0 }) { continuation.yield(value) }
                sent = true
            }
            continuation.onTermination = { _ in token.cancel() }
        }
    }
}
