import Foundation

/// A value guarded by a lock, which every platform has (an `NSLock`): the library's state shared
/// between threads lives in these, and code that runs under the lock takes the state `inout`. Orders
/// that span several steps (the write order, a save, the suite's file lock) are `RankedLock`s, whose
/// order `LockRank` writes down and debug builds check (RankedLock.swift).
package final class Locked<State> {
    private let lock = BasicLock()
    // Unchecked: the lock already makes every access exclusive, and the run-time check Swift would add
    // costs every read and write through a key (see Performance.md).
    @exclusivity(unchecked) private var state: State

    package init(_ state: State) {
        self.state = state
    }

    /// `body` with the lock, if it can be had before `deadline`; nil otherwise. For the exit-time save,
    /// which must never wait forever (the exiting thread may hold the lock itself).
    func withLockedValue<Result>(before deadline: Date, _ body: (inout State) throws -> Result) rethrows -> Result? {
        guard lock.lock(before: deadline) else { return nil }
        defer { lock.unlock() }
        return try body(&state)
    }

    package func withLockedValue<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}

// As swift-nio's `NIOLockedValueBox`: the lock makes every access exclusive, but it does not vouch for
// what the state holds, so the box is `Sendable` only when the state is.
extension Locked: @unchecked Sendable where State: Sendable {}
