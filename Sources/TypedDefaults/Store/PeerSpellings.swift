// The names a user moving from sindresorhus/Defaults or SwiftyUserDefaults types out of habit, each
// unavailable with the spelling here in its message: the compiler answers instead of "no member".
// Correct code never picks them.
import Foundation

extension UserDefaultTypedKey {
    /// Unavailable: sindresorhus/Defaults' `default:` label.
    @available(
        *, unavailable,
        message:
            "TypedDefaults names the default 'defaultValue:': UserDefaultTypedKey<T>(\"name\", defaultValue: value); a default computed at each read is 'default: { ... }'"
    )
    public convenience init(_ name: String = #function, default: Value) {
        fatalError("unavailable")
    }
}

extension UserDefaultTypedKey {
    // sindresorhus/Defaults' `suite:` and `iCloud:` arguments of a key, as the guide's table leaves them
    // (`Key<T>("x", default: v, suite: s)` becomes `UserDefaultTypedKey<T>("x", defaultValue: v, suite: s)`):
    // the compiler says what takes their place instead of "extra argument".

    /// Unavailable: sindresorhus/Defaults' `suite:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no suite in TypedDefaults: choose the app's store once at launch, DefaultsStore.bootstrap(DefaultsStore(suiteName: \"group.example\")!), or use the key with store: where it lives in another suite"
    )
    public convenience init(_ name: String, defaultValue: Value, suite: UserDefaults) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `suite:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no suite in TypedDefaults: choose the app's store once at launch, DefaultsStore.bootstrap(DefaultsStore(suiteName: \"group.example\")!), or use the key with store: where it lives in another suite"
    )
    public convenience init(_ name: String, suite: UserDefaults) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `suite:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no suite in TypedDefaults: choose the app's store once at launch, DefaultsStore.bootstrap(DefaultsStore(suiteName: \"group.example\")!), or use the key with store: where it lives in another suite"
    )
    public convenience init(_ name: String, default makeDefault: @escaping @Sendable () -> Value, suite: UserDefaults) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `iCloud:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no iCloud: argument in TypedDefaults: sync the keys once at launch, Defaults.sync(.a, .b), and choose a suite's store with DefaultsStore.bootstrap"
    )
    public convenience init(_ name: String, defaultValue: Value, iCloud: Bool) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `iCloud:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no iCloud: argument in TypedDefaults: sync the keys once at launch, Defaults.sync(.a, .b), and choose a suite's store with DefaultsStore.bootstrap"
    )
    public convenience init(_ name: String, defaultValue: Value, suite: UserDefaults, iCloud: Bool) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `iCloud:` argument of a key.
    @available(
        *, unavailable,
        message:
            "a key has no iCloud: argument in TypedDefaults: sync the keys once at launch, Defaults.sync(.a, .b), and choose a suite's store with DefaultsStore.bootstrap"
    )
    public convenience init(_ name: String, iCloud: Bool) {
        fatalError("unavailable")
    }
}

extension UserDefaultTypedKey {
    /// Unavailable: SwiftyUserDefaults' `key.key`, the key's name.
    @available(*, unavailable, renamed: "name", message: "TypedDefaults calls a key's name name")
    public var key: String { name }
}

extension DefaultsStore {
    /// Unavailable: sindresorhus/Defaults' `reset(_:)`.
    @available(
        *, unavailable, renamed: "remove",
        message: "TypedDefaults calls it remove: Defaults.remove(.a, .b) gives the keys their defaults again"
    )
    public func reset<each Value>(_ keys: repeat UserDefaultTypedKey<each Value>) {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `observe(_:options:_:)`.
    @available(
        *, unavailable,
        message:
            "TypedDefaults says observe(.key, initial: true) { change in ... }; without 'initial: true' it does not call at once"
    )
    public func observe<Value>(
        _ key: UserDefaultTypedKey<Value>, options: ObservationOptions,
        _ onChange: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        fatalError("unavailable")
    }
}

extension DefaultsStore {
    /// Unavailable: SwiftyUserDefaults' `observe(\.key)`, which took a key path.
    @available(
        *, unavailable,
        message: "TypedDefaults observes the key itself, not a key path: observe(.key) { change in ... }"
    )
    public func observe<Value>(
        _ keyPath: KeyPath<UserDefaultTypedKeys.Type, UserDefaultTypedKey<Value>>,
        _ onChange: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        fatalError("unavailable")
    }
}

/// Unavailable: sindresorhus/Defaults' observation options; TypedDefaults has `initial:`.
@available(*, unavailable, message: "TypedDefaults has observe(.key, initial: true) instead of options")
public struct ObservationOptions: OptionSet, Sendable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let initial = ObservationOptions(rawValue: 1)
    public static let prior = ObservationOptions(rawValue: 2)
}

