#if os(Linux)
    import Foundation

    /// What looks at the file found that other processes saved, on its way into this process: queued in
    /// the order of the looks (under the save's turn), brought into memory one batch at a time through the
    /// receiver's commit path (outside it and the file lock: a large change takes a while, and never holds
    /// up another process's save; a save's end waits for a batch under way, `queue`), then announced with
    /// no lock held.
    final class SavedChangeInbox: @unchecked Sendable {
        // @unchecked: the queue holds property-list objects (`Any`), reached only under its lock.

        /// Brings queued changes into memory one batch at a time, in the order they were queued.
        private let bringingIn = Locked(.bringingIn, TurnsTaken())
        /// This process's writes not saved yet (its own last write of a name wins until it is saved), and
        /// under the same lock the queue of changes not yet in memory (`Queue`).
        private let pending: PendingWrites
        init(unsavedWritesIn pending: PendingWrites) {
            self.pending = pending
        }

        struct Queue {
            /// Each change not yet in memory, with whether this process saved its own value over it in
            /// the same save. A later change of a name replaces an earlier one.
            var changes: [ExactText: (object: Any?, savedOver: Bool)] = [:]
            /// Where changes are put and announced: the storage context that owns the saver, given when
            /// the domain is prepared (before the watcher can report anything); held weakly.
            weak var receiver: (any SavedChangeReceiver)?
        }

        /// Sets where changes go, once: later calls keep the first receiver.
        func receive(in receiver: any SavedChangeReceiver) {
            pending.withInbox { queue in
                if queue.receiver == nil { queue.receiver = receiver }
            }
        }

        /// Queues what a look found that someone else saved, but for the names this process saved over it
        /// (`saving`: a save's writes, now in the file, which stop being in flight). `save` is the save's
        /// turn's state: only its holder queues, so that queued changes keep the order of the looks. What
        /// an earlier look queued for names in `saving` is older than that save: it is marked saved over.
        func queue(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:], in save: inout SaveState) {
            guard !saving.isEmpty else { return enqueue(changed, saving: saving) }
            // A save's writes leave flight in the bring-in's turn: a batch taken off the queue before this
            // save marked it, still being brought in, is done first, while they are in flight and so win
            // over its older values (after, one of them put a value this save had replaced, or a removed
            // form of its name, back into memory: the read after `flush()` gave 2, or the default).
            bringingIn.withLockedValue { _ in
                enqueue(changed, saving: saving)
                // Out of flight once queued, never before: an older change of a saved name, queued earlier,
                // is marked saved over first, so that no bring-in later takes it for a change to bring in.
                pending.saved()
            }
        }

        private func enqueue(_ changed: [ExactText: Any?], saving: [ExactText: Any?]) {
            guard !changed.isEmpty || !saving.isEmpty else { return }
            func savedOver(_ name: ExactText) -> Bool {
                saving[name] != nil || otherForms(of: name.text).contains { saving[ExactText($0)] != nil }
            }
            pending.withInbox { queue in
                if !saving.isEmpty {
                    for (name, entry) in queue.changes where !entry.savedOver && savedOver(name) {
                        queue.changes[name] = (entry.object, true)
                    }
                }
                for (name, object) in changed {
                    queue.changes[name] = (object, savedOver(name))
                }
            }
        }

        /// Brings the queued changes into memory through the receiver's commit path, but names this
        /// process saved over or has written and not saved yet (its own last write wins until it is
        /// saved), and returns what observers must hear: announced by the caller with no lock held (an
        /// observer may write and save).
        func bringInQueued() -> [Announcement] {
            guard let receiver = pending.withInbox({ $0.receiver }) else {
                pending.withInbox { $0.changes.removeAll() }
                return []
            }
            return bringingIn.withLockedValue { turns in
                turns.count &+= 1
                let batch = pending.withInbox { queue in
                    defer { queue.changes.removeAll() }
                    return queue.changes
                }
                guard !batch.isEmpty else { return [Announcement]() }
                return receiver.bringIn(savedElsewhere: batch.map { ($0.key.text, $0.value.object) }) { name in
                    batch[ExactText(name)]?.savedOver == true || pending.hasUnsavedWrite(forName: name)
                }
            }
        }
    }
#endif
