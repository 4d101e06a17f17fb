import Dispatch
import Foundation

/// The library's one lock box: a value guarded by a lock with its rank in the lock order (`LockRank`).
/// The state is reachable only inside `withLockedValue`, so "called with the lock held" is a parameter's
/// type (`inout State`), checked by the compiler, not a comment; as swift-nio's `NIOLockedValueBox`. A box
/// whose lock spans several steps (a context's write order, a saver's save) has its rank, which debug
/// builds check; every other box is a `.leaf`: taken under any lock, and taking none itself.
///
/// The lock: on Linux a semaphore of one (libdispatch's uncontended wait and signal are one atomic
/// operation each, 31 instructions a lock and unlock against 82 for Foundation's `NSLock`, callgrind,
/// Swift 6.3.1). Elsewhere an `NSLock`: on Apple platforms a waiting thread lends its priority to a lock's
/// holder, not to a semaphore's. Not recursive: a thread that takes it again waits for itself.
package final class Locked<State> {
    let rank: LockRank
    #if os(Linux)
        private let base = DispatchSemaphore(value: 1)
    #else
        private let base = NSLock()
    #endif
    // Unchecked: the lock already makes every access exclusive, and the run-time check Swift would add
    // costs every read and write through a key (see Performance.md).
    @exclusivity(unchecked) private var state: State

    /// A leaf box.
    package init(_ state: State) {
        rank = .leaf
        self.state = state
    }

    package init(_ rank: LockRank, _ state: State) {
        self.rank = rank
        self.state = state
    }

    @inline(__always)
    package func withLockedValue<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        LockOrder.willTake(rank)
        lock()
        defer {
            unlock()
            LockOrder.didRelease(rank)
        }
        return try body(&state)
    }

    /// `body` with the lock if it is free now; nil otherwise. Unchecked and unrecorded: a try never waits,
    /// so it cannot deadlock.
    func withLockedValueIfFree<Result>(_ body: (inout State) throws -> Result) rethrows -> Result? {
        #if os(Linux)
            guard base.wait(timeout: .now()) == .success else { return nil }
        #else
            guard base.try() else { return nil }
        #endif
        defer { unlock() }
        return try body(&state)
    }

    /// `body` with the lock if it can be had before `deadline`; nil otherwise. Unchecked and unrecorded:
    /// for the exit-time save, which must never wait forever (the exiting thread may hold any lock:
    /// `exit()` inside `modify`'s transform, or from a signal handler).
    func withLockedValue<Result>(before deadline: Date, _ body: (inout State) throws -> Result) rethrows -> Result? {
        #if os(Linux)
            // At most a day: `DispatchTime` counts nanoseconds in 64 bits, which a far date does not fit.
            let seconds = min(max(deadline.timeIntervalSinceNow, 0), 86_400)
            guard base.wait(timeout: .now() + seconds) == .success else { return nil }
        #else
            guard base.lock(before: deadline) else { return nil }
        #endif
        defer { unlock() }
        return try body(&state)
    }

    @inline(__always) private func lock() {
        #if os(Linux)
            base.wait()
        #else
            base.lock()
        #endif
    }

    @inline(__always) private func unlock() {
        #if os(Linux)
            base.signal()
        #else
            base.unlock()
        #endif
    }

    /// The one way past a lock: see `Unsafe`.
    var unsafe: Unsafe { Unsafe(box: self) }

    /// What only the exit-time save may do: reach a box's state on a thread that holds its lock further
    /// up its stack and will never return there (`exit()` called inside a save). As swift-nio keeps
    /// `withValueAssumingLockIsAcquired` under `unsafe`.
    struct Unsafe {
        fileprivate let box: Locked

        func withValueAssumingLockIsHeld<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
            try body(&box.state)
        }
    }
}

