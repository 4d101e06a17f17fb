#if os(Linux)
    import Foundation

    /// Runs each saver's save a moment after its first pending write: the timer on a thread of its own
    /// for the process, the saves on a few threads of their own (`maxSaveThreads`), at most one at a
    /// time per saver. A save waits for another process's file lock for `SaveLock.fileLockWait` at most,
    /// so a suite whose lock is held delays the others by no more than that, and only when every save
    /// thread waits so. Not on
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
        /// The saves to run, each when its deadline comes, the savers whose save runs now or waits for a
        /// save thread (`ready`, in order), and how many save threads there are and wait for work.
        private let due = ConditionLocked(
            (
                saves: [Due](), running: Set<ObjectIdentifier>(), ready: [LinuxSaver](), threads: 0,
                idleThreads: 0
            ))
        /// The most save threads the process runs: a thousand suites written at once are saved by these.
        static let maxSaveThreads = 4
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
                let newThreads = due.withLockedValue { due -> Int? in
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
                    due.ready += ready
                    // A thread more for each save no idle thread will take, while there is room.
                    let starts = max(0, min(due.ready.count - due.idleThreads, Self.maxSaveThreads - due.threads))
                    due.threads += starts
                    return starts
                }
                guard let newThreads else {
                    // Nothing due yet: wait for the first deadline, or for an earlier one scheduled meanwhile.
                    let next = due.withLockedValue { $0.saves.map(\.deadline).min() } ?? now
                    due.wait(until: { $0.saves.contains { $0.deadline < next } }, before: next)
                    continue
                }
                for _ in 0..<newThreads { startSaveThread() }
            }
        }

        /// A save thread: runs the ready savers' saves, one after another, with no lock held (a save may
        /// tell observers of what it brought in), for the rest of the process.
        private func startSaveThread() {
            let thread = Thread { [self] in
                while true {
                    due.withLockedValue { $0.idleThreads += 1 }
                    due.wait { !$0.ready.isEmpty }
                    guard
                        let saver = due.withLockedValue({ due -> LinuxSaver? in
                            guard !due.ready.isEmpty else { return nil }
                            due.idleThreads -= 1
                            return due.ready.removeFirst()
                        })
                    else {
                        // Another thread took it first.
                        due.withLockedValue { $0.idleThreads -= 1 }
                        continue
                    }
                    do {
                        try saver.flush()
                    } catch {
                        ErrorReporting.report(error)
                    }
                    due.withLockedValue { _ = $0.running.remove(ObjectIdentifier(saver)) }
                }
            }
            thread.name = "TypedDefaults save"
            thread.start()
        }
    }
#endif
