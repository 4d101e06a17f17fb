#if os(Linux)
    import Foundation

    // Bringing what others saved into this process, outside the save's locks.
    extension LinuxSaver {
        /// Queues what a look found that someone else saved, but for the names this process saved over it
        /// (`saving`). Called with `saving` held, so that queued changes keep the order of the looks; a
        /// later change of a name replaces an earlier one.
        func queueBringIn(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:]) {
            guard !changed.isEmpty else { return }
            queued.withLock { queue in
                for (name, object) in changed {
                    // Saved over by any form of the name (see `otherForms`).
                    let savedOver =
                        saving[name] != nil || otherForms(of: name.text).contains { saving[ExactText($0)] != nil }
                    queue[name] = (object, savedOver)
                }
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
            receiver.withLock { $0.receiver }?.announce(commits)
        }

        /// Brings the queued changes into memory and returns what observers must hear.
        func applyQueued() -> [Commit] {
            guard let receiver = receiver.withLock({ $0.receiver }) else {
                queued.withLock { $0.removeAll() }
                return []
            }
            return bringingIn.withLock {
                let batch = queued.withLock { queue in
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
