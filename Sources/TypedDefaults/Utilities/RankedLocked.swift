import Foundation

/// State owned by a lock with a rank in the lock order (`LockRank`): the state is reachable only inside
/// `withLockedValue`, so "called with the lock held" is a parameter's type (`inout State`), checked by the
/// compiler, not a comment. As swift-nio's `NIOLockedValueBox`, for the locks that span several steps (a
/// context's write order, a saver's save); leaf state lives in a `Locked`.
final class RankedLocked<State> {
    let lock: RankedLock
    // Unchecked: the lock already makes every access exclusive, and the run-time check Swift would add
    // costs every write through a key (see Performance.md).
    @exclusivity(unchecked) private var state: State

    init(_ rank: LockRank, _ state: State) {
        lock = RankedLock(rank)
        self.state = state
    }

    @inline(__always)
    func withLockedValue<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }

    /// `body` with the lock if it is free now; nil otherwise (never waits, so it cannot deadlock).
    func withLockedValueIfFree<Result>(_ body: (inout State) throws -> Result) rethrows -> Result? {
        guard lock.try() else { return nil }
        defer { lock.unlock() }
        return try body(&state)
    }

    /// `body` with the lock if it can be had before `deadline`; nil otherwise. For the exit-time save,
    /// which must never wait forever.
    func withLockedValue<Result>(before deadline: Date, _ body: (inout State) throws -> Result) rethrows -> Result? {
        guard lock.lock(before: deadline) else { return nil }
        defer { lock.unlock() }
        return try body(&state)
    }

    /// `body` with the state, without taking the lock, for a thread that holds it already further up its
    /// stack and will never return there: `exit()` called inside a save (from `modify`'s transform or a
    /// signal handler). Nothing else may call it.
    func withValueHeldAtExit<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        try body(&state)
    }
}

// As `Locked`: the lock does not vouch for what the state holds.
extension RankedLocked: @unchecked Sendable where State: Sendable {}