/// The state of a box that is a turn and guards nothing else (`modify`'s turn, a saver's bring-in): how
/// many times it was taken. Never an empty value: Swift hands an empty value's `inout` an address that is
/// not its own, shared with every other, and ThreadSanitizer takes two turns of different boxes for a race.
struct TurnsTaken {
    var count: UInt64 = 0
}

// As swift-nio's `NIOLockedValueBox`: the lock makes every access exclusive, but it does not vouch for
// what the state holds, so the box is `Sendable` only when the state is.
extension Locked: @unchecked Sendable where State: Sendable {}

/// The order in which a thread may take the library's locks: a lock is only ever taken while the thread
/// holds locks of lower ranks. Written once, here; `Locked` checks it in debug builds, leaf boxes
/// (`.leaf`: a saver's pending writes, the bindings, every box with no rank of its own) included: a
/// leaf is taken under any lock, and takes none while held.
package enum LockRank: Int, Comparable, Sendable {
    /// A context's turn for `modify` (ChangeLog).
    case modify = 1
    /// A saver's turn to save or look at the file (SaveLock).
    case saving
    /// The suite's file lock, shared with other processes (SuiteFile).
    case suiteFile
    /// A saver's turn to bring what others saved into memory (SavedChangeInbox).
    case bringingIn
    /// A context's write order: a value, its record for saving and its number (ChangeLog).
    case writeOrder
    /// A feed's order of values (`DefaultsStore.feed`): the queue it hands them to (`DemandFeed`'s box,
    /// a leaf, or an `AsyncStream`'s) is taken under it.
    case feed
    /// Any other box.
    case leaf

    package static func < (lhs: LockRank, rhs: LockRank) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The ranks each thread holds, checked in debug builds only.
enum LockOrder {
    /// Records a lock that is not a box's (the suite's file lock, a box taken by `withLockedValueIfFree`)
    /// around `body`.
    static func holding<Result>(_ rank: LockRank, _ body: () throws -> Result) rethrows -> Result {
        willTake(rank)
        defer { didRelease(rank) }
        return try body()
    }

    #if DEBUG
        /// The ranks this thread holds, a bit each (a thread holds a rank at most once: `willTake` refuses
        /// a second), kept per thread without a lock: Foundation's per-thread dictionary cost every lock
        /// of a debug build hundreds of instructions.
        private static let held = ThreadWord()

        private static func bit(_ rank: LockRank) -> Int { 1 << rank.rawValue }

        static func willTake(_ rank: LockRank) {
            let ranks = held.value
            // A rank at or above `rank` is held: its bit is `rank`'s or a higher one.
            if ranks >= bit(rank), let highest = LockRank(rawValue: Int.bitWidth - 1 - ranks.leadingZeroBitCount) {
                preconditionFailure("TypedDefaults lock order: \(rank) taken while holding \(highest)")
            }
            held.value = ranks | bit(rank)
        }

        static func didRelease(_ rank: LockRank) {
            held.value &= ~bit(rank)
        }

        /// Stops a debug build when this thread holds a lock of the library, but a step's turns where
        /// `insideStep`: where code that is not the library's runs (user code ranks below every lock,
        /// `UserCode`; `modify`'s transform runs inside its step's turn, on purpose), where changes are
        /// announced, and where a domain is first prepared (file work and Foundation's read of it).
        static func checkNoLockHeld(insideStep: Bool) {
            let allowed = insideStep ? bit(.modify) | bit(.saving) | bit(.suiteFile) | bit(.bringingIn) : 0
            let forbidden = held.value & ~allowed
            if forbidden != 0, let taken = LockRank(rawValue: forbidden.trailingZeroBitCount) {
                preconditionFailure(
                    "TypedDefaults lock order: code that is not the library's called while holding \(taken)")
            }
        }
    #else
        @inline(__always) static func checkNoLockHeld(insideStep: Bool) {}
        @inline(__always) static func willTake(_ rank: LockRank) {}
        @inline(__always) static func didRelease(_ rank: LockRank) {}
    #endif
}
