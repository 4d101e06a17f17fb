import Foundation

/// The first key used with each stored name (its default is the registered one), and the names a key
/// used later gave another default. Kept under the binding table's lock, or under the process's for
/// `UserDefaults` storages, which share one registration (`NameBindings.withKeyRecords`); what the
/// records find to report is reported by the caller, with the lock released (a description may print
/// the app's values).
struct KeyRecords {
    var first: [String: any AnyTypedKey] = [:]
    /// Names whose registered default is not every key's: what the storage reads for them may be
    /// another key's default, so only a stored value is told to observers (`ChangeLog.observedObject`).
    var contested: Set<String> = []

    /// A key of a name that two keys gave: the first key's, and the one that disagrees with it.
    typealias Conflict = (name: String, first: any AnyTypedKey, second: any AnyTypedKey)

    /// Whether a record of `name` exists with a default other than `key`'s; the name is contested from
    /// then on.
    mutating func disagree(on name: String, with key: some AnyTypedKey) -> Bool {
        guard let first = first[name], !first.agreesOnDefault(with: key) else { return false }
        contested.insert(name)
        return true
    }

    /// A key object for a bound name other than the one that bound it, whose default differs from that
    /// key's. Another default from the same declaration (a computed `static var` whose default changes
    /// while the app runs) is allowed; another declaration that disagrees is a conflict, to report.
    /// `differs`: the key's default differs from the name's registered one: its reads must then tell a
    /// stored value from that default. The registration itself never changes, so no read can see
    /// another key's default in the middle of a change.
    mutating func admit(_ key: some AnyTypedKey, as storedName: String) -> (conflict: Conflict?, differs: Bool) {
        guard let first = first[storedName] else {
            first[storedName] = key
            return (nil, false)
        }
        if first.agreesOnDefault(with: key) { return (nil, false) }
        contested.insert(storedName)
        if first.declaration == key.declaration, first.valueType == key.valueType { return (nil, true) }
        return (first.conflicts(with: key) ? (storedName, first, key) : nil, true)
    }

    /// Records each key as a user of its stored name; returns the defaults of the names new here, for
    /// the caller to register in one call, and each key whose type or default disagrees with its name's
    /// first key.
    mutating func recordUses(_ uses: some Sequence<(storedName: String, key: any AnyTypedKey)>)
        -> (defaults: [String: Any], conflicts: [Conflict])
    {
        var defaults: [String: Any] = [:]
        var conflicts: [Conflict] = []
        for (name, key) in uses {
            if let first = first[name] {
                if first.conflicts(with: key) { conflicts.append((name, first, key)) }
                continue
            }
            first[name] = key
            if let defaultObject = key.defaultObject { defaults[name] = defaultObject }
        }
        return (defaults, conflicts)
    }

    /// `object`, what a read of `name` gave, when it is stored; nil when it is the name's registered
    /// default (`record`'s) or a launch argument (`StorageContext.storedObject`). The record decides
    /// where it can: a value that is not a launch argument and differs from the registered default (or
    /// there is none) is stored. Else the saver's knowledge (`known`, Linux: what this process saved,
    /// what the file held) stands when it explains what was read (a plain-API write in this process,
    /// never saved, can make it not), and past that the storage's `listing`. A backend that cannot list
    /// its values cannot tell a stored value equal to the registered default from the default itself.
    static func storedObject(
        _ object: Any, forName name: String, record: (any AnyTypedKey)?, known: (() -> KnownObject)?,
        listing: () -> [String: Any]?
    ) -> Any? {
        let isArgument = LaunchArguments.names.contains(name)
        if !isArgument, let record {
            if record.defaultObject == nil || !propertyListsEqual(object, record.defaultObject) { return object }
        }
        switch known?() {
        case .stored(let stored)? where propertyListsEqual(stored, object): return stored
        case .absent? where isArgument || record != nil: return nil
        default: break
        }
        if let stored = listing() { return stored[name] }
        return propertyListsEqual(object, record?.defaultObject) ? nil : object
    }
}

/// The key that bound a name, held (a freed key's address may be given to the next key object made,
/// which must not pass for it), with its default, which another key object of the name (a computed
/// key) is compared with without a lock.
final class FirstKey: @unchecked Sendable {
    // @unchecked: immutable; `key` and `defaultObject` are not `Sendable` types, but never change.
    let key: AnyObject
    let defaultObject: Any?
    let hasComputedDefault: Bool
    /// The key, where its value type has `==` and its default is given, not computed.
    let equatableKey: (any EquatableDefaultKey)?

    init(_ key: some AnyTypedKey & AnyObject) {
        self.key = key
        defaultObject = key.defaultObject
        hasComputedDefault = key.hasComputedDefault
        equatableKey = key.hasComputedDefault ? nil : key as? any EquatableDefaultKey
    }

    /// Whether `key` gives the name the default this key gave it: by the value type's `==` where it has
    /// one (the common case costs that), else by property list. Two computed defaults are taken as one.
    func givesSameDefault<Value>(as key: UserDefaultTypedKey<Value>) -> Bool {
        if !key.hasComputedDefault, equatableKey?.hasSameGivenDefault(as: key) == true { return true }
        return defaultsAgree(
            computed: hasComputedDefault, defaultObject, computed: key.hasComputedDefault, key.defaultObject)
    }
}
