/// A property backed by a key: reads and writes go to the store, so the property always shows the
/// stored value.
///
/// ```swift
/// struct Settings: Sendable {
///     @UserDefault(.launchCount) var launchCount: Int
///     @UserDefault(.theme, store: group) var theme: Theme
/// }
/// let settings = Settings()
/// settings.launchCount = 3        // writes through, even on a `let`
/// for await theme in settings.$theme.updates { apply(theme) }
/// ```
@propertyWrapper
public struct UserDefault<Value: UserDefaultConvertible>: Sendable {
    /// The key the property reads and writes.
    public let key: UserDefaultTypedKey<Value>
    /// The store the property reads and writes; ``Defaults`` unless you pass another.
    public let store: DefaultsStore

    /// A property over `key` in `store`. The default value is the key's: there is no second one.
    public init(_ key: UserDefaultTypedKey<Value>, store: DefaultsStore = Defaults) {
        self.key = key
        self.store = store
    }

    /// The stored value, or the key's default.
    public var wrappedValue: Value {
        get { store[key] }
        nonmutating set { store[key] = newValue }
    }

    /// The wrapper itself, for `$property.updates`, `$property.observe`, `$property.remove()`.
    public var projectedValue: UserDefault<Value> { self }

    /// The current value, then each change: `store.updates(key)`.
    public var updates: AsyncStream<Value> { store.updates(key) }

    /// With `initial: false`, only the values after changes: `store.updates(key, initial: false)`.
    public func updates(initial: Bool) -> AsyncStream<Value> { store.updates(key, initial: initial) }

    /// Calls `onChange` on each change (and once at once with `initial`): `store.observe(key, onChange)`.
    public func observe(
        initial: Bool = false, _ onChange: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        store.observe(key, initial: initial, onChange)
    }

    /// Calls `onChange` on `isolation`, the caller's actor, on each change:
    /// `store.observe(key, isolation: isolation, onChange)`.
    ///
    /// - Parameters:
    ///   - initial: Also call `onChange` once at once.
    ///   - isolation: The actor `onChange` runs on: `MainActor.shared`, or `self` in an actor.
    ///   - onChange: Called on `isolation` with the old and new value of each change.
    public func observe(
        initial: Bool = false, isolation: isolated any Actor, _ onChange: @escaping (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        store.observe(key, initial: initial, isolation: isolation, onChange)
    }

    /// Whether a value is stored: `store.hasKey(key)`, one word for one question.
    public var hasKey: Bool { store.hasKey(key) }

    /// Removes the stored value, so the property shows the key's default: `store.remove(key)`, one verb
    /// for one change.
    public func remove() { store.remove(key) }

    /// Unavailable: the store's word, `hasKey`, is the wrapper's too.
    @available(*, unavailable, renamed: "hasKey", message: "TypedDefaults asks hasKey, of the wrapper as of the store")
    public var isStored: Bool { hasKey }

    /// Unavailable: the store's verb, `remove`, is the wrapper's too.
    @available(
        *, unavailable, renamed: "remove()", message: "TypedDefaults calls it remove, on the wrapper as on the store"
    )
    public func reset() { remove() }
}

extension UserDefault: Hashable {
    /// Whether two properties read and write one stored value: the same key (name and value type) in the
    /// same storage under the same prefix. As Foil's wrapper is, so that a model holding one can be
    /// `Hashable` or `Equatable` by synthesis; the values themselves are not compared.
    public static func == (lhs: UserDefault, rhs: UserDefault) -> Bool {
        lhs.key == rhs.key && lhs.store.keyPrefix == rhs.store.keyPrefix && lhs.store.context === rhs.store.context
    }

    /// Hashes the key, the store's prefix and its storage.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key)
        hasher.combine(store.keyPrefix)
        hasher.combine(ObjectIdentifier(store.context))
    }
}
