/// Which names keys may take from Swift where their declaration gives none of its own: the rule that
/// keeps two keys from sharing a stored name by accident, the same in every launch and every build,
/// whichever keys a launch uses (never first come, first served: the stored value outlives the process).
/// The verdict is a function of the declaration's text alone: the name and the declaring module's name.
/// (It once asked the runtime whether a type of that name exists; a release build keeps no record of a
/// type only used as a namespace, so a debug build refused what a release build accepted.)
///
/// A name left out (`init(defaultValue:)`) is Swift's `#function` there: a computed `static var`'s name,
/// which is the key's own; but a `static let`'s type name, the module's name at file scope, a function's
/// or a closure's name. It is accepted only where it is a property's: not a function's (no parenthesis),
/// not the module's, and not a name that begins with a capital letter (a type's, by Swift's naming; a
/// computed property with a capitalized name gives its name explicitly, or is a `static let` of
/// ``UserDefaultTypedKeys``). A type whose name begins with a lowercase letter cannot be told from a
/// property: its `static let`s with names left out take the type's name (the conflict rule reports two
/// of them whose types or defaults disagree). Two computed `static var`s of one name in two namespaces
/// are one stored name, as two keys given one explicit name are. An explicit name is accepted whatever it
/// looks like, unless it is `#function` written out where that gives no property's name
/// (`isNamelessExplicit`).
enum LeftOutNames {
    /// Whether a key whose name was left out, and so is `name`, is nameless: the same answer for every
    /// key of the name, in every launch and build. A computed key asks at every access: no lock, no
    /// allocation.
    static func isNameless(_ name: String, declaredAt declaration: KeyDeclaration) -> Bool {
        isNoPropertyName(name, declaredAt: declaration)
    }

    /// Whether a key with the explicit name `name`, declared where `#function` is `function`, is
    /// nameless: only when the name is that `#function` (written out, as SwiftyUserDefaults ports do:
    /// `UserDefaultTypedKey<T>(#function, ...)`) and it is no property's name by the rule for left-out
    /// names: a type's name (what `#function` gives in a `static let`: ``UserDefaultTypedKeys`` or the
    /// app's own type), the module's name at file scope, or a function's. Every such key of the type
    /// would share it: refused for each of them, in every launch, whichever keys the launch uses. A
    /// capitalized computed `static var URLHistory` that writes its own name, `"URLHistory"`, cannot be
    /// told from `#function` in a `static let` of a type `URLHistory`: it is refused too, and is declared
    /// as a `static let` of ``UserDefaultTypedKeys`` instead. Any other explicit name is accepted, whatever
    /// its case and whatever type shares it (a key "Theme" beside an enum `Theme`). Costs a length
    /// comparison for most names: a computed key makes a key at every access.
    static func isNamelessExplicit(_ name: String, function: String, declaredAt declaration: KeyDeclaration) -> Bool {
        guard name.utf8.count == function.utf8.count, name.utf8.elementsEqual(function.utf8) else { return false }
        return isNoPropertyName(name, declaredAt: declaration)
    }

    /// Empty, a function's (a parenthesis), a type's (a capital first letter: ``UserDefaultTypedKeys``
    /// among them), or the declaring module's.
    private static func isNoPropertyName(_ name: String, declaredAt declaration: KeyDeclaration) -> Bool {
        guard let first = name.utf8.first, !name.utf8.contains(UInt8(ascii: "(")) else { return true }
        if (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(first) { return true }
        return declaration.isInModule(named: name)
    }
}

extension KeyDeclaration {
    /// Whether the declaring module is named `name`: `fileID` is "Module/File.swift". Compared in place,
    /// without making a string of `fileID`.
    func isInModule(named name: String) -> Bool {
        fileID.withUTF8Buffer { fileID in
            let length = name.utf8.count
            return fileID.count > length && fileID[length] == UInt8(ascii: "/")
                && fileID.prefix(length).elementsEqual(name.utf8)
        }
    }
}
