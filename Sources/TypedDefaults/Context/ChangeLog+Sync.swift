import Foundation

// The context's side of syncing through a cloud.
extension ChangeLog {
    // MARK: Syncing through a cloud

    /// Syncs `names` of `context`'s storage through `cloud` from now on. The first call chooses the
    /// cloud; later calls add names.
    func sync(
        _ prepared: DomainPrepared, _ names: [String], of context: StorageContext, cloud: any CloudKeyValueStore,
        debounce: TimeInterval?, clock: @escaping @Sendable () -> Double
    ) {
        var engine = writeOrder.withLockedValue { $0.cloudSync }
        if engine == nil {
            // Made outside the write order: it reads the storage.
            let made = CloudSync(cloud: cloud, context: context, debounce: debounce, clock: clock)
            engine = writeOrder.withLockedValue { order in
                if order.cloudSync == nil { order.cloudSync = made }
                return order.cloudSync
            }
        }
        engine?.start(names)
        // A change made by other means (the plain API, an app extension: Apple platforms) is pushed too.
        for name in names { keepWatchingExternalChanges(of: name, of: context, prepared) }
    }

    /// A change of `name` made on this device: versioned for the sync, if the name is synced, and the
    /// versions kept beside the values.
    func noteForSync(_ object: Any?, forName name: String, in order: inout WriteOrder) {
        guard name != CloudSync.recordName, let saved = order.cloudSync?.localChange(name, object: object, order.held)
        else {
            return
        }
        storeAndRecord(saved, forName: CloudSync.recordName, in: &order)
    }

    /// Stores a value that came from the cloud, if it is newer than this device's, without pushing it
    /// back; observers and Swift's Observation hear it as any change.
    func bringInFromCloud(_ entry: CloudEntry, forName name: String, sync: CloudSync) {
        // A value `UserDefaults` cannot hold (a null, a set): this device keeps its own.
        if let object = entry.object, !isStorablePropertyList(object) { return }
        let commit = writeOrder.withLockedValue { order -> Announcement? in
            guard let saved = sync.acceptCloud(entry, forName: name, order.held) else { return nil }
            let oldObject = storage.object(forKey: name)
            storeAndRecord(entry.object, forName: name, in: &order)
            storeAndRecord(saved, forName: CloudSync.recordName, in: &order)
            let newObject = storage.object(forKey: name)
            if propertyListsEqual(oldObject, newObject, by: .exact) { return nil }
            return numberedChange(of: name, from: oldObject, to: newObject, in: &order)
        }
        commit?.deliver()
    }
}
