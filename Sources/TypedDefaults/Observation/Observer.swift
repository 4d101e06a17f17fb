import Foundation

/// One registered callback, with what `cancel()` needs to wait for callbacks in flight.
///
/// Changes reach the callback one at a time, in the order they were numbered (a change is numbered under
/// the storage's write order but announced once that lock is released, so two writers' announcements
/// can cross). Each change is delivered on the thread that announces it (the writer's), once every
/// change numbered before it is delivered: a writer waits for the changes numbered before its own, never
/// for one numbered after it, so no writer delivers other writers' changes and memory holds at most one
/// undelivered change per writer in flight. A thread running a callback never waits: a change it makes
/// there is delivered, on that thread, once it is out of every callback and done announcing.
final class Observer: @unchecked Sendable {
    // @unchecked: the callback and the registry are `Sendable`-safe to call from any thread; the mutable
    // state lives in `turns`, which owns its lock.
    let name: String
    private let callback: @Sendable (ObjectChange) -> Void
    /// The numbers of the changes committed for this observer and not delivered yet, whose turn it is, and
    /// the callbacks running now (`DeliveryTurns`).
    private let turns = ConditionLocked(DeliveryTurns())
    private weak var registry: ObserverRegistry?

    /// `holdingFirstTurn`: the observer's first turn is its registrar's, for the `initial` call
    /// (`deliverFirst`): no change reaches the callback before that call has run.
    init(
        name: String, registry: ObserverRegistry, holdingFirstTurn: Bool = false,
        callback: @escaping @Sendable (ObjectChange) -> Void
    ) {
        self.name = name
        self.registry = registry
        self.callback = callback
        if holdingFirstTurn { turns.withLockedValue(waking: false) { $0.isDelivering = true } }
    }

    /// `sequence` was committed for this observer, in the storage's write order (`held`), where the
    /// change is numbered, so that the numbers come in order.
    func expect(_ sequence: UInt64, _ held: borrowing WriteOrderHeld) {
        turns.withLockedValue(waking: false) { $0.expected.append(sequence) }
    }

    /// Runs `body`, the `initial` call, in the first turn each of `observers` was made with, then hands
    /// their turns on: changes committed meanwhile wait for it (as they wait for any callback of the
    /// observer), and those numbered up to `through`, which the initial value already holds, are not
    /// delivered.
    static func deliverFirst(of observers: [Observer], through sequence: UInt64?, _ body: () -> Void) {
        let starts = observers.contains { observer in observer.turns.withLockedValue(waking: false) { !$0.isCancelled }
        }
        if starts { UserCode.run(body) }
        for observer in observers {
            observer.turns.withLockedValue { turns in
                if let sequence { turns.deliveredThrough = sequence }
                turns.isDelivering = false
            }
        }
        UserCode.deliverHeldBack()
    }

    /// Delivers `change` on this thread once every change committed for this observer before it has been
    /// delivered; returns after its callback has run. Inside user code (any callback, `onChange`, a
    /// handler), it never waits: a change that is not next is held back, and this thread delivers it
    /// once it is out and done announcing (`UserCode.deliverHeldBack`).
    func receive(_ change: ObjectChange) {
        if UserCode.isRunning {
            switch takeTurn(for: change.sequence, waiting: false) {
            case .deliver: deliverInTurn(change)
            case .skip: break
            case .notNow:
                let thread = ObjectIdentifier(Thread.current)
                ProcessState.withState { $0.heldBack[thread, default: []].append((self, change)) }
                UserCode.setHoldsBack(true)
            }
            return
        }
        if takeTurn(for: change.sequence, waiting: true) == .deliver { deliverInTurn(change) }
    }

