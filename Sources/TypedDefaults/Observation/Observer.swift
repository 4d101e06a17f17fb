import Foundation

struct ObjectChange {
    let oldObject: Any?
    let newObject: Any?
    let sequence: UInt64
}

/// One registered callback, with what `cancel()` needs to wait for callbacks in flight.
final class Observer: @unchecked Sendable {
    // @unchecked: the callback and the registry are `Sendable`-safe to call from any thread; the mutable
    // state lives in `order` and `calls`, which own their locks.
    let name: String
    private let callback: @Sendable (ObjectChange) -> Void
    /// For an observer that must get changes in the order they were committed (a stream): the numbers of
    /// the changes committed for it and not delivered yet, and those that arrived before an earlier one.
    /// A change is committed under the storage's write order but delivered once that lock is released,
    /// so two writers' deliveries can cross; nil for a callback, which runs on its writer's thread.
    private let order: Locked<DeliveryOrder>?
    private weak var registry: ObserverRegistry?
    /// Whether the observer is cancelled, and its callbacks running now, by thread, so that a callback
    /// that cancels its own token does not wait for itself.
    private let calls = ConditionLocked<(isCancelled: Bool, running: [ObjectIdentifier: Int])>((false, [:]))

    /// With `inCommitOrder`, changes reach `callback` one at a time, in the order they were committed,
    /// each on whichever writer's thread completes the order; no lock is held while it runs, so it may
    /// call the library (a write it makes is delivered after it returns).
    init(
        name: String, registry: ObserverRegistry, inCommitOrder: Bool = false,
        callback: @escaping @Sendable (ObjectChange) -> Void
    ) {
        self.name = name
        self.registry = registry
        self.callback = callback
        order = inCommitOrder ? Locked(DeliveryOrder()) : nil
    }

    /// `sequence` was committed for this observer. Called with the storage's write order held, so that
    /// the numbers come in the order of the changes.
    func expect(_ sequence: UInt64) {
        order?.withLock { $0.expected.append(sequence) }
    }

    /// Delivers `change`: at once, or for an observer in commit order, once every change committed
    /// before it is delivered (those held back are delivered by the thread whose change completes them).
    func deliver(_ change: ObjectChange) {
        guard let order else { return deliverNow(change) }
        // One thread at a time hands the ready changes over, outside the lock; a thread that finds
        // another one doing it leaves its change to that one.
        var isDeliverer = order.withLock { order in
            order.arrived[change.sequence] = change
            while let next = order.expected.first, let ready = order.arrived.removeValue(forKey: next) {
                order.expected.removeFirst()
                order.ready.append(ready)
            }
            guard !order.isDelivering, !order.ready.isEmpty else { return false }
            order.isDelivering = true
            return true
        }
        while isDeliverer {
            let batch = order.withLock { order in
                defer { order.ready = [] }
                if order.ready.isEmpty { order.isDelivering = false }
                return order.ready
            }
            for ready in batch { deliverNow(ready) }
            isDeliverer = !batch.isEmpty
        }
    }

    private func deliverNow(_ change: ObjectChange) {
        let thread = ObjectIdentifier(Thread.current)
        let starts = calls.withLock { calls in
            guard !calls.isCancelled else { return false }
            calls.running[thread, default: 0] += 1
            return true
        }
        guard starts else { return }

        Self.deliveringThreads.withLock { $0[thread, default: 0] += 1 }
        callback(change)
        Self.deliveringThreads.withLock { threads in
            threads[thread, default: 1] -= 1
            if threads[thread] == 0 { threads[thread] = nil }
        }

        calls.withLock { calls in
            calls.running[thread, default: 1] -= 1
            if calls.running[thread] == 0 { calls.running[thread] = nil }
        }
    }

    /// Threads running a callback of any observer now.
    private static let deliveringThreads = Locked<[ObjectIdentifier: Int]>([:])

    /// Stops deliveries; with `waiting`, also waits for the ones running on other threads.
    func cancel(waiting: Bool) {
        let thread = ObjectIdentifier(Thread.current)
        // Inside a callback, waiting could deadlock: two callbacks on two threads that cancel each
        // other's observation would each wait for the other to return.
        let mayWait = waiting && Self.deliveringThreads.withLock { $0[thread] == nil }
        let wasCancelled = calls.withLock { calls in
            defer { calls.isCancelled = true }
            return calls.isCancelled
        }
        // No callback starts once cancelled; those running on other threads are waited for.
        if mayWait { calls.wait { !$0.running.contains(where: { $0.key != thread }) } }
        if !wasCancelled { registry?.remove(self) }
    }
}

/// The changes committed for an observer in commit order that it has not got yet.
struct DeliveryOrder {
    /// Increasing: appended under the storage's write order.
    var expected: [UInt64] = []
    var arrived: [UInt64: ObjectChange] = [:]
    /// In commit order, for the thread that is delivering (`isDelivering`) to hand over.
    var ready: [ObjectChange] = []
    var isDelivering = false
}
