#if os(Linux)
    import Foundation

    /// Runs each saver's save a moment after its first pending write, on a thread of its own for the
    /// process: not on Dispatch's global queues, which an app can keep busy (CPU-bound or blocked
    /// `.utility` work starved them, and a process killed seconds after a write had not saved it).
    final class SaveScheduler: @unchecked Sendable {
        // @unchecked: `due` is guarded by `condition`.
        private struct Due {
            let deadline: Date
            weak var saver: LinuxSaver?
        }

        static let shared = SaveScheduler()
        private let condition = NSCondition()
        private var due: [Due] = []

        private init() {
            let thread = Thread { [self] in run() }
            thread.name = "TypedDefaults saver"
            thread.start()
        }

        /// Saves `saver`'s pending writes `delay` from now.
        func schedule(_ saver: LinuxSaver, after delay: TimeInterval) {
            condition.lock()
            due.append(Due(deadline: Date(timeIntervalSinceNow: delay), saver: saver))
            condition.signal()
            condition.unlock()
        }

        private func run() {
            while true {
                condition.lock()
                while due.isEmpty { condition.wait() }
                let now = Date()
                let ready = due.filter { $0.deadline <= now }.compactMap(\.saver)
                if ready.isEmpty, let next = due.map(\.deadline).min() {
                    _ = condition.wait(until: next)
                    condition.unlock()
                    continue
                }
                due.removeAll { $0.deadline <= now || $0.saver == nil }
                condition.unlock()
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