    /// Delivers the changes this thread made inside user code that were not next then, once it is out
    /// of every call into user code (`UserCode.deliverHeldBack`, which looks at the thread's mark first).
    @inline(never)
    static func deliverHeldBack() {
        let thread = ObjectIdentifier(Thread.current)
        while let (observer, change) = ProcessState.withState({
            Self.takeFirst(from: &$0.heldBack[thread, default: []])
        }) {
            if observer.takeTurn(for: change.sequence, waiting: true) == .deliver { observer.deliverInTurn(change) }
            // A callback there may have held more back: they are in the table, taken in turn.
        }
        ProcessState.withState { $0.heldBack[thread] = nil }
        UserCode.setHoldsBack(false)
    }

    /// The held-back change with the lowest number: each observer's in its order.
    private static func takeFirst(from changes: inout [(observer: Observer, change: ObjectChange)])
        -> (Observer, ObjectChange)?
    {
        guard let first = changes.indices.min(by: { changes[$0].change.sequence < changes[$1].change.sequence }) else {
            return nil
        }
        let taken = changes.remove(at: first)
        return (taken.observer, taken.change)
    }

    private enum Turn { case deliver, skip, notNow }

    /// Takes the turn to deliver change `sequence`: once it is the first change not delivered and no
    /// other callback of this observer runs. Without `waiting`, only if that holds now. A change the
    /// initial call's value already held is skipped.
    private func takeTurn(for sequence: UInt64, waiting: Bool) -> Turn {
        func isTurn(_ turns: DeliveryTurns) -> Bool { !turns.isDelivering && turns.expected.first == sequence }
        if waiting { turns.wait(until: isTurn) }
        var skipped = false
        let turn = turns.withLockedValue(waking: false) { turns -> Turn in
            guard isTurn(turns) else { return .notNow }
            turns.expected.removeFirst()
            if sequence <= turns.deliveredThrough {
                skipped = true
                return .skip
            }
            turns.isDelivering = true
            return .deliver
        }
        // The next change's deliverer waits for this one's turn to pass.
        if skipped { turns.withLockedValue { _ in } }
        return turn
    }

    /// Runs the callback for `change`, whose turn this thread holds, then hands the turn on.
    private func deliverInTurn(_ change: ObjectChange) {
        deliverNow(change)
        turns.withLockedValue { $0.isDelivering = false }
    }

    private func deliverNow(_ change: ObjectChange) {
        let thread = ObjectIdentifier(Thread.current)
        let starts = turns.withLockedValue(waking: false) { calls in
            guard !calls.isCancelled else { return false }
            calls.running[thread, default: 0] += 1
            return true
        }
        guard starts else { return }

        UserCode.run { callback(change) }

        turns.withLockedValue { calls in
            calls.running[thread, default: 1] -= 1
            if calls.running[thread] == 0 { calls.running[thread] = nil }
        }
    }

    /// Stops deliveries; with `waiting`, also waits for the ones running on other threads.
    func cancel(waiting: Bool) {
        let thread = ObjectIdentifier(Thread.current)
        // Inside a callback, waiting could deadlock: two callbacks on two threads that cancel each
        // other's observation would each wait for the other to return.
        let mayWait = waiting && !UserCode.isRunning
        let wasCancelled = turns.withLockedValue(waking: false) { calls in
            defer { calls.isCancelled = true }
            return calls.isCancelled
        }
        // No callback starts once cancelled; those running on other threads are waited for.
        if mayWait { turns.wait { !$0.running.contains(where: { $0.key != thread }) } }
        if !wasCancelled { registry?.remove(self) }
    }
}

/// The changes committed for an observer that it has not got yet, whether a callback runs now, and which:
/// one lock for an observer's deliveries and its cancelling.
struct DeliveryTurns {
    /// Whether the observer is cancelled, and its callbacks running now, by thread, so that a callback
    /// that cancels its own token does not wait for itself.
    var isCancelled = false
    var running: [ObjectIdentifier: Int] = [:]
    /// Increasing: appended in the storage's write order.
    var expected: [UInt64] = []
    var isDelivering = false
    /// The last change the `initial` call's value held: changes up to it are not delivered again.
    var deliveredThrough: UInt64 = 0
}
