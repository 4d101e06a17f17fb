import Foundation

/// A value guarded by a condition lock: as `Locked`, and a thread may wait until the value is what it
/// needs (every change wakes the waiters). For an observer's running callbacks, which `cancel()` waits
/// for, and the saves the Linux saver's scheduler waits to run. A leaf of the lock order, checked as
/// `Locked`'s are in debug builds: taken under any lock, it takes none while held.
final class ConditionLocked<State> {
    private let condition = NSCondition()
    @exclusivity(unchecked) private var state: State

    init(_ state: State) {
        self.state = state
    }

    /// `body` with the lock; waiters are woken after it, to look at the value again, unless `waking` is
    /// false (a change no waiter waits for).
    func withLockedValue<Result>(waking: Bool = true, _ body: (inout State) throws -> Result) rethrows -> Result {
        try locked {
            defer { if waking { condition.broadcast() } }
            return try body(&state)
        }
    }

    /// Waits until `isReady` holds for the value.
    func wait(until isReady: (State) -> Bool) {
        locked { while !isReady(state) { condition.wait() } }
    }

    /// Waits until `isReady` holds for the value or `deadline` passes; whether it holds.
    @discardableResult
    func wait(until isReady: (State) -> Bool, before deadline: Date) -> Bool {
        locked {
            while !isReady(state) {
                if !condition.wait(until: deadline) { return isReady(state) }
            }
            return true
        }
    }

    /// `body` with the condition's lock, recorded in the lock order as a leaf.
    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        LockOrder.willTake(.leaf)
        condition.lock()
        defer {
            condition.unlock()
            LockOrder.didRelease(.leaf)
        }
        return try body()
    }
}

// As `Locked`: the lock does not vouch for what the state holds.
extension ConditionLocked: @unchecked Sendable where State: Sendable {}
