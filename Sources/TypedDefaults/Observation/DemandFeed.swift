/// Hands values to one consumer that asks for them in numbers, as a Combine subscriber does
/// (Platform/Apple/Combine.swift adapts it; the logic lives here, where Linux tests it).
///
/// - `receive` is called one value at a time, in the order the values were queued, never with a lock
///   held, on whichever thread queued a value or raised the demand; it returns how many more values
///   the consumer wants (`Int.max`: no limit).
/// - Values beyond the demand wait; while the consumer wants none, only the latest one waits: what a
///   subscriber that asks again wants from a setting is its current value, not its history.
package final class DemandFeed<Value: Sendable>: Sendable {
    private struct State {
        /// Values the consumer still wants; `Int.max` for no limit.
        var demand = 0
        var queued: [Value] = []
        /// Values dropped while the lock was held (a caller's lock too: `enqueue` runs under the feed's),
        /// freed by the next `drain`, past every lock: a value may be the app's object, whose `deinit` may
        /// call the library.
        var dropped: [Value] = []
        var isDelivering = false
        var isEnded = false
    }

    private let state = Locked(State())
    private let receive: @Sendable (Value) -> Int

    package init(receive: @escaping @Sendable (Value) -> Int) {
        self.receive = receive
    }

    /// Queues `value` without handing it over: `drain()` does that, with no lock held.
    package func enqueue(_ value: Value) {
        state.withLockedValue { state in
            guard !state.isEnded else { return }
            // Keep the values the demand covers, then this one in place of any other uncovered one.
            if state.queued.count > state.demand {
                state.dropped += state.queued[state.demand...]
                state.queued.removeLast(state.queued.count - state.demand)
            }
            state.queued.append(value)
        }
    }

    /// Raises the demand by `count` (`Int.max`: no limit) and hands over what it now covers.
    package func request(_ count: Int) {
        state.withLockedValue { $0.demand = Self.adding($0.demand, count) }
        drain()
    }

    /// Hands the queued values the demand covers to `receive`, unless another thread is doing it.
    package func drain() {
        var dropped: [Value] = []
        let isDeliverer = state.withLockedValue { state in
            swap(&dropped, &state.dropped)
            guard !state.isDelivering, state.demand > 0, !state.queued.isEmpty, !state.isEnded else { return false }
            state.isDelivering = true
            return true
        }
        dropped = []  // freed here, past the lock
        guard isDeliverer else { return }
        while let value = next() {
            // The consumer's code (a Combine subscriber's), through the one door: no lock held, checked.
            let more = UserCode.run { receive(value) }
            state.withLockedValue { $0.demand = Self.adding($0.demand, more) }
        }
        // What the consumer wrote out of an observer's turn, once out of its code (as after a handler).
        UserCode.deliverHeldBack()
    }

    /// Ends the feed: nothing is handed over after the value being handed over now, if any.
    package func end() {
        let dropped = state.withLockedValue { state in
            state.isEnded = true
            defer { (state.queued, state.dropped) = ([], []) }
            return state.queued + state.dropped
        }
        withExtendedLifetime(dropped) {}  // freed here, past the lock
    }

    /// The next value to hand over, counted against the demand; nil (and delivery over) when none is.
    private func next() -> Value? {
        state.withLockedValue { state in
            guard state.demand > 0, !state.queued.isEmpty, !state.isEnded else {
                state.isDelivering = false
                return nil
            }
            if state.demand != .max { state.demand -= 1 }
            return state.queued.removeFirst()
        }
    }

    private static func adding(_ demand: Int, _ more: Int) -> Int {
        let (sum, overflow) = demand.addingReportingOverflow(max(more, 0))
        return overflow ? .max : sum
    }
}