/// Unavailable: SwiftyUserDefaults' type that holds the keys.
@available(
    *, unavailable, renamed: "UserDefaultTypedKeys",
    message: "TypedDefaults' keys are static members of UserDefaultTypedKeys"
)
public typealias DefaultsKeys = UserDefaultTypedKeys

/// Unavailable: SwiftyUserDefaults' protocol of storable types.
@available(
    *, unavailable, renamed: "UserDefaultConvertible",
    message: "TypedDefaults' storable types conform to UserDefaultConvertible"
)
public typealias DefaultsSerializable = UserDefaultConvertible

/// Unavailable: SwiftyUserDefaults' observation token.
@available(*, unavailable, renamed: "ObservationToken", message: "TypedDefaults' observe returns an ObservationToken")
public typealias DefaultsDisposable = ObservationToken

extension ObservationToken {
    /// Unavailable: sindresorhus/Defaults' `invalidate()`.
    @available(*, unavailable, renamed: "cancel()", message: "TypedDefaults calls it cancel()")
    public func invalidate() {
        fatalError("unavailable")
    }

    /// Unavailable: SwiftyUserDefaults' `dispose()`.
    @available(*, unavailable, renamed: "cancel()", message: "TypedDefaults calls it cancel()")
    public func dispose() {
        fatalError("unavailable")
    }

    /// Unavailable: sindresorhus/Defaults' `tieToLifetime(of:)`.
    @available(
        *, unavailable,
        message:
            "keep the token in a stored property of that object instead: releasing the token (with the object) ends the observation"
    )
    public func tieToLifetime(of object: AnyObject) -> Self {
        fatalError("unavailable")
    }
}

/// Unavailable: Foil's protocol of storable types.
@available(
    *, unavailable, renamed: "UserDefaultConvertible",
    message:
        "TypedDefaults' storable types conform to UserDefaultConvertible: Foil's init(storedValue:) and storedValue are init?(userDefaultsObject:) and userDefaultsObject, and Codable and raw-value types need the conformance only"
)
public typealias UserDefaultsSerializable = UserDefaultConvertible

/// Unavailable: Foil's wrapper, as an attribute or as a value. An app that still imports Foil during
/// its move keeps Foil's own: an available declaration wins over this one.
@available(
    *, unavailable,
    message:
        "TypedDefaults' wrapper is UserDefault, and the key holds the name and default: UserDefaultTypedKey<T>(\"x\", defaultValue: v), then @UserDefault(.x) var x: T, or UserDefault(.x, store: DefaultsStore(storage: defaults)) as a value"
)
@propertyWrapper
public struct FoilDefaultStorage<Value> {
    public var wrappedValue: Value { fatalError("unavailable") }

    public init(wrappedValue: Value, key: String, userDefaults: UserDefaults = .standard) {
        fatalError("unavailable")
    }
}

/// Unavailable: Foil's wrapper of an optional value.
@available(
    *, unavailable,
    message:
        "TypedDefaults' wrapper is UserDefault, and the key holds the name: UserDefaultTypedKey<T?>(\"x\"), then @UserDefault(.x) var x: T?, or UserDefault(.x, store: DefaultsStore(storage: defaults)) as a value"
)
@propertyWrapper
public struct FoilDefaultStorageOptional<Value> {
    public var wrappedValue: Value? { fatalError("unavailable") }

    public init(key: String, userDefaults: UserDefaults = .standard) {
        fatalError("unavailable")
    }
}
