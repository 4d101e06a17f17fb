#if os(Linux)
    import Foundation

    /// The saver's turn at the file within the process (the suite's file lock takes turns across
    /// processes), with what the saver knows of the file (`SaveState`), reachable only inside
    /// `withSaving`; and who holds the turn, for the exit-time save, which must never wait for a thread
    /// that will not come back (`exit()` called with the turn held).
    final class SaveLock: @unchecked Sendable {
        // @unchecked: `SaveState` holds property-list objects (`Any`), reached only under `saving`'s lock.

        private let saving: Locked<SaveState>
        /// Who holds the turn, readable without waiting for a save's file work.
        private let holder = Locked(Holder())

        /// The thread that holds `saving`, and whether it holds the file lock too (inside `exclusively`).
        struct Holder {
            var thread: ObjectIdentifier?
            var holdsFileLock = false
        }

        /// `pending`: where the save state keeps what the file held, for reads that must not wait for a
        /// save (`PendingWrites.knownObject`).
        init(keepingKnownContentsIn pending: PendingWrites) {
            saving = SaveState.boxed(keepingKnownContentsIn: pending)
        }

        /// `body` holding the turn, with this thread recorded as its holder: the one way the turn is taken
        /// (but at exit).
        func withSaving<Result>(_ body: (inout SaveState) throws -> Result) rethrows -> Result {
            try saving.withLockedValue { save in
                holder.withLockedValue { $0.thread = ObjectIdentifier(Thread.current) }
                defer { holder.withLockedValue { ($0.thread, $0.holdsFileLock) = (nil, false) } }
                return try body(&save)
            }
        }

        /// `withSaving` if the turn is free now; nil otherwise. For the watcher, which serves every suite
        /// and must never wait for one suite's save (it may wait for another process's file lock).
        private func withSavingIfFree<Result>(_ body: (inout SaveState) throws -> Result) rethrows -> Result? {
            try saving.withLockedValueIfFree { save in
                holder.withLockedValue { $0.thread = ObjectIdentifier(Thread.current) }
                defer { holder.withLockedValue { ($0.thread, $0.holdsFileLock) = (nil, false) } }
                return try LockOrder.holding(.saving) { try body(&save) }
            }
        }

        /// How long a save waits for the suite's file lock, which another process holds, before it gives
        /// up and says so (`FileFailure.timedOut`): the writes stay pending for the next save.
        static let fileLockWait: TimeInterval = 5

        /// `body` holding `file`'s lock as well, recorded for the exit-time save. `save` is the turn's
        /// state, handed on to `body`: only a holder of the turn has it to give. Gives up after
        /// `fileLockWait` (another process that stopped mid-save holds the lock for good).
        func withFileLock<Result>(
            _ file: SuiteFile, in save: inout SaveState,
            _ body: (inout SaveState, borrowing FileLockHeld) throws -> Result
        ) throws -> Result {
            try LockOrder.holding(.suiteFile) {
                try file.withLock(before: Date(timeIntervalSinceNow: Self.fileLockWait)) { locked in
                    holder.withLockedValue { $0.holdsFileLock = true }
                    defer { holder.withLockedValue { $0.holdsFileLock = false } }
                    return try body(&save, locked)
                }
            }
        }

        /// How the exit-time save may take the turn, waiting until `deadline` at most.
        enum ExitTurn {
            /// This thread holds the turn further up its stack, and the file lock too if `holdsFileLock`.
            case heldHere(holdsFileLock: Bool)
            case other
        }

        /// `body` with the turn's state at exit: without taking the turn when this thread holds it already
        /// (it never returns there), else taking it if it is free before `deadline`. When it is not, why.
        private func withSavingAtExit(before deadline: Date, _ body: (ExitTurn, inout SaveState) -> Void) -> String? {
            guard
                let held = holder.withLockedValue(
                    before: deadline, { (thread: $0.thread, holdsFileLock: $0.holdsFileLock) })
            else {
                return "its bookkeeping stayed locked"
            }
            if held.thread == ObjectIdentifier(Thread.current) {
                saving.unsafe.withValueAssumingLockIsHeld { body(.heldHere(holdsFileLock: held.holdsFileLock), &$0) }
                return nil
            }
            guard saving.withLockedValue(before: deadline, { body(.other, &$0) }) != nil else {
                return "another thread's save held the suite for \(Int(LinuxSaver.exitWait)) s"
            }
            return nil
        }

        /// Removes `file` under its lock (the lock file stays: see `withFileLock`); what the saver knew of it
        /// is forgotten. A failure is reported. Not through Foundation's `removePersistentDomain(forName:)`:
        /// it calls `synchronize()`, and a `synchronize()` of any suite rewrites every domain this process
        /// changed, the library's too, as XML, from a copy of memory taken without the library's lock,
        /// which can put older values back.
        func removeFile(_ file: SuiteFile, of domain: String) {
            withSaving { save in
                save.known = nil
                do {
                    try withFileLock(file, in: &save) { _, _ in file.removeFile() }
                    save.forgetKnownContents()
                } catch {
                    ErrorReporting.report(FileFailure.reported(error, suite: domain))
                }
            }
        }

        /// Takes what `file` holds as the version this process knows. Called before Foundation reads the
        /// file: one that no reader may be handed (`BinaryPropertyList.isRefusedOutright`: a set, an
        /// expansion far beyond its size, a cycle) is moved aside now, under the suite's lock; returns what
        /// to report, so that Foundation's first read finds none instead of crashing or building gigabytes.
        func lookOnce(at file: SuiteFile, of domain: String) -> DefaultsError? {
            withSaving { save in
                guard let state = try? save.look(at: file, of: domain, movingAsideUnreadable: false),
                    state.refusedOutright
                else {
                    return nil
                }
                do {
                    return try withFileLock(file, in: &save) { save, _ in
                        try save.look(at: file, of: domain, movingAsideUnreadable: true).notice
                    }
                } catch {
                    return FileFailure.reported(error, suite: domain)
                }
            }
        }

        /// Saves what it can at exit, and never waits past `deadline`: `exit()` may be called with the turn
        /// held by the exiting thread (inside `modify`'s transform, or from a signal handler that
        /// interrupted a write or a save), which then saves without taking it. Values others saved are not
        /// brought into memory: the process is ending. What it cannot save is reported.
        func saveAtExit(
            _ pending: PendingWrites, to file: SuiteFile, of domain: String, before deadline: Date,
            declared takeDeclared: () -> ManifestKeys?
        ) {
            let refused = withSavingAtExit(before: deadline) { turn, save in
                let declared = takeDeclared()
                // Unknown (the pending writes stayed locked): tried, and the save reports it.
                guard pending.isEmpty(before: deadline) != true || !save.putBacks.isEmpty || declared != nil else {
                    return
                }
                func saveLocked(_ locked: borrowing FileLockHeld) throws {
                    _ = try save.save(pending, manifest: declared, to: file, of: domain, atExit: deadline, locked)
                }
                do {
                    if case .heldHere(holdsFileLock: true) = turn {
                        try saving.unsafe.withFileLockAssumedHeld(file, saveLocked)
                    } else {
                        try file.withLock(before: deadline, saveLocked)
                    }
                } catch {
                    ErrorReporting.report(FileFailure.reported(error, suite: domain))
                }
            }
            if let refused {
                ErrorReporting.report(
                    DefaultsError.saveFailed(suite: domain, reason: "the exit-time save gave up, because \(refused)"))
            }
        }

        /// The watcher's look: what others saved in `file`, queued into `inbox`, if the turn is free now
        /// (never waited for: the watcher serves every suite, and this one's save may wait for another
        /// process's file lock); whether values Foundation wrote over must be put back. Nil: not looked.
        func lookIfFree(at file: SuiteFile, of domain: String, into inbox: SavedChangeInbox) -> Bool? {
            withSavingIfFree { save in
                if let state = try? save.look(at: file, of: domain, movingAsideUnreadable: false) {
                    inbox.queue(state.changedElsewhere, in: &save)
                }
                return !save.putBacks.isEmpty
            }
        }

        /// The locked save, under the turn (`save`): the file lock, the manifest of `declared` and the
        /// pending writes (`SaveState.save`), and what others saved meanwhile queued into `inbox`.
        func save(
            _ pending: PendingWrites, manifest declared: ManifestKeys?, to file: SuiteFile, of domain: String,
            into inbox: SavedChangeInbox, in save: inout SaveState
        ) throws -> DefaultsError? {
            let saved = try withFileLock(file, in: &save) { save, locked in
                try save.save(pending, manifest: declared, to: file, of: domain, locked)
            }
            inbox.queue(saved.changedElsewhere, saving: saved.changes, in: &save)
            return saved.notice
        }

        /// `body` as a step that runs alone over the suite, under the turn (`save`) and the file lock: what
        /// others saved is in memory before it runs (numbered on the step's thread: the step announces
        /// them when it ends, once every lock is released, whichever way it ends), and what it wrote is
        /// saved before the lock is released. `notice`: what to report once no lock is held.
        func exclusively<Result>(
            _ pending: PendingWrites, to file: SuiteFile, of domain: String, into inbox: SavedChangeInbox,
            in save: inout SaveState, notice: inout DefaultsError?, _ body: () throws -> Result
        ) throws -> Result {
            try withFileLock(file, in: &save) { save, locked in
                let state = try save.look(at: file, of: domain, movingAsideUnreadable: true)
                notice = state.notice
                inbox.queue(state.changedElsewhere, in: &save)
                let unannounced = inbox.bringInQueued()
                assert(unannounced.isEmpty, "a change numbered in a step is the step's to announce")
                let result = try body()
                let saved = try save.save(pending, to: file, of: domain, locked)
                inbox.queue(saved.changedElsewhere, saving: saved.changes, in: &save)
                notice = notice ?? saved.notice
                return result
            }
        }
    }
#endif
