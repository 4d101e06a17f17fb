/// A family of keys built at run time, one per member, with one rule for their defaults: an app's
/// per-forum theme (`theme-light-<forumID>`), a per-account flag.
///
/// ```swift
/// extension UserDefaultTypedKeys {
///     static let forumTheme = UserDefaultKeyFamily<Theme>("theme-", defaultValue: { _ in .system })
/// }
/// Defaults[.forumTheme["swift"]] = .dark          // stored as "theme-swift"
/// let token = Defaults.observe(.forumTheme["swift"]) { print($0.newValue) }
/// let forums = UserDefaultTypedKeys.forumTheme.members(in: Defaults)   // ["swift"]
/// ```
///
/// A member's key is a key like any other: read, written, observed and synced through the store.
public final class UserDefaultKeyFamily<Value: UserDefaultConvertible>: UserDefaultTypedKeys, @unchecked Sendable {
    // @unchecked: immutable after init.

    /// What every member's stored name begins with.
    public let prefix: String
    private let makeDefault: @Sendable (String) -> Value
    private let declaration: (fileID: StaticString, line: UInt, column: UInt)

    /// A family whose member `id` is stored under `prefix + id`, with the default `defaultValue(id)`.
    ///
    /// - Parameters:
    ///   - prefix: What every member's stored name begins with.
    ///   - defaultValue: The default of the member with this id.
    ///   - fileID: Leave it out: where the family is declared, which its members share.
    ///   - line: Leave it out: see `fileID`.
    ///   - column: Leave it out: see `fileID`.
    public init(
        _ prefix: String, defaultValue: @escaping @Sendable (_ id: String) -> Value, fileID: StaticString = #fileID,
        line: UInt = #line, column: UInt = #column
    ) {
        self.prefix = prefix
        makeDefault = defaultValue
        declaration = (fileID, line, column)
        super.init()
    }

    /// The key of member `id`: stored under `prefix + id`, with the family's default for `id`.
    public subscript(_ id: String) -> UserDefaultTypedKey<Value> {
        // A member's name is the family's prefix and its id, never `#function`: not checked against it.
        UserDefaultTypedKey(
            prefix + id, given: .explicit(function: nil), makeDefault(id), makeDefault: nil,
            declaration: KeyDeclaration(
                fileID: declaration.fileID, line: declaration.line, column: declaration.column, familyPrefix: prefix))
    }

    /// The ids of the members with a value stored in `store` (under its prefix), sorted. A member that
    /// only reads its default is not stored, so it is not listed (unlike `dictionaryRepresentation()`,
    /// which also holds registered defaults).
    public func members(in store: DefaultsStore) -> [String] {
        store.snapshot().keys.compactMap { suffix(of: $0, after: prefix) }.sorted()
    }
}
