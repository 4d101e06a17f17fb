#if os(Linux)
    import Foundation

    /// Runs each saver's save a moment after its first pending write: the timer on a thread of its own
    /// for the process, each save on a thread of its own, at most one at a time per saver. Not on
    /// Dispatch's global queues, which an app can keep busy (CPU-bound or blocked `.utility` work starved
    /// them, and a process killed seconds after a write had not saved it); and not on the timer's thread,
    /// where a suite whose file lock another process holds (stopped, or in a debugger, mid-save) stalled
    /// the saves of every other suite.
    final class SaveScheduler: Sendable {
        private struct Due {
            let deadline: Date
            weak var saver: LinuxSaver?
        }

        static let shared = SaveScheduler()
        /// The saves to run, each when its deadline comes, and the savers whose save runs now.
        private let due = ConditionLocked<(saves: [Due], running: Set<ObjectIdentifier>)>(([], []))
        /// How soon a save that came due while the saver's previous one still ran is looked at again.
        private static let retryDelay: TimeInterval = 0.05

        private init() {
            let thread = Thread { [self] in run() }
            thread.name = "TypedDefaults saver"
            thread.start()
        }

        /// Saves `saver`'s pending writes `delay` from now.
        func schedule(_ saver: LinuxSaver, after delay: TimeInterval) {
            due.withLockedValue { $0.saves.append(Due(deadline: Date(timeIntervalSinceNow: delay), saver: saver)) }
        }

        private func run() {
            while true {
                due.wait { !$0.saves.isEmpty }
                let now = Date()
                let ready = due.withLockedValue { due -> [LinuxSaver]? in
                    guard due.saves.contains(where: { $0.deadline <= now }) else { return nil }
                    var ready: [LinuxSaver] = []
                    for entry in due.saves where entry.deadline <= now {
                        guard let saver = entry.saver, !ready.contains(where: { $0 === saver }) else { continue }
                        ready.append(saver)
                    }
                    // A freed saver's entry goes too: left, its passed deadline made this loop spin.
                    due.saves.removeAll { $0.deadline <= now || $0.saver == nil }
                    // A saver whose previous save still runs (waiting for its file's lock) is looked at
                    // again soon: its writes since are saved when that save is done.
                    for saver in ready where due.running.contains(ObjectIdentifier(saver)) {
                        due.saves.append(Due(deadline: now.addingTimeInterval(Self.retryDelay), saver: saver))
                    }
                    ready.removeAll { due.running.contains(ObjectIdentifier($0)) }
                    for saver in ready { due.running.insert(ObjectIdentifier(saver)) }
                    return ready
                }
                guard let ready else {
                    // Nothing due yet: wait for the first deadline, or for an earlier one scheduled meanwhile.
                    let next = due.withLockedValue { $0.saves.map(\.deadline).min() } ?? now
                    due.wait(until: { $0.saves.contains { $0.deadline < next } }, before: next)
                    continue
                }
                for saver in ready { start(saver) }
            }
        }

        /// Runs `saver`'s save on a thread of its own, with no lock held (a save may tell observers of
        /// what it brought in): one suite waiting for its file's lock delays no other suite's save.
        private func start(_ saver: LinuxSaver) {
            let thread = Thread { [self] in
                do {
                    try saver.flush()
                } catch {
                    ErrorReporting.report(error)
                }
                due.withLockedValue { _ = $0.running.remove(ObjectIdentifier(saver)) }
            }
            thread.name = "TypedDefaults save"
            thread.start()
        }
    }
#endif
