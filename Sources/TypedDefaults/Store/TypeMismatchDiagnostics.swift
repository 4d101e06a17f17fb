// Overloads no program can call: they exist for the compiler's error messages, on the store and on
// the `@UserDefault` wrapper.
//
// A key is found by implicit member lookup through the key class hierarchy (`.maxItems`), and when
// the value has another type than the key's (`Defaults[.maxItems] = "ten"`), Swift 6.3 gives up with
// "failed to produce diagnostic for expression". An unavailable overload whose value type is free of
// the key's gives the type checker a solution to settle on, so the user reads the message below
// instead. Correct code never picks them: an unavailable overload loses to any available one.

extension DefaultsStore {
    /// Unavailable: a value of another type than the key's.
    @available(
        *, unavailable,
        message: "the value must have the key's type: a UserDefaultTypedKey<T> reads and writes values of type T"
    )
    public subscript<Value, Other>(key: UserDefaultTypedKey<Value>) -> Other {
        get { fatalError("unavailable") }
        // swift-format-ignore: NoEmptyBlock
        set {}
    }

    /// Unavailable: a value of another type than the key's.
    @available(
        *, unavailable,
        message: "the value must have the key's type: a UserDefaultTypedKey<T> reads and writes values of type T"
    )
    public func set<Value, Other>(_ value: Other, for key: UserDefaultTypedKey<Value>) throws {}

    /// Unavailable: a stream of another type than the key's.
    @available(
        *, unavailable,
        message: "the values must have the key's type: the updates of a UserDefaultTypedKey<T> are of type T"
    )
    public func updates<Value, Other>(_ key: UserDefaultTypedKey<Value>, initial: Bool = true) -> AsyncStream<Other> {
        fatalError("unavailable")
    }

    /// Unavailable: a change of another type than the key's.
    @available(
        *, unavailable,
        message: "the change must have the key's type: a UserDefaultTypedKey<T> gives a DefaultsChange<T>"
    )
    public func observe<Value, Other>(
        _ key: UserDefaultTypedKey<Value>, initial: Bool = false,
        _ onChange: @escaping @Sendable (DefaultsChange<Other>) -> Void
    ) -> ObservationToken {
        fatalError("unavailable")
    }
}

extension UserDefault {
    /// Unavailable: the default lives in the key, so a property has no initial value of its own.
    @available(
        *, unavailable,
        message:
            "the default lives in the key: UserDefaultTypedKey<T>(\"name\", defaultValue: value), and the property has no '= value'"
    )
    public init(wrappedValue: Value, _ key: UserDefaultTypedKey<Value>, store: DefaultsStore = Defaults) {
        fatalError("unavailable")
    }

    /// Unavailable: a property of another type than the key's.
    @available(
        *, unavailable,
        message: "the property must have the key's type: a UserDefaultTypedKey<T> backs a property of type T"
    )
    public init<Other>(_ key: UserDefaultTypedKey<Other>, store: DefaultsStore = Defaults) {
        fatalError("unavailable")
    }
}
