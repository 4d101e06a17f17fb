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
    /// Two value types are no conflict when each one's values read back as the other's, whatever their
    /// defaults: a type and a `RawRepresentable` type whose raw value it is (a `String` key and a key of
    /// an enum with `String` raw values: an `@AppStorage` string and the app's enum key of one name,
    /// during a move; an `Int` and an `Int` enum), optional or not (`convertsBothWays`). Any other two
    /// types are a conflict, even when their defaults store alike (two `Codable` structs whose defaults
    /// both encode as `{}`, arrays of two element types defaulting to `[]`): one would overwrite the
    /// other's values.
    func conflicts(with other: any AnyTypedKey) -> Bool {
        if valueType != other.valueType { return !convertsBothWays(valueType, other.valueType) }
        return declaration != other.declaration && !agreesOnDefault(with: other)
    }

    /// Whether `other` gives the name the same default (see `defaultsAgree`).
    func agreesOnDefault(with other: some AnyTypedKey) -> Bool {
        defaultsAgree(
            computed: hasComputedDefault, defaultObject, computed: other.hasComputedDefault, other.defaultObject)
    }
}

/// Whether the values of `first` read back as `second`'s and the other way round: after taking off
/// `Optional`, one type is the other or its raw value (`RawRepresentable`, once or more: an enum whose
/// raw values are another enum's).
func convertsBothWays(_ first: Any.Type, _ second: Any.Type) -> Bool {
    let (first, second) = (unwrappingOptional(first), unwrappingOptional(second))
    return rawValueChain(of: first).contains { $0 == second } || rawValueChain(of: second).contains { $0 == first }
}

/// `type` without its `Optional`s.
private func unwrappingOptional(_ type: Any.Type) -> Any.Type {
    var type = type
    while let optional = type as? any OptionalMetatype.Type { type = optional.wrappedType }
    return type
}

/// `type`, its raw value's type, that type's raw value's type, and so on (a few at most).
private func rawValueChain(of type: Any.Type) -> [Any.Type] {
    func rawValueType<Raw: RawRepresentable>(of _: Raw.Type) -> Any.Type { Raw.RawValue.self }
    var chain = [type]
    while chain.count < 8, let raw = chain.last as? any RawRepresentable.Type {
        let next = unwrappingOptional(rawValueType(of: raw))
        if chain.contains(where: { $0 == next }) { break }
        chain.append(next)
    }
    return chain
}

/// An `Optional` type, for its wrapped type.
private protocol OptionalMetatype {
    static var wrappedType: Any.Type { get }
}

extension Optional: OptionalMetatype {
    fileprivate static var wrappedType: Any.Type { Wrapped.self }
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
    static func report(name: String, first: String, second: String) {
        let conflict = KeyConflict(name: name, first: first, second: second)
        #if DEBUG
            assertionFailure("TypedDefaults: \(conflict)")
        #else
            guard ProcessState.withState({ $0.reported.insert(name).inserted }) else { return }
            FileHandle.standardError.write(Data("TypedDefaults warning: \(conflict)\n".utf8))
        #endif
    }

    /// Reports `error` through ``ErrorReporting`` the first time `subject` is given, in every build.
    static func reportOnce(_ subject: String, _ error: DefaultsError) {
        guard ProcessState.withState({ $0.reported.insert(subject).inserted }) else { return }
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
