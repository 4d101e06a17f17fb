#if os(Linux)
    import Foundation

    /// Runs each saver's save a moment after its first pending write, on a thread of its own for the
    /// process: not on Dispatch's global queues, which an app can keep busy (CPU-bound or blocked
    /// `.utility` work starved them, and a process killed seconds after a write had not saved it).
    final class SaveScheduler: Sendable {
        private struct Due {
            let deadline: Date
            weak var saver: LinuxSaver?
        }

        static let shared = SaveScheduler()
        /// The saves to run, each when its deadline comes.
        private let due = ConditionLocked<[Due]>([])

        private init() {
            let thread = Thread { [self] in run() }
            thread.name = "TypedDefaults saver"
            thread.start()
        }

        /// Saves `saver`'s pending writes `delay` from now.
        func schedule(_ saver: LinuxSaver, after delay: TimeInterval) {
            due.withLock { $0.append(Due(deadline: Date(timeIntervalSinceNow: delay), saver: saver)) }
        }

        private func run() {
            while true {
                due.wait { !$0.isEmpty }
                let now = Date()
                let ready = due.withLock { due -> [LinuxSaver]? in
                    guard due.contains(where: { $0.deadline <= now }) else { return nil }
                    let ready = due.filter { $0.deadline <= now }.compactMap(\.saver)
                    // A freed saver's entry goes too: left, its passed deadline made this loop spin.
                    due.removeAll { $0.deadline <= now || $0.saver == nil }
                    return ready
                }
                guard let ready else {
                    // Nothing due yet: wait for the first deadline, or for an earlier one scheduled meanwhile.
                    let next = due.withLock { $0.map(\.deadline).min() } ?? now
                    due.wait(until: { $0.contains { $0.deadline < next } }, before: next)
                    continue
                }
                // With no lock held: a save may tell observers of what it brought in.
                for saver in ready {
                    do {
                        try saver.flush()
                    } catch {
                        ErrorReporting.report(error)
                    }
                }
            }
        }
    }
#endif
