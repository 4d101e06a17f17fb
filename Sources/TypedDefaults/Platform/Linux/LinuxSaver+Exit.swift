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
            // `exit()` inside `modify`'s transform or from a signal handler that interrupted a save: this
            // thread holds the save's turn, and maybe the file lock; nothing else in the process can.
            let refused = saves.withSavingAtExit(before: deadline) { turn, save in
                // Unknown (the pending writes stayed locked): tried, and the save reports it.
                var declared: [String: DeclaredKey]?
                if case .write(let keys) = declarations.takeDue(atExit: true) { declared = keys }
                guard pending.isEmpty(before: deadline) != true || !save.putBacks.isEmpty || declared != nil else {
                    return
                }
                do {
                    if case .heldHere(holdsFileLock: true) = turn {
                        let locked = file.lockHeldAtExit()
                        if let declared { writeManifest(declared, beside: file, locked) }
                        _ = try savePendingLocked(to: file, atExit: deadline, in: &save, locked)
                    } else {
                        _ = try file.withLock(before: deadline) { locked in
                            if let declared { writeManifest(declared, beside: file, locked) }
                            return try savePendingLocked(to: file, atExit: deadline, in: &save, locked)
                        }
                    }
                } catch {
                    ErrorReporting.report(reported(error))
                }
            }
            if let refused { giveUpAtExit(refused) }
        }

        func giveUpAtExit(_ reason: String) {
            ErrorReporting.report(
                DefaultsError.saveFailed(suite: domain, reason: "the exit-time save gave up, because \(reason)"))
        }
    }
#endif
