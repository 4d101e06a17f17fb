#if os(Linux)
    import Foundation

    /// Saves every domain's pending writes when the process exits normally (`exit()` or a return from
    /// main). Weak: a saver nobody uses any more saves from its `deinit` and is freed.
    final class ExitSaver: Sendable {
        private struct Entry {
            weak var saver: LinuxSaver?
        }

        static let shared = ExitSaver()
        /// Taken alone, never across a save.
        private let savers = Locked<[Entry]>([])

        private init() {
            atexit { ExitSaver.shared.saveAll() }
        }

        func add(_ saver: LinuxSaver) {
            savers.withLockedValue { entries in
                entries.removeAll { $0.saver == nil }
                entries.append(Entry(saver: saver))
            }
        }

        /// Saves what each saver can, never waiting forever (see `LinuxSaver.saveAtExit`).
        func saveAll() {
            guard let savers = savers.withLockedValue(before: Date(timeIntervalSinceNow: LinuxSaver.exitWait), { $0 })
            else {
                return
            }
            for saver in savers.compactMap(\.saver) {
                saver.saveAtExit()
            }
            // What the saves reported: registered after the first report, `ErrorReporting`'s own exit
            // hook may have run before this one.
            ErrorReporting.handOverAtExit(waiting: LinuxSaver.exitWait)
        }
    }
#endif
