import Foundation

/// A change to a key's value, as an observer sees it.
public struct DefaultsChange<Value: UserDefaultConvertible>: Sendable {
    /// The value before the change.
    public let oldValue: Value
    /// The value after the change: what a read returns now.
    public let newValue: Value
}

/// Keeps an observation alive: `cancel()` ends it, and so does releasing the token (no callback starts
/// after that; one already running on another thread may still finish).
public final class ObservationToken: Sendable {
    private let observers: [Observer]
    /// Keeps the storage's shared state, and so its observers, alive while the observation lasts, even
    /// when no store over the storage is left.
    private let context: StorageContext
    /// Ends what delivers changes on an actor, for an observation that has it.
    private let endDelivery: (@Sendable () -> Void)?

    init(observers: [Observer], context: StorageContext, endDelivery: (@Sendable () -> Void)? = nil) {
        self.observers = observers
        self.context = context
        self.endDelivery = endDelivery
    }

    /// Ends the observation. When `cancel()` returns, no callback of this observation will start, and
    /// none is running on another thread, except when `cancel()` is called from inside a callback: it
    /// then does not wait for callbacks on other threads, as two callbacks that cancel each other's
    /// observation would otherwise wait for each other forever.
    public func cancel() {
        end(waiting: true)
    }

    /// Ends the observation without waiting for callbacks in flight: for the end of a stream, which may
    /// be reached while a writer delivers into that very stream (the writer waits for the stream's lock,
    /// which the ending thread holds; waiting for the writer would deadlock both).
    func cancelWithoutWaiting() {
        end(waiting: false)
    }

    private func end(waiting: Bool) {
        for observer in observers { observer.cancel(waiting: waiting) }
        endDelivery?()
    }

    // Releasing the token does not wait for callbacks running on other threads: the last reference may
    // go in the middle of a delivery into that very observation (a stream that ends while a writer
    // yields into it), where waiting would deadlock.
    deinit { cancelWithoutWaiting() }
}

/// A change of one stored name as observers get it: the objects before and after, and the change's
/// number in its storage's order of changes.
struct ObjectChange {
    let oldObject: Any?
    let newObject: Any?
    let sequence: UInt64
}

/// One registered callback, with what `cancel()` needs to wait for callbacks in flight.
final class Observer: @unchecked Sendable {
    // @unchecked: `isCancelled` and `runningCallbacks` are guarded by `condition`, `order` by its lock.
    let name: String
    private let callback: @Sendable (ObjectChange) -> Void
    /// For an observer that must get changes in the order they were committed (a stream): the numbers of
    /// the changes committed for it and not delivered yet, and those that arrived before an earlier one.
    /// A change is committed under the storage's write order but delivered once that lock is released,
    /// so two writers' deliveries can cross; nil for a callback, which runs on its writer's thread.
    private let order: Locked<DeliveryOrder>?
    private weak var registry: ObserverRegistry?
    private let condition = NSCondition()
    private var isCancelled = false
    /// Callbacks running now, by thread, so a callback that cancels its own token does not wait for itself.
    private var runningCallbacks: [ObjectIdentifier: Int] = [:]

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
        condition.lock()
        guard !isCancelled else {
            condition.unlock()
            return
        }
        runningCallbacks[thread, default: 0] += 1
        condition.unlock()

        Self.deliveringThreads.withLock { $0[thread, default: 0] += 1 }
        callback(change)
        Self.deliveringThreads.withLock { threads in
            threads[thread, default: 1] -= 1
            if threads[thread] == 0 { threads[thread] = nil }
        }

        condition.lock()
        runningCallbacks[thread, default: 1] -= 1
        if runningCallbacks[thread] == 0 { runningCallbacks[thread] = nil }
        condition.broadcast()
        condition.unlock()
    }

    /// Threads running a callback of any observer now.
    private static let deliveringThreads = Locked<[ObjectIdentifier: Int]>([:])

    /// Stops deliveries; with `waiting`, also waits for the ones running on other threads.
    func cancel(waiting: Bool) {
        let thread = ObjectIdentifier(Thread.current)
        // Inside a callback, waiting could deadlock: two callbacks on two threads that cancel each
        // other's observation would each wait for the other to return.
        let mayWait = waiting && Self.deliveringThreads.withLock { $0[thread] == nil }
        condition.lock()
        let wasCancelled = isCancelled
        isCancelled = true
        while mayWait, runningCallbacks.contains(where: { $0.key != thread }) {
            condition.wait()
        }
        condition.unlock()
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

/// The observers of one storage, by stored name.
final class ObserverRegistry: Sendable {
    private let observersByName = Locked<[String: [Observer]]>([:])
    /// Told when a name gets its first observer (`true`) and loses its last (`false`), with no lock of
    /// the registry held: the storage's context, which watches such names for external changes.
    private let firstAndLast = Locked<(@Sendable (String, Bool) -> Void)?>(nil)

    func onFirstAndLastObserver(_ body: @escaping @Sendable (String, Bool) -> Void) {
        firstAndLast.withLock { $0 = body }
    }

    func add(_ observer: Observer) {
        let isFirst = observersByName.withLock { observers in
            defer { observers[observer.name, default: []].append(observer) }
            return observers[observer.name] == nil
        }
        if isFirst, let body = firstAndLast.withLock({ $0 }) { body(observer.name, true) }
    }

    func remove(_ observer: Observer) {
        let wasLast = observersByName.withLock { observers -> Bool in
            guard observers[observer.name]?.contains(where: { $0 === observer }) == true else { return false }
            observers[observer.name]?.removeAll { $0 === observer }
            guard observers[observer.name]?.isEmpty == true else { return false }
            observers[observer.name] = nil
            return true
        }
        if wasLast, let body = firstAndLast.withLock({ $0 }) { body(observer.name, false) }
    }

    /// The observers of `name`, or an empty array: the cost of a write that nobody observes.
    func observers(of name: String) -> [Observer] {
        // Most writes happen with nobody observing anything: skip hashing the name then.
        observersByName.withLock { $0.isEmpty ? [] : $0[name] ?? [] }
    }
}
