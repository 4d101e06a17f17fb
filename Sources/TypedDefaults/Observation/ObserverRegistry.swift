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
/// number in its storage's write order.
/// The observers of one storage, by stored name.
final class ObserverRegistry: Sendable {
    private let state = Locked(State())

    struct State {
        var byName: [String: [Observer]] = [:]
        /// Told when a name gets its first observer (`true`) and loses its last (`false`), with no lock of
        /// the registry held: the storage's context, which watches such names for external changes.
        var firstAndLast: (@Sendable (String, Bool) -> Void)?
    }

    func onFirstAndLastObserver(_ body: @escaping @Sendable (String, Bool) -> Void) {
        state.withLockedValue { $0.firstAndLast = body }
    }

    func add(_ observer: Observer) {
        let tell = state.withLockedValue { state in
            defer { state.byName[observer.name, default: []].append(observer) }
            return state.byName[observer.name] == nil ? state.firstAndLast : nil
        }
        tell?(observer.name, true)
    }

    func remove(_ observer: Observer) {
        let tell = state.withLockedValue { state -> (@Sendable (String, Bool) -> Void)? in
            guard state.byName[observer.name]?.contains(where: { $0 === observer }) == true else { return nil }
            state.byName[observer.name]?.removeAll { $0 === observer }
            guard state.byName[observer.name]?.isEmpty == true else { return nil }
            state.byName[observer.name] = nil
            return state.firstAndLast
        }
        tell?(observer.name, false)
    }

    /// Whether no name has an observer.
    var isEmpty: Bool {
        state.withLockedValue { $0.byName.isEmpty }
    }

    /// The observers of `name`, or an empty array: the cost of a write that nobody observes.
    func observers(of name: String) -> [Observer] {
        // Most writes happen with nobody observing anything: skip hashing the name then.
        state.withLockedValue { $0.byName.isEmpty ? [] : $0.byName[name] ?? [] }
    }
}
