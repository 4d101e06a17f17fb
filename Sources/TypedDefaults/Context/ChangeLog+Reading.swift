import Foundation

// What is stored, without registered defaults and launch arguments.
extension ChangeLog {
    // MARK: Reading what is stored

    /// Every stored value, without registered defaults and launch arguments, if the storage can list them.
    func storedValues(_ prepared: DomainPrepared) -> [String: Any]? {
        prepared.check(for: self)
        if saver != nil { bringInDeferred() }
        return listing()
    }

    /// What the storage lists, as it is.
    private func listing() -> [String: Any]? {
        if let saver { return saver.storedValues() }
        if let domainStorage, let domain { return domainStorage.storedValues(in: domain) }
        return storage.storedValues()
    }

    /// The object stored for `name`, not counting registered defaults and launch arguments.
    ///
    /// About the cost of one read wherever the library can tell without listing the storage: nothing
    /// readable at all, or a value that is not a launch argument and differs from the default the
    /// library registered (or there is none). Else the storage's listing decides (for `UserDefaults`, a
    /// copy of the whole domain). A backend that cannot list its values cannot tell a stored value equal
    /// to the registered default from the default itself.
    func storedObject(forName name: String, _ prepared: DomainPrepared) -> Any? {
        prepared.check(for: self)
        var read = storage.object(forKey: name)
        // A value another process saved for a name this process had not used is put aside: in first.
        if read == nil, saver != nil {
            bringInDeferred(only: name)
            read = storage.object(forKey: name)
        }
        guard let object = read else { return nil }
        return storedObject(object, forName: name, prepared: prepared)
    }

    /// `storedObject`, inside the write order (`held`; the step brought in what was put aside for
    /// `name`).
    func storedObject(forName name: String, _ held: borrowing WriteOrderHeld) -> Any? {
        guard let object = storage.object(forKey: name) else { return nil }
        return storedObject(object, forName: name, prepared: nil)
    }

    /// Whether `object`, what a read of `name` gave, is stored, or a registered default or launch argument.
    /// `prepared` nil: inside the write order.
    private func storedObject(_ object: Any, forName name: String, prepared: DomainPrepared?) -> Any? {
        let inOrder = prepared == nil
        let record = names.record(of: name)
        let isArgument = LaunchArguments.names.contains(name)
        if !isArgument, let record {
            if record.defaultObject == nil || !propertyListsEqual(object, record.defaultObject) { return object }
        }
        // Past here, what was read is a launch argument or the registered default (when there is a
        // record). On Linux the saver knows what this process saved and what the file held: its answer
        // stands when it explains what was read (a plain-API write in this process, never saved, can make
        // it not).
        if let saver {
            if !inOrder { bringInDeferred(only: name) }
            switch saver.knownObject(forName: name) {
            case .stored(let stored) where propertyListsEqual(stored, object):
                return stored
            case .absent where isArgument || record != nil:
                return nil
            default: break
            }
        }
        if let stored = prepared.map({ storedValues($0) }) ?? listing() { return stored[name] }
        return propertyListsEqual(object, record?.defaultObject) ? nil : object
    }
}

/// The names `UserDefaults` may hold a launch argument for (`-name value`): any argument that starts
/// with a dash, a few more than Foundation reads, so that a name here may have one.
enum LaunchArguments {
    static let names: Set<String> = Set(
        CommandLine.arguments.dropFirst().lazy.filter { $0.hasPrefix("-") }.map { String($0.dropFirst()) })
}
