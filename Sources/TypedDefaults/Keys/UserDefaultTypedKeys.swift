/// The namespace for your keys: extend it with `static let` keys.
///
/// ```swift
/// extension UserDefaultTypedKeys {
///     static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
///     static let username = UserDefaultTypedKey<String?>("username")
/// }
/// ```
///
/// Because ``UserDefaultTypedKey`` inherits from this class, a static key declared here is found by
/// implicit member lookup wherever a key is expected: `Defaults[.launchCount]`.
open class UserDefaultTypedKeys: @unchecked Sendable {
    // No stored state: the class exists to be extended, and only the library subclasses it.
    init() {}

    /// The key as a typed key, without a dynamic cast (which costs more than registering a key).
    var typedKey: (any AnyTypedKey)? { nil }
}

/// A typed key: the name a value is stored under, its type, and its default.
///
/// The default lives in the key only, so every store, wrapper and call site agrees on it.
/// Give the name explicitly, or let the key take the name of the property that declares it:
///
/// ```swift
/// extension UserDefaultTypedKeys {
///     static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .system)
///     static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }  // stored as "sessions"
/// }
/// ```
public final class UserDefaultTypedKey<Value: UserDefaultConvertible>: UserDefaultTypedKeys, @unchecked Sendable {
    // A key holds nothing but its declaration: where it is bound in a store is kept by the store's
    // shared state, by stored name and value type, so a key object made anew on every access (a
    // computed `static var`) costs what a `static let` key costs.

    /// The name the value is stored under, before any store prefix.
    public let name: String
    /// `name.hashValue`, computed once: stores find a key's binding by it on every access.
    let nameHash: Int
    /// The default in its stored form, computed once; `nil` when there is nothing to register.
    let defaultObject: Any?
    /// The value a read returns when nothing readable is stored.
    public let defaultValue: Value

    /// Creates a key with a name and a default.
    ///
    /// - Parameters:
    ///   - name: The stored name. Leave it out to use the name of the declaring property; that works
    ///     for a computed `static var` only (in a `static let`, Swift gives the type's name instead,
    ///     which the library reports as a mistake).
    ///   - defaultValue: What a read returns when nothing readable is stored. For a non-optional
    ///     value it is registered with the store's `register(defaults:)`, so it is never written.
    public init(_ name: String = #function, defaultValue: Value) {
        self.name = name
        self.nameHash = name.hashValue
        self.defaultValue = defaultValue
        self.defaultObject = defaultValue.userDefaultsObject
        super.init()
        if name == "UserDefaultTypedKeys" {
            ConflictReporting.reportMissingName(description)
        }
    }

    override var typedKey: (any AnyTypedKey)? { self }

    /// Creates a key for an optional value, whose default is `nil`.
    public convenience init(_ name: String = #function) where Value: ExpressibleByNilLiteral {
        self.init(name, defaultValue: nil)
    }
}

extension UserDefaultTypedKey: CustomStringConvertible {
    /// The key's name, value type and default, as conflict reports print it.
    public var description: String {
        "UserDefaultTypedKey<\(Value.self)>(\"\(name)\", defaultValue: \(defaultValue))"
    }
}

extension UserDefaultTypedKey: Hashable {
    /// Two keys are equal when they have the same name (and, as their type says, the same value type);
    /// their defaults are not compared.
    public static func == (lhs: UserDefaultTypedKey, rhs: UserDefaultTypedKey) -> Bool {
        lhs.name == rhs.name
    }

    /// Hashes the name and the value type, so keys go into sets and dictionaries.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(ObjectIdentifier(Value.self))
    }
}
