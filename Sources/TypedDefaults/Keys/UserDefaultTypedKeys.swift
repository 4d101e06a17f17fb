import Foundation

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
public class UserDefaultTypedKeys: @unchecked Sendable {
    // @unchecked: no stored state; only the library subclasses it (the keys and key families).
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
    // @unchecked: immutable after init (its default closure is `@Sendable`).
    // A key holds nothing but its declaration: where it is bound in a store is kept by the store's
    // shared state, by stored name and value type, so a key object made anew on every access (a
    // computed `static var`) costs what a `static let` key costs.

    /// The name the value is stored under, before any store prefix.
    public let name: String
    /// `name.hashValue`, computed once: stores find a key's binding by it on every access.
    let nameHash: Int
    /// The default in its stored form, computed once; `nil` when there is nothing to register (an
    /// optional key's `nil`, or a default computed at each read).
    let defaultObject: Any?
    /// Where the key is declared: two key objects from one declaration (a computed `static var`) may
    /// give different defaults without being a conflict.
    let declaration: KeyDeclaration
    /// The default given, or for a key with a default closure, what it returned when the key was made.
    @usableFromInline let givenDefault: Value
    /// The closure of a key whose default is computed at each read.
    @usableFromInline let makeDefault: (@Sendable () -> Value)?
    /// Whether the key was made without a name where Swift's `#function` is not a property's name (a
    /// `static let`, where it is the type's name, shared by every such key of the type; a function or a
    /// closure). Stores refuse its writes and read its default (``DefaultsError/namelessKey(key:)``).
    let isNameless: Bool

    /// The value a read returns when nothing readable is stored: the key's default, or, for a key made
    /// with ``init(_:default:fileID:line:column:function:)``, what its closure returns now.
    @inlinable public var defaultValue: Value {
        if let makeDefault { return makeDefault() }
        return givenDefault
    }

    /// Whether the default is computed at each read (``init(_:default:fileID:line:column:function:)``).
    package var hasComputedDefault: Bool { makeDefault != nil }

    /// Creates a key with a name and a default.
    ///
    /// - Parameters:
    ///   - name: The stored name. Accepted whatever it looks like and whatever type shares it, but for
    ///     one: the name `#function` gives where the key is declared, when that is a type's name (in a
    ///     `static let`, `UserDefaultTypedKey<T>(#function, ...)` is the enclosing type's name, which
    ///     every such key of the type would share). Such a key is nameless (see
    ///     ``DefaultsError/namelessKey(key:)``) in every launch, whichever keys the launch uses.
    ///   - defaultValue: What a read returns when nothing readable is stored. For a non-optional
    ///     value it is registered with the store's `register(defaults:)`, so it is never written.
    ///   - fileID: Leave it out: with `line` and `column`, where the key is declared. Key objects
    ///     from one declaration (a computed `static var`, made anew on each access) may give different
    ///     defaults; two declarations of one name with different defaults are a conflict.
    ///   - line: Leave it out: see `fileID`.
    ///   - column: Leave it out: see `fileID`.
    ///   - function: Leave it out: the name Swift gives the declaration, against which `name` is checked.
    public convenience init(
        _ name: String, defaultValue: Value, fileID: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column, function: String = #function
    ) {
        self.init(
            name, given: .explicit(function: function), defaultValue, makeDefault: nil,
            declaration: KeyDeclaration(fileID: fileID, line: line, column: column))
    }

    /// Creates a key named after the property that declares it: for a computed `static var`, where
    /// Swift gives the property's name (`static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }`
    /// is stored as "sessions").
    ///
    /// Where Swift gives no name of the key's own, the key is nameless: in a `static let` (the type's
    /// name), at file scope (the module's name), in a function or a closure, or a name another
    /// declaration already left out too. Its writes are refused and reported and reads give its default
    /// (``DefaultsError/namelessKey(key:)``), so that no two keys share a stored name by accident.
    ///
    /// - Parameters:
    ///   - defaultValue: What a read returns when nothing readable is stored.
    ///   - fileID: Leave it out: where the key is declared.
    ///   - line: Leave it out: see `fileID`.
    ///   - column: Leave it out: see `fileID`.
    ///   - function: Leave it out: the name Swift gives the declaration, which the key takes.
    public convenience init(
        defaultValue: Value, fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: String = #function
    ) {
        self.init(
            function, given: .leftOut, defaultValue, makeDefault: nil,
            declaration: KeyDeclaration(fileID: fileID, line: line, column: column))
    }

    /// Creates a key whose default is computed each time a read needs it: a date relative to now, a
    /// value from a remote configuration that may change while the app runs.
    ///
    /// ```swift
    /// extension UserDefaultTypedKeys {
    ///     static let lastReviewRequest = UserDefaultTypedKey<Date>("lastReviewRequest", default: { Date.now })
    /// }
    /// ```
    ///
    /// Such a default is not registered with the store's `register(defaults:)`: the plain
    /// `UserDefaults` API sees nothing for the name until a value is stored (`object(forKey:)` is
    /// `nil`), and ``DefaultsStore/hasKey(_:)`` is `false` until then.
    ///
    /// The name is checked as ``init(_:defaultValue:fileID:line:column:function:)`` says.
    public convenience init(
        _ name: String, default makeDefault: @escaping @Sendable () -> Value, fileID: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column, function: String = #function
    ) {
        // Called once here too, so that a key always holds a value of its type (its description, a
        // stored property of a non-optional type); reads call it again.
        self.init(
            name, given: .explicit(function: function), makeDefault(), makeDefault: makeDefault,
            declaration: KeyDeclaration(fileID: fileID, line: line, column: column))
    }

