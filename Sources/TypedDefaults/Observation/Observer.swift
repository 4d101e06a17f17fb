import Foundation

// @unchecked: the objects are property lists read from the storage, never changed after the commit;
// a change is handed from the thread that made it to the thread that delivers it.
struct ObjectChange: @unchecked Sendable {
    let oldObject: Any?
    let newObject: Any?
    let sequence: UInt64
}

/// One registered callback, with what `cancel()` needs to wait for callbacks in flight.
///
/// Changes reach the callback one at a time, in the order they were numbered (a change is numbered under
/// the storage's write order but announced once that lock is released, so two writers' announcements
/// can cross). Each change is delivered on the thread that announces it (the writer's), once every
/// change numbered before it is delivered: a writer waits for the changes numbered before its own, never
/// for one numbered after it, so no writer delivers other writers' changes and memory holds at most one
/// undelivered change per writer in flight. A thread running a callback never waits: a change it makes
/// there is delivered, on that thread, once it is out of every callback and done announcing.
final class Observer: ChangeReceiver, @unchecked Sendable {
    // @unchecked: the callback and the registry are `Sendable`-safe to call from any thread; the mutable
    // state lives in `turns` and `calls`, which own their locks.
    let name: String
    private let callback: @Sendable (ObjectChange) -> Void
    /// The numbers of the changes committed for this observer and not delivered yet, and whose turn it is.
    private let turns = ConditionLocked(DeliveryTurns())
    private weak var registry: ObserverRegistry?
    /// Whether the observer is cancelled, and its callbacks running now, by thread, so that a callback
    /// that cancels its own token does not wait for itself.
    private let calls = ConditionLocked<(isCancelled: Bool, running: [ObjectIdentifier: Int])>((false, [:]))

    init(name: String, registry: ObserverRegistry, callback: @escaping @Sendable (ObjectChange) -> Void) {
        self.name = name
        self.registry = registry
        self.callback = callback
    }

    /// `sequence` was committed for this observer, in the storage's write order (`held`), where the
    /// change is numbered, so that the numbers come in order.
    func expect(_ sequence: UInt64, _ held: borrowing WriteOrderHeld) {
        turns.withLockedValue(waking: false) { $0.expected.append(sequence) }
    }

    /// Delivers `change` on this thread once every change committed for this observer before it has been
    /// delivered; returns after its callback has run. Inside a callback (of any observer), it never
    /// waits: a change that is not next is held back, and this thread delivers it once it is done
    /// announcing (`deliverHeldBack`).
    func receive(_ change: ObjectChange) {
        let thread = ObjectIdentifier(Thread.current)
        if Self.threads.withLockedValue({ $0[thread] != nil }) {
            if takeTurn(for: change.sequence, waiting: false) {
                deliverInTurn(change)
            } else {
                Self.threads.withLockedValue { $0[thread]?.heldBack.append((self, change)) }
            }
            return
        }
        _ = takeTurn(for: change.sequence, waiting: true)
        deliverInTurn(change)
    }

    /// Delivers the changes this thread made inside the callbacks it ran that were not next then, once it
    /// is out of every callback: called at the end of each announcement, after the changes announced
    /// (which were numbered before any change a callback made).
    static func deliverHeldBack() {
        let thread = ObjectIdentifier(Thread.current)
        while let (observer, change) = threads.withLockedValue({ $0[thread]?.takeFirstHeldBack() }) {
            _ = observer.takeTurn(for: change.sequence, waiting: true)
            observer.deliverInTurn(change)
        }
        threads.withLockedValue { threads in
            if threads[thread]?.isIdle == true { threads[thread] = nil }
        }
    }

    /// Takes the turn to deliver change `sequence`: once it is the first change not delivered and no
    /// other callback of this observer runs. Without `waiting`, only if that holds now.
    private func takeTurn(for sequence: UInt64, waiting: Bool) -> Bool {
        func isTurn(_ turns: DeliveryTurns) -> Bool { !turns.isDelivering && turns.expected.first == sequence }
        if waiting { turns.wait(until: isTurn) }
        return turns.withLockedValue(waking: false) { turns in
            guard isTurn(turns) else { return false }
            turns.isDelivering = true
            turns.expected.removeFirst()
            return true
        }
    }

    /// Runs the callback for `change`, whose turn this thread holds, then hands the turn on.
    private func deliverInTurn(_ change: ObjectChange) {
        deliverNow(change)
        turns.withLockedValue { $0.isDelivering = false }
    }

    private func deliverNow(_ change: ObjectChange) {
        let thread = ObjectIdentifier(Thread.current)
        let starts = calls.withLockedValue { calls in
            guard !calls.isCancelled else { return false }
            calls.running[thread, default: 0] += 1
            return true
        }
        guard starts else { return }

        Self.threads.withLockedValue { $0[thread, default: ThreadDeliveries()].depth += 1 }
        callback(change)
        Self.threads.withLockedValue { $0[thread]?.depth -= 1 }

        calls.withLockedValue { calls in
            calls.running[thread, default: 1] -= 1
            if calls.running[thread] == 0 { calls.running[thread] = nil }
        }
    }

    /// Each thread running a callback of any observer now, or holding changes it made inside one.
    private static let threads = Locked<[ObjectIdentifier: ThreadDeliveries]>([:])

    /// Stops deliveries; with `waiting`, also waits for the ones running on other threads.
    func cancel(waiting: Bool) {
        let thread = ObjectIdentifier(Thread.current)
        // Inside a callback, waiting could deadlock: two callbacks on two threads that cancel each
        // other's observation would each wait for the other to return.
        let mayWait = waiting && Self.threads.withLockedValue { ($0[thread]?.depth ?? 0) == 0 }
        let wasCancelled = calls.withLockedValue { calls in
            defer { calls.isCancelled = true }
            return calls.isCancelled
        }
        // No callback starts once cancelled; those running on other threads are waited for.
        if mayWait { calls.wait { !$0.running.contains(where: { $0.key != thread }) } }
        if !wasCancelled { registry?.remove(self) }
    }
}

/// The changes committed for an observer that it has not got yet, and whether a callback runs now.
struct DeliveryTurns {
    /// Increasing: appended in the storage's write order.
    var expected: [UInt64] = []
    var isDelivering = false
}

/// What a thread delivering changes holds: how deep in callbacks it is, and the changes it made inside
/// them that were not next then, which it delivers once its outermost callback returns.
struct ThreadDeliveries {
    var depth = 0
    var heldBack: [(observer: Observer, change: ObjectChange)] = []

    var isIdle: Bool { depth == 0 && heldBack.isEmpty }

    /// Out of every callback, the held-back change with the lowest number: each observer's in its order.
    mutating func takeFirstHeldBack() -> (Observer, ObjectChange)? {
        guard depth == 0,
            let first = heldBack.indices.min(by: { heldBack[$0].change.sequence < heldBack[$1].change.sequence })
        else {
            return nil
        }
        let taken = heldBack.remove(at: first)
        return (taken.observer, taken.change)
    }
}
