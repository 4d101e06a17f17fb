#if os(Linux)
    import Foundation

    // The save at exit, which never waits forever.
    extension LinuxSaver {
        // MARK: Exit

        /// How long the exit-time save waits for a lock held elsewhere before it gives up.
        static let exitWait: TimeInterval = 2

        /// Saves what it can at exit, and never waits forever: `exit()` may be called with this saver's
        /// locks held by the exiting thread (inside `modify`'s transform, or from a signal handler that
        /// interrupted a write or a save). Values others saved are not brought into memory: the process
        /// is ending. What it cannot save is reported.
        func saveAtExit() {
            guard let file else {
                if (try? flush()) == nil {
                    ErrorReporting.report(
                        DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed at exit"))
                }
                return
            }
            let deadline = Date(timeIntervalSinceNow: Self.exitWait)
            let this = ObjectIdentifier(Thread.current)
            guard let held = holder.withLockedValue(before: deadline, { $0 }) else {
                return giveUpAtExit("its bookkeeping stayed locked")
            }
            // `exit()` inside `modify`'s transform or from a signal handler that interrupted a save: this
            // thread holds `saving`, and maybe the file lock; nothing else in the process can.
            let holdsSaving = held.thread == this
            func save(_ save: inout SaveState) {
                guard pending.withLockedValue(before: deadline, { !$0.isEmpty }) ?? true || !save.putBacks.isEmpty
                else {
                    return
                }
                do {
                    if holdsSaving && held.holdsFileLock {
                        _ = try savePendingLocked(to: file, atExit: deadline, in: &save)
                    } else {
                        _ = try file.withLock(before: deadline) {
                            try savePendingLocked(to: file, atExit: deadline, in: &save)
                        }
                    }
                } catch {
                    ErrorReporting.report(reported(error))
                }
            }
            if holdsSaving {
                saving.withValueHeldAtExit(save)
            } else if saving.withLockedValue(before: deadline, save) == nil {
                giveUpAtExit("another thread's save held the suite for \(Int(Self.exitWait)) s")
            }
        }

        func giveUpAtExit(_ reason: String) {
            ErrorReporting.report(
                DefaultsError.saveFailed(suite: domain, reason: "the exit-time save gave up, because \(reason)"))
        }
    }
#endif
