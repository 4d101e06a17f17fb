#if os(Linux)
    import Foundation

    /// The saver's turn at the file within the process (the suite's file lock takes turns across
    /// processes), with what the saver knows of the file (`SaveState`), reachable only inside
    /// `withSaving`; and who holds the turn, for the exit-time save, which must never wait for a thread
    /// that will not come back (`exit()` called with the turn held).
    final class SaveLock: @unchecked Sendable {
        // @unchecked: `SaveState` holds property-list objects (`Any`), reached only under `saving`'s lock.

        private let saving: Locked<SaveState>
        /// Who holds the turn, and what the file held, readable without waiting for a save's file work.
        private let holder = Locked(Holder())

        /// The thread that holds `saving`, and whether it holds the file lock too (inside `exclusively`);
        /// and the contents of the last `SaveState.known` there was, for `knownContents`.
        struct Holder {
            var thread: ObjectIdentifier?
            var holdsFileLock = false
            var knownContents: [ExactText: Any]?
        }

        init() {
            saving = SaveState.boxed(holder: holder)
        }

        /// What the file held when this process last read or wrote it, without waiting for a save.
        var knownContents: [ExactText: Any]? { holder.withLockedValue { $0.knownContents } }

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
        func withSavingIfFree<Result>(_ body: (inout SaveState) throws -> Result) rethrows -> Result? {
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
        func withSavingAtExit(before deadline: Date, _ body: (ExitTurn, inout SaveState) -> Void) -> String? {
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
    }
#endif
