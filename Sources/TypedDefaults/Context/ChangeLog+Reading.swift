import Foundation

// What is stored, as the log reads it: the storage's listing, and a name's object inside the write order.
extension ChangeLog {
    // MARK: Reading what is stored

    /// What the storage lists, as it is.
    func listing() -> [String: Any]? {
        if let saver { return saver.storedValues() }
        if let domainStorage, let domain { return domainStorage.storedValues(in: domain) }
        return storage.storedValues()
    }

    /// The object stored for `name`, not counting registered defaults and launch arguments (see
    /// `KeyRecords.storedObject`), inside the write order (`held`; the step brought in what was put
    /// aside for `name`).
    func storedObject(forName name: String, _ held: borrowing WriteOrderHeld) -> Any? {
        guard let object = storage.object(forKey: name) else { return nil }
        return KeyRecords.storedObject(
            object, forName: name, record: names.record(of: name),
            known: saver.map { saver in { saver.knownObject(forName: name) } }, listing: listing)
    }
}
