#if os(Linux)
    import Foundation

    // Bringing what others saved into this process, outside the save's locks.
    extension LinuxSaver {
        /// Queues what a look found that someone else saved, but for the names this process saved over it
        /// (`saving`). Called with `saving` held, so that queued changes keep the order of the looks; a
        /// later change of a name replaces an earlier one.
        ///
        /// With `saving` (a save's writes, now in the file), the save is done with them: what an earlier
        /// look queued for those names is older than the save and is marked saved over too, and the writes
        /// stop being in flight (`Pending.inFlight`).
        func queueBringIn(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:]) {
            func savedOver(_ name: ExactText) -> Bool {
                saving[name] != nil || otherForms(of: name.text).contains { saving[ExactText($0)] != nil }
            }
            if !changed.isEmpty || !saving.isEmpty {
                queued.withLockedValue { queue in
                    if !saving.isEmpty {
                        for (name, entry) in queue where !entry.savedOver && savedOver(name) {
                            queue[name] = (entry.object, true)
                        }
                    }
                    for (name, object) in changed {
                        queue[name] = (object, savedOver(name))
                    }
                }
            }
            if !saving.isEmpty {
                pending.withLockedValue { $0.inFlight = [:] }
            }
        }

        /// Puts what others saved into this process, through the context's commit path, except names this
        /// process saved over it or has written and not saved yet: its own last write wins until it is
        /// saved. Then tells observers, with no lock held. Foundation's `set` of a name costs more the more
        /// names this process has set since it started (corelibs keeps them in a list it searches), so a
        /// large change takes a while: it is done outside `saving`, and never holds up a save.
        func bringInQueued() {
            announce(applyQueued())
        }

        /// Tells observers of `commits`. Called with no lock held: an observer may well write and save.
        func announce(_ commits: [Commit]) {
            guard !commits.isEmpty else { return }
            receiver.withLockedValue { $0.receiver }?.announce(commits)
        }

        /// Brings the queued changes into memory and returns what observers must hear.
        func applyQueued() -> [Commit] {
            guard let receiver = receiver.withLockedValue({ $0.receiver }) else {
                queued.withLockedValue { $0.removeAll() }
                return []
            }
            return bringingIn.withLock {
                let batch = queued.withLockedValue { queue in
                    defer { queue.removeAll() }
                    return queue
                }
                guard !batch.isEmpty else { return [Commit]() }
                return receiver.applySavedElsewhere(batch.map { ($0.key.text, $0.value.object) }) { name in
                    batch[ExactText(name)]?.savedOver == true || hasUnsavedWrite(forName: name)
                }
            }
        }
    }
#endif
