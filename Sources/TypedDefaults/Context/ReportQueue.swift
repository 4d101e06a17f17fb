import Foundation

/// Changes made by other means than the library's writes, for a storage that reports them
/// (`ExternallyChangingStorage`): which names are watched, and each report, read again and heard as a
/// change when it differs from what observers last heard; one that comes while a write order is taken
/// is read again once on the library's report queue, however many reports come meanwhile; and the report
/// of a write's own `set` (its echo) is told apart. A storage's reports reach it through the storage's
/// context, held weakly: a weak reference to the log itself would give it a side table, and every
/// retain of it on the write path would cost more.
final class ReportQueue: Sendable {
    private let state = Locked(State())

    struct State {
        /// The names waiting to be read again.
        var waiting: Set<String> = []
        /// The thread storing a value while a name is watched, with the name it stores: a report from
        /// inside that `set` (key-value observing reports every `set`, on the writing thread) of that name
        /// is the write's own echo; of another name, it is that name's change.
        var writing: (thread: ObjectIdentifier, name: String)?
    }
    /// One queue for the process: reports are read again in the order they came, and `ErrorReporting`
    /// hands its reports to the handler here too.
    static let queue = DispatchQueue(label: "TypedDefaults.externalChanges")

    /// `body`, the `set` of `name`, marked as this thread's write of it.
    func writing<Result>(_ name: String, _ body: () throws -> Result) rethrows -> Result {
        state.withLockedValue { $0.writing = (ObjectIdentifier(Thread.current), name) }
        defer { state.withLockedValue { $0.writing = nil } }
        return try body()
    }

    /// Whether a report of `name` now, on this thread, is the echo of this thread's own write of it.
    func isEcho(of name: String) -> Bool {
        guard let writing = state.withLockedValue({ $0.writing }) else { return false }
        return writing.thread == ObjectIdentifier(Thread.current) && writing.name == name
    }

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
        guard let externalStorage = log.externalStorage, externalStorage.canWatchChanges(ofKey: name) else { return }
        // The storage's own locks (key-value observing's) are never taken under the write order: a report
        // on another thread may be waiting for that lock while holding them.
        var started: (any ExternalChangeWatch)?
        if log.writeOrder.withLockedValue({ needsWatching(name, in: $0, of: log) && $0.externalWatches[name] == nil }) {
            started = externalStorage.watchChanges(ofKey: name) { [weak context] in
                guard let context else { return }
                context.log.reports.change(of: name, of: context)
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
        for watch in unused { watch.stop() }
    }

    /// A report that `name` may have changed by other means: read again, and heard as a change when it
    /// differs from what observers last heard.
    ///
    /// Never waits for the write order: a storage may report while holding a lock of its own, which a
    /// commit holding the write order may be waiting for (in `object(forKey:)`). When the write order is
    /// taken, the report is read again on the library's report queue once it is free.
    func change(of name: String, of context: StorageContext) {
        let log = context.log
        if isEcho(of: name) { return }
        // Kept reads of a promised storage are stale from now on (Apple: another process's write reaches
        // this process only here).
        log.names.valuesChanged()
        // A report from inside a storage's `set` made under a write order (this storage's, for another
        // name, or another storage's over the same suite): observers run later, on the report queue,
        // never on this thread, which holds that write order.
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
        guard state.withLockedValue({ $0.waiting.insert(name).inserted }) else { return }
        Self.queue.async { [self, weak context] in
            // Taken off first: a report that comes while this one is read is read again after it.
            state.withLockedValue { _ = $0.waiting.remove(name) }
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
