/// Which names keys may take from Swift where their declaration gives none of its own: the rule that
/// keeps two keys from sharing a stored name by accident, the same in every launch, whichever keys a
/// launch uses (never first come, first served: the stored value outlives the process).
///
/// A name left out (`init(defaultValue:)`) is Swift's `#function` there: a computed `static var`'s name,
/// which is the key's own; but a `static let`'s type name, the module's name at file scope, a function's
/// or a closure's name. It is accepted only where it is a property's: not a function's (no parenthesis),
/// not the module's, not a name that begins with a capital letter (a type's, by Swift's naming: the
/// runtime finds a top-level type by its name, but not a nested one, so a capital decides; a computed
/// property with a capitalized name gives its name explicitly), and not a top-level type's (a
/// lowercase-named type). Two computed `static var`s of one name in two namespaces are one stored name,
/// as two keys given one explicit name are: the conflict rule reports them when their types or defaults
/// disagree. An explicit name is accepted whatever it looks like, unless it is `#function` written out
/// where that gives a type's name (`isNamelessExplicit`).
enum LeftOutNames {
    /// The verdict for each lowercase left-out name, as the first declaration of it gave it: a computed
    /// key makes a key at every access, and asks with one lookup after its first.
    private static let verdicts = Locked<[String: Bool]>([:])
    /// Whether "Module.Name" is a top-level type, as the runtime answered.
    private static let typeNames = Locked<[String: Bool]>([:])

    /// Whether a key whose name was left out, and so is `name`, is nameless: the same answer for every
    /// key of the name, in every launch.
    static func isNameless(_ name: String, declaredAt declaration: KeyDeclaration) -> Bool {
        guard let first = name.utf8.first, !name.utf8.contains(UInt8(ascii: "(")) else { return true }
        if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) { return true }
        if let verdict = verdicts.withLockedValue({ $0[name] }) { return verdict }
        let verdict = isTypeShaped(name, declaredAt: declaration)
        verdicts.withLockedValue { $0[name] = verdict }
        return verdict
    }

    /// Whether a key with the explicit name `name`, declared where `#function` is `function`, is
    /// nameless: only when the name is that `#function` (written out, as SwiftyUserDefaults ports do:
    /// `UserDefaultTypedKey<T>(#function, ...)`) and it is not the key's own, but a type's name (what
    /// `#function` gives in a `static let`: ``UserDefaultTypedKeys`` or another top-level type of the
    /// declaring module), the module's name at file scope, or a function's. A capital letter does not
    /// decide here: in a computed `static var URLHistory`, `"URLHistory"` is both `#function` and the key's
    /// own name. (A nested type's `#function` written out is not caught: the runtime cannot find a
    /// nested type by its name alone.) Every such key of the type would share it: refused for each of them, in every launch,
    /// whichever keys the launch uses; never first come, first served. Any other explicit name is
    /// accepted, whatever its case and whatever type shares it (a key "Theme" beside an enum `Theme`).
    /// Costs a length comparison for most names: a computed key makes a key at every access.
    static func isNamelessExplicit(_ name: String, function: String, declaredAt declaration: KeyDeclaration) -> Bool {
        guard name.utf8.count == function.utf8.count, name.utf8.elementsEqual(function.utf8) else { return false }
        if name.isEmpty || name.utf8.contains(UInt8(ascii: "(")) { return true }
        return isTypeShaped(name, declaredAt: declaration)
    }

    /// The module's name, ``UserDefaultTypedKeys``, or a top-level type of the declaring module: what
    /// `#function` gives at file scope and in a `static let`.
    private static func isTypeShaped(_ name: String, declaredAt declaration: KeyDeclaration) -> Bool {
        if name == "UserDefaultTypedKeys" { return true }
        guard let module = declaration.module else { return false }
        return name == module || isTopLevelType(named: name, inModule: module)
    }

    /// Whether `module` declares a top-level enum, struct or class named `name`, asked of the runtime by
    /// its mangled name (`_typeByName` finds only classes by their plain name). For ASCII identifiers,
    /// whose mangling is their length and text; others are taken as not a type.
    private static func isTopLevelType(named name: String, inModule module: String) -> Bool {
        func isIdentifier(_ text: String) -> Bool {
            guard let first = text.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
                return false
            }
            return text.utf8.allSatisfy { byte in
                byte == UInt8(ascii: "_") || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
        }
        guard isIdentifier(name), isIdentifier(module) else { return false }
        let qualified = module + "." + name
        if let known = typeNames.withLockedValue({ $0[qualified] }) { return known }
        let prefix = "\(module.utf8.count)\(module)\(name.utf8.count)\(name)"
        // Enum, struct, class.
        let isType = ["O", "V", "C"].contains { _typeByName(prefix + $0) != nil }
        typeNames.withLockedValue { $0[qualified] = isType }
        return isType
    }

}

extension KeyDeclaration {
    /// The declaring module's name: `fileID` is "Module/File.swift".
    var module: String? {
        let text = fileID.description
        guard let slash = text.firstIndex(of: "/") else { return nil }
        return String(text[..<slash])
    }

}
