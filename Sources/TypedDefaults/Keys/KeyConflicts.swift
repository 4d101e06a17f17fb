import Foundation

/// A stored name declared by two keys that disagree on the value type or the default.
public struct KeyConflict: Sendable, Equatable, CustomStringConvertible {
    /// The stored name both keys use.
    public let name: String
    /// The first key, described with its type and default.
    public let first: String
    /// The key that disagrees with it.
    public let second: String

    /// A sentence naming the name and both keys.
    public var description: String {
        "two keys store \"\(name)\" differently: \(first) and \(second)"
    }
}

/// A key whatever its value type: what conflict checks compare.
protocol AnyTypedKey: Sendable, CustomStringConvertible {
    var name: String { get }
    var valueType: Any.Type { get }
    var defaultObject: Any? { get }
    var declaration: KeyDeclaration { get }
    var hasComputedDefault: Bool { get }
}

/// A key whose value type has `==`: another key object's given default is compared with its own by it.
/// A conformance the runtime looks up once per name, for the name's first key, not at each read of a
/// key made on each access (a computed `static var`).
protocol EquatableDefaultKey: AnyObject, Sendable {
    /// Whether `other` is a key of this value type whose given default is this key's.
    func hasSameGivenDefault(as other: AnyObject) -> Bool
}

extension UserDefaultTypedKey: AnyTypedKey {
    var valueType: Any.Type { Value.self }
}

extension AnyTypedKey {
    /// Whether `other` stores a different form under the same name, or is another declaration of it
    /// with another default. Key objects from one declaration (a computed `static var`) may give
    /// different defaults: a read returns the default of the key it was given. Two defaults computed at
    /// each read cannot be compared and are taken as agreeing; one computed and one given do not.
    ///
    /// Two value types are one stored form when both keys give a default and the defaults are the same
    /// property list: a `String` key and a key of an enum with `String` raw values, whose defaults
    /// `"imgur"` and `.imgur` are both stored as the text "imgur" (an `@AppStorage` string and an app's
    /// enum key of one name, during a move).
    func conflicts(with other: any AnyTypedKey) -> Bool {
        if valueType != other.valueType { return !storesTheSameForm(as: other) }
        return declaration != other.declaration && !agreesOnDefault(with: other)
    }

    /// Whether `other`, of another value type, gives the name the same given default, by its stored
    /// form (exactly: `1` and `1.0`, `true` and `1` differ).
    func storesTheSameForm(as other: any AnyTypedKey) -> Bool {
        guard !hasComputedDefault, !other.hasComputedDefault, let mine = defaultObject,
            let theirs = other.defaultObject
        else { return false }
        return propertyListsEqual(mine, theirs, by: .exact)
    }

    /// Whether `other` gives the name the same default (see `defaultsAgree`).
    func agreesOnDefault(with other: some AnyTypedKey) -> Bool {
        defaultsAgree(
            computed: hasComputedDefault, defaultObject, computed: other.hasComputedDefault, other.defaultObject)
    }
}

/// Whether two keys' defaults agree, by their stored forms: two computed at each read cannot be
/// compared and are taken as agreeing; one computed and one given do not.
func defaultsAgree(computed first: Bool, _ firstObject: Any?, computed second: Bool, _ secondObject: Any?) -> Bool {
    guard first == second else { return false }
    return first || propertyListsEqual(firstObject, secondObject)
}

extension UserDefaultTypedKeys {
    /// The conflicts among `keys`: names used by two keys with different value types or defaults.
    ///
    /// Put it in your unit tests so that a conflict fails a test rather than surprising a user:
    /// ```swift
    /// #expect(UserDefaultTypedKeys.conflicts(among: [.launchCount, .theme, .legacyTheme]).isEmpty)
    /// ```
    public static func conflicts(among keys: [UserDefaultTypedKeys]) -> [KeyConflict] {
        var firstByName: [String: any AnyTypedKey] = [:]
        var conflicts: [KeyConflict] = []
        for key in keys.lazy.compactMap(\.typedKey) {
            guard let first = firstByName[key.name] else {
                firstByName[key.name] = key
                continue
            }
            if first.conflicts(with: key) {
                conflicts.append(KeyConflict(name: key.name, first: first.description, second: key.description))
            }
        }
        return conflicts
    }
}

/// Reports a stored name used with two different types or defaults in one process: an assertion in
/// debug builds, where a developer sees it, and a one-time warning on standard error in release builds.
enum ConflictReporting {
    private static let reported = Locked<Set<String>>([])

    static func report(name: String, first: String, second: String) {
        let conflict = KeyConflict(name: name, first: first, second: second)
        #if DEBUG
            assertionFailure("TypedDefaults: \(conflict)")
        #else
            guard reported.withLock({ $0.insert(name).inserted }) else { return }
            FileHandle.standardError.write(Data("TypedDefaults warning: \(conflict)\n".utf8))
        #endif
    }

    /// Reports `error` through ``ErrorReporting`` the first time `subject` is given, in every build.
    static func reportOnce(_ subject: String, _ error: DefaultsError) {
        guard reported.withLock({ $0.insert(subject).inserted }) else { return }
        ErrorReporting.report(error)
    }
}

/// `value` as a conflict report prints it: as Swift describes it, but a date to the fraction of a second
/// (Swift's description rounds to the second, so two different dates read as one).
func exactDescription(of value: Any) -> String {
    switch value {
    case let date as Date:
        return "\(date) (timeIntervalSinceReferenceDate: \(date.timeIntervalSinceReferenceDate))"
    case let array as [Any] where array.contains(where: { $0 is Date }):
        return "[" + array.map(exactDescription(of:)).joined(separator: ", ") + "]"
    default:
        return "\(value)"
    }
}
