import Foundation

/// The order in which a thread may take the library's locks that span several steps: a lock is only
/// ever taken while the thread holds locks of lower ranks. Written once, here; `RankedLock` checks it in
/// debug builds. Leaf locks (a `Locked` value: a saver's pending writes, its bring-in queue) are taken
/// under any of these and take nothing themselves.
package enum LockRank: Int, Comparable, Sendable {
    /// A context's turn for `modify` (StorageContext).
    case modify = 1
    /// A saver's turn to save or look at the file (LinuxSaver).
    case saving
    /// The suite's file lock, shared with other processes (SuiteFile).
    case suiteFile
    /// A saver's turn to bring what others saved into memory (LinuxSaver).
    case bringingIn
    /// A context's write order: a value, its record for saving and its number (StorageContext).
    case writeOrder

    package static func < (lhs: LockRank, rhs: LockRank) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A lock with its rank in the lock order. In debug builds, taking it while the thread holds a lock of
/// the same or a higher rank stops the program with both ranks named: an inversion that could deadlock
/// fails the first test that takes it, not one run in a thousand.
package final class RankedLock: Sendable {
    let rank: LockRank
    private let base = BasicLock()

    package init(_ rank: LockRank) {
        self.rank = rank
    }

    func lock() {
        LockOrder.willTake(rank)
        base.lock()
    }

    func unlock() {
        base.unlock()
        LockOrder.didRelease(rank)
    }

    /// The lock if it can be had before `deadline`, unchecked and unrecorded: for the exit-time save,
    /// whose thread may hold any lock (`exit()` called inside `modify`, or from a signal handler).
    func lock(before deadline: Date) -> Bool {
        base.lock(before: deadline)
    }

    /// The lock if it is free now, unchecked and unrecorded: a try never waits, so it cannot deadlock.
    func `try`() -> Bool {
        base.try()
    }

    package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
        self.lock()
        defer { unlock() }
        return try body()
    }
}

/// The ranks each thread holds, checked in debug builds only.
enum LockOrder {
    /// Records a file lock, which is not a `RankedLock`, around `body`.
    static func holding<Result>(_ rank: LockRank, _ body: () throws -> Result) rethrows -> Result {
        willTake(rank)
        defer { didRelease(rank) }
        return try body()
    }

    #if DEBUG
        private static let key = "TypedDefaults.heldLockRanks"

        private static var held: [LockRank] {
            get { Thread.current.threadDictionary[key] as? [LockRank] ?? [] }
            set { Thread.current.threadDictionary[key] = newValue }
        }

        static func willTake(_ rank: LockRank) {
            var ranks = held
            if let highest = ranks.max(), highest >= rank {
                preconditionFailure("TypedDefaults lock order: \(rank) taken while holding \(highest)")
            }
            ranks.append(rank)
            held = ranks
        }

        static func didRelease(_ rank: LockRank) {
            var ranks = held
            if let index = ranks.lastIndex(of: rank) { ranks.remove(at: index) }
            held = ranks
        }

        /// User code ranks below every lock (`UserCode`): it runs with none held, but a step's own turn
        /// (`modify`'s transform runs inside it, on purpose) when `insideStep`.
        static func checkUserCodeMayRun(insideStep: Bool) {
            let ranks = held
            let allowed: Set<LockRank> = insideStep ? [.modify, .saving, .suiteFile, .bringingIn] : []
            if let taken = ranks.first(where: { !allowed.contains($0) }) {
                preconditionFailure(
                    "TypedDefaults lock order: code that is not the library's called while holding \(taken)")
            }
        }
    #else
        @inline(__always) static func checkUserCodeMayRun(insideStep: Bool) {}
        @inline(__always) static func willTake(_ rank: LockRank) {}
        @inline(__always) static func didRelease(_ rank: LockRank) {}
    #endif
}
