import Foundation

// Editing a suite by name, for tools (the `typed-defaults` command): not public API.
extension DefaultsStore {
    /// Gives `edit` the objects stored under `names` (the store's prefix applied; a name with nothing
    /// stored is absent) and stores what it leaves there (a name it removes is removed), as one step of
    /// the storage's order: atomic against every other writer in this process and, on Linux, inside the
    /// suite's file lock, with values other processes saved read first and the result saved before it
    /// returns. Observers, here and in running processes, hear of each change.
    ///
    /// Throws what `edit` throws, or ``DefaultsError/unconvertibleValue(key:type:)`` for an object that
    /// `UserDefaults` cannot hold; nothing is stored then. Throws a save that failed (Linux): the changes
    /// stand in memory, as any write's, and the file keeps what it had.
    ///
    /// Names are stored as keys store them: the canonical form of the prefix and the name joined
    /// (`joinedName`), so that a name typed or imported decomposed is the app's key of the composed name;
    /// a name's change replaces its other forms (Linux).
    package func editObjects(names: [String], _ edit: (inout [String: Any]) throws -> Void) throws {
        func stored(_ name: String) -> String { joinedName(keyPrefix, canonicalName(name)) }
        var failure: (any Error)?
        try context.log.compoundStep(context.prepareDomain(), names: names.map(stored)) { read, write in
            var objects: [String: Any] = [:]
            for name in names {
                if let object = read(stored(name)) { objects[name] = object }
            }
            let before = objects
            do {
                try edit(&objects)
                for (name, object) in objects where !isStorablePropertyList(object) {
                    throw DefaultsError.unconvertibleValue(key: name, type: "\(type(of: object))")
                }
            } catch {
                failure = error
                return
            }
            // Removals first: a name's change replaces its other forms (Linux), and a new name may be
            // another form of a removed one.
            for name in before.keys where objects[name] == nil { write(nil, stored(name)) }
            for (name, object) in objects where !propertyListsEqual(before[name], object, by: .exact) {
                write(object, stored(name))
            }
        }
        if let failure { throw failure }
        try flush()
    }

    /// Why the file of the suite `suite` cannot be read (a link, a FIFO, a file refused outright, bytes
    /// that are not a property list the library reads), or nil when it can, or there is none. Only looks:
    /// nothing is moved or changed. Apple platforms: nil.
    package static func suiteFileProblem(_ suite: String) -> String? {
        Platform.suiteFileProblem(suite)
    }

    /// The names of the suites stored where this process's suites are (Linux: the configuration folder;
    /// Apple platforms: the user's preferences folder), sorted, without hidden files.
    package static func storedSuiteNames() -> [String] {
        let directory = Platform.suitesDirectory()
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return files.filter { !$0.hasPrefix(".") && $0.hasSuffix(".plist") }.map { String($0.dropLast(6)) }.sorted()
    }
}
