import Foundation

// Changes made by other means than the library's writes, for a storage that reports them.
extension StorageContext {
    // MARK: Changes made by other means (ExternallyChangingStorage)

    /// Watches `name` from now on, observers or not, so that Swift's Observation hears changes made by
    /// other means. Cheap when the name is watched already (a SwiftUI view asks at each update).
    func keepWatchingExternalChanges(of name: String) {
        prepareDomain()
        guard externalStorage != nil, writeOrder.withLock({ watchedForObservation.insert(name).inserted }) else {
            return
        }
        watchExternalChanges(of: name)
    }

    /// Whether `name` must be watched: it has observers, or Observation asked. Called with `writeOrder`
    /// held.
    func needsWatching(_ name: String) -> Bool {
        watchedForObservation.contains(name) || !observers.observers(of: name).isEmpty
    }

    /// Watches `name` while it has observers (or `keepWatchingExternalChanges` asked), and stops when it
    /// has none. Called when a name gets its first observer or loses its last, in any order: it looks at
    /// the registry each time.
    func watchExternalChanges(of name: String) {
        guard let externalStorage, externalStorage.canWatchChanges(ofKey: name) else { return }
        // The storage's own locks (key-value observing's) are never taken under `writeOrder`: a report
        // on another thread may be waiting for `writeOrder` while holding them.
        var started: (any ExternalChangeWatch)?
        if writeOrder.withLock({ needsWatching(name) && externalWatches[name] == nil }) {
            started = externalStorage.watchChanges(ofKey: name) { [weak self] in self?.externalChange(of: name) }
        }
        let unused = writeOrder.withLock { () -> [any ExternalChangeWatch] in
            let stillObserved = needsWatching(name)
            if stillObserved, externalWatches[name] == nil, let started {
                externalWatches[name] = (started, storage.object(forKey: name))
                return []
            }
            var unused = started.map { [$0] } ?? []
            if !stillObserved, let entry = externalWatches.removeValue(forKey: name) { unused.append(entry.watch) }
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
    func externalChange(of name: String) {
        if let writing = writingThread.withLock({ $0 }), writing.thread == ObjectIdentifier(Thread.current),
            writing.name == name
        {
            return
        }
        guard writeOrder.try() else { return readAgainLater(name) }
        let commit = externalCommit(of: name)
        writeOrder.unlock()
        if let commit { announce(commit) }
    }

    /// Reads `name` again on the report queue, once per name however many reports come meanwhile.
    func readAgainLater(_ name: String) {
        guard reportsToReadAgain.withLock({ $0.insert(name).inserted }) else { return }
        Self.reportQueue.async { [weak self] in
            guard let self else { return }
            // Taken off first: a report that comes while this one is read is read again after it.
            reportsToReadAgain.withLock { _ = $0.remove(name) }
            let commit = writeOrder.withLock { externalCommit(of: name) }
            if let commit { announce(commit) }
        }
    }

    /// The change a report of `name` stands for, if observers have not heard it yet. Called with
    /// `writeOrder` held.
    func externalCommit(of name: String) -> Commit? {
        guard let entry = externalWatches[name] else { return nil }
        let now = storage.object(forKey: name)
        if propertyListsEqual(now, entry.last, by: .exact) { return nil }
        externalWatches[name]?.last = now
        if cloudSync != nil { noteForSync(now, forName: name) }
        return numberedChange(of: name, from: entry.last, to: now)
    }
}