    /// Creates a key named after the property that declares it, whose default is computed each time a
    /// read needs it. Nameless where Swift gives no name of the key's own, as
    /// ``init(defaultValue:fileID:line:column:function:)`` says.
    ///
    /// - Parameters:
    ///   - makeDefault: Computes the default at each read that needs it.
    ///   - fileID: Leave it out: where the key is declared.
    ///   - line: Leave it out: see `fileID`.
    ///   - column: Leave it out: see `fileID`.
    ///   - function: Leave it out: the name Swift gives the declaration, which the key takes.
    public convenience init(
        default makeDefault: @escaping @Sendable () -> Value, fileID: StaticString = #fileID, line: UInt = #line,
        column: UInt = #column, function: String = #function
    ) {
        self.init(
            function, given: .leftOut, makeDefault(), makeDefault: makeDefault,
            declaration: KeyDeclaration(fileID: fileID, line: line, column: column))
    }

    /// How a key got its name, for the nameless rule (`LeftOutNames`).
    enum NameSource {
        /// Given, at a declaration where `#function` is `function` (nil: made by the library, a family's
        /// member, whose name is never `#function`).
        case explicit(function: String?)
        /// Left out: the name is `#function`.
        case leftOut
    }

    /// Every key is made here: the name in the form keys store (`canonicalName`, with one scan for
    /// ASCII), and whether it is nameless by the rule for a name given or left out (`LeftOutNames`).
    @inline(__always)
    init(
        _ name: String, given: NameSource, _ givenDefault: Value, makeDefault: (@Sendable () -> Value)?,
        declaration: KeyDeclaration
    ) {
        let givenName = name
        let name = canonicalName(name)
        self.name = name
        self.nameHash = name.hashValue
        self.givenDefault = givenDefault
        self.makeDefault = makeDefault
        // A default computed at each read is not registered.
        self.defaultObject = makeDefault == nil ? givenDefault.userDefaultsObject : nil
        self.declaration = declaration
        switch given {
        case .explicit(let function?):
            isNameless = LeftOutNames.isNamelessExplicit(givenName, function: function, declaredAt: declaration)
        case .explicit(nil): isNameless = false
        case .leftOut: isNameless = LeftOutNames.isNameless(name, declaredAt: declaration)
        }
        super.init()
        if isNameless { reportNameless() }
    }

    /// Reports, once per declaration, that the key has no name of its own.
    private func reportNameless() {
        ConflictReporting.reportOnce(
            "nameless " + declaration.description, DefaultsError.namelessKey(key: description))
    }

    override var typedKey: (any AnyTypedKey)? { self }

    /// Creates a key for an optional value, whose default is `nil`.
    public convenience init(
        _ name: String, fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column,
        function: String = #function
    ) where Value: ExpressibleByNilLiteral {
        self.init(name, defaultValue: nil, fileID: fileID, line: line, column: column, function: function)
    }

    /// Creates a key for an optional value, whose default is `nil`, named after the property that
    /// declares it (see ``init(defaultValue:fileID:line:column:function:)``).
    public convenience init(
        fileID: StaticString = #fileID, line: UInt = #line, column: UInt = #column, function: String = #function
    ) where Value: ExpressibleByNilLiteral {
        self.init(defaultValue: nil, fileID: fileID, line: line, column: column, function: function)
    }
}

extension UserDefaultTypedKey: EquatableDefaultKey where Value: Equatable {
    /// Casts to `Self`, whose type the runtime reads from this key: a cast to `UserDefaultTypedKey<Value>`
    /// in generic code looks the generic type up at each call, which a key made on each access paid at
    /// every read.
    func hasSameGivenDefault(as other: AnyObject) -> Bool {
        guard let other = other as? Self else { return false }
        return other.givenDefault == givenDefault
    }
}

/// Where a key is declared, as the compiler gives it.
struct KeyDeclaration: Sendable, Equatable, CustomStringConvertible {
    let fileID: StaticString
    let line: UInt
    let column: UInt
    /// For a family's member, the family's prefix (`UserDefaultKeyFamily`): its key manifest records the
    /// family once, not each member.
    var familyPrefix: String? = nil

    static func == (lhs: KeyDeclaration, rhs: KeyDeclaration) -> Bool {
        lhs.line == rhs.line && lhs.column == rhs.column && lhs.fileID.description == rhs.fileID.description
    }

    var description: String { "\(fileID):\(line)" }
}

extension UserDefaultTypedKey: CustomStringConvertible {
    /// The key's name, value type and default, as conflict reports print it.
    public var description: String {
        if hasComputedDefault {
            "UserDefaultTypedKey<\(Value.self)>(\"\(name)\", default: { ... }) at \(declaration)"
        } else {
            "UserDefaultTypedKey<\(Value.self)>(\"\(name)\", defaultValue: \(exactDescription(of: givenDefault))) at \(declaration)"
        }
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
