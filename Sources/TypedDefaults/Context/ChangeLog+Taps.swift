import Foundation

// The log's side of a tap: installing it, telling it of local changes, and bringing in a change it
// decides on in the write order.
extension ChangeLog {
    /// The storage's tap: the one installed, else `make()`'s, installed now. Nil when another type's tap
    /// is installed.
    func tap<Tap: LocalChangeTap>(orMake make: () -> Tap) -> Tap? {
        if let installed = writeOrder.withLockedValue({ $0.localChangeTap }) { return installed as? Tap }
        // Made outside the write order: making one may read the storage.
        let made = make()
        return writeOrder.withLockedValue { order in
            if order.localChangeTap == nil { order.localChangeTap = made }
            return order.localChangeTap as? Tap
        }
    }

    /// Tells the tap of a change of `name` made on this device, and stores the write it keeps beside it.
    func noteLocalChange(_ object: Any?, forName name: String, in order: inout WriteOrder) {
        guard let beside = order.localChangeTap?.localChange(name, object: object, order.held) else { return }
        storeAndRecord(beside.object, forName: beside.name, in: &order)
    }

    /// Stores a value that came from elsewhere (a cloud), if `decide`, in the write order, gives it, with
    /// the write it keeps beside it, without telling the tap (it is not a change made here); observers
    /// and Swift's Observation hear it as any change.
    func bringIn(
        _ name: String,
        deciding decide: (borrowing WriteOrderHeld) -> (object: Any?, beside: (name: String, object: Any?))?
    ) {
        let announcement = writeOrder.withLockedValue { order -> Announcement? in
            guard let decided = decide(order.held) else { return nil }
            let contested = names.isContested(name)
            let oldObject = observedObject(forName: name, contested: contested, order.held)
            storeAndRecord(decided.object, forName: name, in: &order)
            storeAndRecord(decided.beside.object, forName: decided.beside.name, in: &order)
            let newObject = observedObject(forName: name, contested: contested, order.held)
            if propertyListsEqual(oldObject, newObject, by: .exact) { return nil }
            return numberedChange(of: name, from: oldObject, to: newObject, in: &order)
        }
        announcement?.deliver()
    }
}
