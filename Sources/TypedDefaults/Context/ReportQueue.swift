import Foundation

/// Changes made by other means than the library's writes, for a storage that reports them
/// (`ExternallyChangingStorage`): which names are watched, and each report, read again and heard as a
/// change when it differs from what observers last heard; one that comes while a write order is taken
/// is read again once on the library's report queue, however many reports come meanwhile (the report of
/// a write's own `set`, its echo, among them: read again, it is no change). A storage's reports reach it
/// through the storage's context, held weakly: a weak reference to the log itself would give it a side
/// table, and every retain of it on the write path would cost more.
final class ReportQueue: Sendable {
    /// The names waiting to be read again.
    private let waiting = Locked(Set<String>())
    /// One queue for the process: reports are read again in the order they came, and `ErrorReporting`
    /// hands its reports to the handler here too.
    static let queue = DispatchQueue(label: "TypedDefaults.externalChanges")

    /// Watches `name` from now on, observers or not, so that Swift's Observation hears changes made by
    /// other means. Cheap when the name is watched already (a SwiftUI view asks at each update).
    func keepWatching(_ name: String, of context: StorageContext, _ prepared: DomainPrepared) {
        let log = context.log
        prepared.check(for: log)
        guard log.externalStorage != nil,
            log.writeOrder.withLockedValue({ $0.watchedForObservation.insert(name).inserted })
        else {
            return
        }
        watch(name, of: context)
    }

    /// Whether `name` must be watched: it has observers, or Observation asked.
    private func needsWatching(_ name: String, in order: WriteOrder, of log: ChangeLog) -> Bool {
        order.watchedForObservation.contains(name) || !log.observers.observers(of: name).isEmpty
    }

    /// Watches `name` while it has observers (or `keepWatching` asked), and stops when it
    /// has none. Called when a name gets its first observer or loses its last, in any order: it looks at
    /// the registry each time.
    func watch(_ name: String, of context: StorageContext) {
        let log = context.log
        // The storage's calls go through the door for code that is not the library's, under no lock of
        // the library but a step's turns (checked in debug builds): its own locks (key-value observing's)
        // are never taken under the write order, where a report on another thread may wait for them.
        guard let externalStorage = log.externalStorage,
            UserCode.runUnmarked(insideStep: true, { externalStorage.canWatchChanges(ofKey: name) })
        else { return }
        var started: (any ExternalChangeWatch)?
        if log.writeOrder.withLockedValue({ needsWatching(name, in: $0, of: log) && $0.externalWatches[name] == nil }) {
            started = UserCode.runUnmarked(insideStep: true) {
                externalStorage.watchChanges(ofKey: name) { [weak context] in
                    guard let context else { return }
                    context.log.reports.change(of: name, of: context)
                }
            }
        }
        let unused = log.writeOrder.withLockedValue { order -> [any ExternalChangeWatch] in
            let stillObserved = needsWatching(name, in: order, of: log)
            if stillObserved, order.externalWatches[name] == nil, let started {
                let now = log.observedObject(forName: name, contested: log.names.isContested(name), order.held)
                order.externalWatches[name] = (started, now)
                return []
            }
            var unused = started.map { [$0] } ?? []
            if !stillObserved, let entry = order.externalWatches.removeValue(forKey: name) {
                unused.append(entry.watch)
            }
            return unused
        }
        for watch in unused { UserCode.runUnmarked(insideStep: true) { watch.stop() } }
    }

    /// A report that `name` may have changed by other means: read again, and heard as a change when it
    /// differs from what observers last heard.
    ///
    /// Never waits for the write order: a storage may report while holding a lock of its own, which a
    /// commit holding the write order may be waiting for (in `object(forKey:)`). When the write order is
    /// taken, the report is read again on the library's report queue once it is free.
    func change(of name: String, of context: StorageContext) {
        let log = context.log
        // Kept reads of a promised storage are stale from now on (Apple: another process's write reaches
        // this process only here).
        log.names.valuesChanged()
        // A report from inside a storage's `set` made under a write order (this storage's, of the name it
        // sets, its echo, or of another; or another storage's over the same suite): read again later, on
        // the report queue, never on this thread, which holds that write order. The echo then finds what
        // observers last heard (`ChangeLog.store` set it) and is dropped.
        if UserCode.isInsideStorageCall { return readAgainLater(name, of: context) }
        guard
            let announcement = log.writeOrder.withLockedValueIfFree({ numberedChange(of: name, in: log, in: &$0) })
        else {
            return readAgainLater(name, of: context)
        }
        announcement?.deliver()
    }

    /// Reads `name` again on the report queue, once per name however many reports come meanwhile.
    private func readAgainLater(_ name: String, of context: StorageContext) {
        guard waiting.withLockedValue({ $0.insert(name).inserted }) else { return }
        Self.queue.async { [self, weak context] in
            // Taken off first: a report that comes while this one is read is read again after it.
            waiting.withLockedValue { _ = $0.remove(name) }
            guard let log = context?.log else { return }
            let announcement = log.writeOrder.withLockedValue { numberedChange(of: name, in: log, in: &$0) }
            announcement?.deliver()
        }
    }

    /// The change a report of `name` stands for, if observers have not heard it yet.
    private func numberedChange(of name: String, in log: ChangeLog, in order: inout WriteOrder) -> Announcement? {
        guard let entry = order.externalWatches[name] else { return nil }
        let now = log.observedObject(forName: name, contested: log.names.isContested(name), order.held)
        if propertyListsEqual(now, entry.last, by: .exact) { return nil }
        order.externalWatches[name]?.last = now
        if order.localChangeTap != nil { log.noteLocalChange(now, forName: name, in: &order) }
        return log.numberedChange(of: name, from: entry.last, to: now, in: &order)
    }
}
