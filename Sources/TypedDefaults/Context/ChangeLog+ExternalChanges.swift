import Foundation

// Changes made by other means than the library's writes, for a storage that reports them. The storage's
// reports reach the log through its context, held weakly (`context`): a weak reference to the log
// itself would give it a side table, and every retain of it on the write path would cost more.
extension ChangeLog {
    // MARK: Changes made by other means (ExternallyChangingStorage)

    /// Watches `name` from now on, observers or not, so that Swift's Observation hears changes made by
    /// other means. Cheap when the name is watched already (a SwiftUI view asks at each update).
    func keepWatchingExternalChanges(of name: String, of context: StorageContext, _ prepared: DomainPrepared) {
        prepared.check(for: self)
        guard externalStorage != nil, writeOrder.withLockedValue({ $0.watchedForObservation.insert(name).inserted })
        else {
            return
        }
        watchExternalChanges(of: name, of: context)
    }

    /// Whether `name` must be watched: it has observers, or Observation asked.
    func needsWatching(_ name: String, in order: WriteOrder) -> Bool {
        order.watchedForObservation.contains(name) || !observers.observers(of: name).isEmpty
    }

    /// Watches `name` while it has observers (or `keepWatchingExternalChanges` asked), and stops when it
    /// has none. Called when a name gets its first observer or loses its last, in any order: it looks at
    /// the registry each time.
    func watchExternalChanges(of name: String, of context: StorageContext) {
        guard let externalStorage, externalStorage.canWatchChanges(ofKey: name) else { return }
        // The storage's own locks (key-value observing's) are never taken under the write order: a report
        // on another thread may be waiting for that lock while holding them.
        var started: (any ExternalChangeWatch)?
        if writeOrder.withLockedValue({ needsWatching(name, in: $0) && $0.externalWatches[name] == nil }) {
            started = externalStorage.watchChanges(ofKey: name) { [weak context] in
                context?.log.externalChange(of: name, of: context)
            }
        }
        let unused = writeOrder.withLockedValue { order -> [any ExternalChangeWatch] in
            let stillObserved = needsWatching(name, in: order)
            if stillObserved, order.externalWatches[name] == nil, let started {
                let now = observedObject(forName: name, contested: names.isContested(name), order.held)
                order.externalWatches[name] = (started, now)
                return []
            }
            var unused = started.map { [$0] } ?? []
            if !stillObserved, let entry = order.externalWatches.removeValue(forKey: name) {
                unused.append(entry.watch)
            }
            return unused
        }
        for watch in unused { watch.stop() }
    }

    /// A report that `name` may have changed by other means: read again, and heard as a change when it
    /// differs from what observers last heard.
    ///
    /// Never waits for the write order: a storage may report while holding a lock of its own, which a
    /// commit holding the write order may be waiting for (in `object(forKey:)`). When the write order is
    /// taken, the report is read again on the library's report queue once it is free.
    func externalChange(of name: String, of context: StorageContext?) {
        if reports.isEcho(of: name) { return }
        // Kept reads of a promised storage are stale from now on (Apple: another process's write reaches
        // this process only here).
        names.valuesChanged()
        // A report from inside a storage's `set` made under a write order (this storage's, for another
        // name, or another storage's over the same suite): observers run later, on the report queue,
        // never on this thread, which holds that write order.
        if UserCode.isInsideStorageCall { return readAgainLater(name, of: context) }
        guard let announcement = writeOrder.withLockedValueIfFree({ numberedExternalChange(of: name, in: &$0) }) else {
            return readAgainLater(name, of: context)
        }
        announcement?.deliver()
    }

    /// Reads `name` again on the report queue, once per name however many reports come meanwhile.
    func readAgainLater(_ name: String, of context: StorageContext?) {
        reports.readAgainLater(name) { [weak context] in
            guard let log = context?.log else { return }
            let announcement = log.writeOrder.withLockedValue { log.numberedExternalChange(of: name, in: &$0) }
            announcement?.deliver()
        }
    }

    /// The change a report of `name` stands for, if observers have not heard it yet.
    func numberedExternalChange(of name: String, in order: inout WriteOrder) -> Announcement? {
        guard let entry = order.externalWatches[name] else { return nil }
        let now = observedObject(forName: name, contested: names.isContested(name), order.held)
        if propertyListsEqual(now, entry.last, by: .exact) { return nil }
        order.externalWatches[name]?.last = now
        if order.localChangeTap != nil { noteLocalChange(now, forName: name, in: &order) }
        return numberedChange(of: name, from: entry.last, to: now, in: &order)
    }
}
