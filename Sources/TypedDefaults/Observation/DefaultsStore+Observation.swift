import Foundation

extension DefaultsStore {
    /// Calls `onChange` with the old and new value each time `key`'s value changes through any store
    /// over the same suite or storage: a set, a `nil` assignment, `remove`, `removeAll`, `migrate`,
    /// or a write through another key of the same stored name.
    ///
    /// The callback runs once the new value is readable, with no lock of the library held: it may call
    /// any of the library's API, the observed key's writes and `modify` included. So may Swift
    /// Observation's `onChange` (`withObservationTracking`), which the library calls the same way, inside
    /// the write that changed a tracked value: a write made there returns, and reaches observers after
    /// the change that triggered it. Changes reach it one
    /// at a time, in the order they were made. It runs on the thread that made the change: a write
    /// returns once its callbacks have run, after those of changes made before it on other threads. Two
    /// exceptions: a change made inside a callback runs its callbacks once that callback has returned
    /// (on the same thread, before the outer write returns); a change made inside a `modify` transform
    /// runs them when `modify` has released its lock (on the thread that called `modify`). Changes made
    /// elsewhere (below) run it on the thread that brought them in.
    ///
    /// Changes made by other means are heard too. On Apple platforms: the plain `UserDefaults` API,
    /// another process or app extension on the same suite, `defaults write` (by key-value observing
    /// from the first observer of a name to the last; a name with a `.` is not observable that way). On
    /// Linux: values another process saved in the suite's file, and hand edits of it, on the library's
    /// file-watching thread; not the plain `UserDefaults` API in this process (Linux posts no
    /// notification: write through a store).
    ///
    /// - Returns: A token; the observation lasts until you cancel or release it.
    ///
    /// - Parameters:
    ///   - key: The key to observe.
    ///   - initial: Also call `onChange` once at once, with the current value as both the old and the new
    ///     value, so that one closure sets things up and keeps them up to date. The call takes the
    ///     observation's first turn: a change made meanwhile on another thread is delivered after it
    ///     (its writer waits for it, as for any callback), and a change the initial value already holds
    ///     is not delivered again.
    ///   - onChange: Called with the old and new value of each change.
    public func observe<Value>(
        _ key: UserDefaultTypedKey<Value>,
        initial: Bool = false,
        _ onChange: @escaping @Sendable (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        let observer = addObserver(of: key, holdingFirstTurn: initial) { change, _ in onChange(change) }
        if initial { deliverInitialValue(of: key, to: observer, onChange) }
        return ObservationToken(observers: [observer], context: context)
    }

    /// Calls `onChange` on `isolation`, the caller's actor, each time `key`'s value changes, in the order
    /// of the changes: for a `@MainActor` view model or an actor that keeps its own state up to date.
    /// The closure need not be `@Sendable`: it runs only on that actor.
    ///
    /// ```swift
    /// @MainActor final class ThemeModel {
    ///     private(set) var theme = Defaults[.theme]
    ///     private var token: ObservationToken?
    ///
    ///     init() {
    ///         token = Defaults.observe(.theme, isolation: MainActor.shared) { [weak self] change in
    ///             self?.theme = change.newValue
    ///         }
    ///     }
    /// }
    /// ```
    ///
    /// A change reaches `onChange` when the actor gets to run it, a moment after it is readable; on the
    /// main actor, a change made on the main thread with nothing queued reaches it inside the write, as
    /// the peers' callbacks do. With `initial`, the first call is made before `observe` returns. Cancel the token (or release it) on
    /// the actor, and no call starts after that; cancelled elsewhere, a call already queued may still run.
    ///
    /// - Parameters:
    ///   - key: The key to observe.
    ///   - initial: Also call `onChange` once at once, with the current value as both the old and the new
    ///     value.
    ///   - isolation: The actor `onChange` runs on: `MainActor.shared`, or `self` in an actor.
    ///   - onChange: Called on `isolation` with the old and new value of each change.
    /// - Returns: A token; the observation lasts until you cancel or release it.
    public func observe<Value>(
        _ key: UserDefaultTypedKey<Value>,
        initial: Bool = false,
        isolation: isolated any Actor,
        _ onChange: @escaping (DefaultsChange<Value>) -> Void
    ) -> ObservationToken {
        let delivery = Self.delivery(on: isolation, to: onChange)
        let observer = addObserver(of: key, holdingFirstTurn: initial) { change, _ in delivery.send(change) }
        if initial { deliverInitialValue(of: key, to: observer, onChange) }
        return ObservationToken(observers: [observer], context: context, endDelivery: delivery.end)
    }

    /// Calls `onChange` each time any of `keys` changes, as ``observe(_:initial:_:)`` does for one key;
    /// the keys may have different value types. A change of two keys calls it twice.
    ///
    /// ```swift
    /// let token = Defaults.observe(.theme, .fontSize) { redraw() }
    /// ```
    /// - Parameters:
    ///   - keys: The keys to observe.
    ///   - initial: Also call `onChange` once at once.
    ///   - onChange: Called after each change of any of the keys.
    /// - Returns: A token; the observation of every key lasts until you cancel or release it.
    public func observe<each Value>(
        _ keys: repeat UserDefaultTypedKey<each Value>,
        initial: Bool = false,
        _ onChange: @escaping @Sendable () -> Void
    ) -> ObservationToken {
        var observers: [Observer] = []
        for key in repeat each keys {
            observers.append(addObserver(of: key, holdingFirstTurn: initial, calling: onChange))
        }
        if initial { Observer.deliverFirst(of: observers, through: nil, onChange) }
        return ObservationToken(observers: observers, context: context)
    }

    /// Calls `onChange` on `isolation`, the caller's actor, each time any of `keys` changes, in the order
    /// of the changes, as ``observe(_:initial:isolation:_:)`` does for one key.
    ///
    /// ```swift
    /// token = Defaults.observe(.theme, .fontSize, isolation: MainActor.shared) { [weak self] in
    ///     self?.redraw()
    /// }
    /// ```
    /// - Parameters:
    ///   - keys: The keys to observe.
    ///   - initial: Also call `onChange` once at once.
    ///   - isolation: The actor `onChange` runs on: `MainActor.shared`, or `self` in an actor.
    ///   - onChange: Called on `isolation` after each change of any of the keys.
    /// - Returns: A token; the observation of every key lasts until you cancel or release it.
    public func observe<each Value>(
        _ keys: repeat UserDefaultTypedKey<each Value>,
        initial: Bool = false,
        isolation: isolated any Actor,
        _ onChange: @escaping () -> Void
    ) -> ObservationToken {
        let delivery = Self.delivery(on: isolation, to: onChange)
        var observers: [Observer] = []
        for key in repeat each keys {
            observers.append(addObserver(of: key, holdingFirstTurn: initial, calling: { delivery.send(()) }))
        }
        if initial { Observer.deliverFirst(of: observers, through: nil, onChange) }
        return ObservationToken(observers: observers, context: context, endDelivery: delivery.end)
    }

    /// Has Swift's Observation (a SwiftUI view, an `@Observable` model, `withObservationTracking`) hear
    /// the changes made to `keys` by other means than the library from now on: another process or app
    /// extension on the same suite, the plain `UserDefaults` API, `defaults write`.
    ///
    /// Observers (`observe`, `updates`) need not ask: they watch what they observe while they last. A
    /// tracked read cannot say when its tracking ends, so these keys stay watched for as long as the
    /// storage is in use (for a suite, the process). A `@UserDefault` property in a SwiftUI view asks for
    /// its key; an `@Observable` model over a store asks for its keys once, in `init`:
    ///
    /// ```swift
    /// @Observable final class AppearanceModel {
    ///     init() { Defaults.trackChangesElsewhere(of: .showAvatars, .fontSize) }
    ///     var showAvatars: Bool {
    ///         get { Defaults[.showAvatars] }
    ///         set { Defaults[.showAvatars] = newValue }
    ///     }
    /// }
    /// ```
    ///
    /// Storages that report such changes: `UserDefaults` on Apple platforms, and any
    /// ``ExternallyChangingStorage`` of yours; elsewhere this does nothing. On Linux a suite's values that
    /// other processes save are heard without asking; writes through the plain API in this process are
    /// not (Foundation posts no notification there): write through a store.
    ///
    /// - Parameter keys: The keys whose changes elsewhere Observation must hear.
    public func trackChangesElsewhere<each Value>(of keys: repeat UserDefaultTypedKey<each Value>) {
        for name in registeringStoredNames(repeat each keys) {
            context.log.reports.keepWatching(name, of: context, context.prepareDomain())
        }
    }

    /// Registers `onChange`, called with nothing, for the changes of `key`. Not generic over a pack: a
    /// closure made where the key's type is an element of a parameter pack has the pack's metadata made
    /// at run time (`swift_allocateMetadataPack`, which exists from iOS 17 and macOS 14 only), so the
    /// variadic `observe` functions make their closures here, one key type at a time.
    private func addObserver<Value>(
        of key: UserDefaultTypedKey<Value>, holdingFirstTurn: Bool, calling onChange: @escaping @Sendable () -> Void
    ) -> Observer {
        addObserver(of: key, holdingFirstTurn: holdingFirstTurn) { (_: DefaultsChange<Value>, _) in onChange() }
    }

    /// The `initial` call of `observer`, in its first turn: the value as of a number in the write
    /// order, so that the changes numbered after it follow it, one at a time, and none before it does.
    private func deliverInitialValue<Value>(
        of key: UserDefaultTypedKey<Value>, to observer: Observer, _ onChange: (DefaultsChange<Value>) -> Void
    ) {
        let current = context.log.currentObject(forName: observer.name)
        Observer.deliverFirst(of: [observer], through: current.sequence) {
            let value = Self.value(of: key, from: current.object)
            onChange(DefaultsChange(oldValue: value, newValue: value))
        }
    }

    /// Registers a callback for the changes of `key`, with each change's number in the storage's order,
    /// called in that order, one at a time (see `Observer.init`): every kind of observer (callbacks,
    /// actors', streams, publishers) gets a key's changes in the order they were made, never one inside
    /// another's delivery to it.
    private func addObserver<Value>(
        of key: UserDefaultTypedKey<Value>, holdingFirstTurn: Bool = false,
        _ onChange: @escaping @Sendable (DefaultsChange<Value>, _ sequence: UInt64) -> Void
    ) -> Observer {
        let observer = Observer(
            name: registeringStoredName(key), registry: context.observers, holdingFirstTurn: holdingFirstTurn
        ) {
            change in
            onChange(
                DefaultsChange(
                    oldValue: Self.value(of: key, from: change.oldObject),
                    newValue: Self.value(of: key, from: change.newObject)),
                change.sequence)
        }
        context.observers.add(observer)
        return observer
    }

    /// Delivery of changes to `onChange` on `isolation`: `send` queues a change from any thread, and
    /// `onChange` gets them in order until `end` is called. One task per observation: a task per change
    /// would not keep their order. On the main actor, a change made on the main thread while nothing is
    /// queued is delivered there and then, inside the write, as the peers' callbacks are: UI code that
    /// reads what an observer updated finds it updated on the next line.
    private static func delivery<Change: Sendable>(
        on isolation: isolated any Actor, to onChange: @escaping (Change) -> Void
    ) -> (send: @Sendable (Change) -> Void, end: @Sendable () -> Void) {
        let (changes, continuation) = AsyncStream.makeStream(of: Change.self)
        // Changes sent and not delivered yet: one delivered at once must not pass them.
        let queued = Locked(0)
        let task = Task {
            // Naming the isolated parameter makes the task run on that actor, where `onChange` may run.
            _ = isolation
            for await change in changes where !Task.isCancelled {
                onChange(change)
                queued.withLockedValue { $0 -= 1 }
            }
        }
        let direct = (isolation as AnyObject) === MainActor.shared ? MainActorCallback(onChange) : nil
        let send: @Sendable (Change) -> Void = { change in
            // The queue's task runs on the main actor too, so on the main actor it is not running now.
            // The writer's isolation decides, not its thread: in an async program on Linux the main actor
            // runs on another thread once it has waited (`MainActorCheck`).
            if let direct, MainActorCheck.isCurrent, queued.withLockedValue({ $0 == 0 }) {
                MainActor.assumeIsolated { direct.body(change) }
                return
            }
            queued.withLockedValue { $0 += 1 }
            continuation.yield(change)
        }
        let end: @Sendable () -> Void = {
            task.cancel()
            continuation.finish()
        }
        return (send, end)
    }

    /// Yields once at once, then once after each change of any of `keys`, as an asynchronous sequence;
    /// the keys may have different value types. Read the values you need in the loop.
    ///
    /// ```swift
    /// for await _ in Defaults.updates(.theme, .fontSize) { redraw() }
    /// ```
    ///
    /// - Parameters:
    ///   - keys: The keys to observe.
    ///   - initial: `false` leaves out the element at once: only changes are yielded.
    public func updates<each Value>(_ keys: repeat UserDefaultTypedKey<each Value>, initial: Bool = true)
        -> AsyncStream<Void>
    {
        AsyncStream { continuation in
            // The first element comes before any change's, as with one key.
            if initial { continuation.yield() }
            let token = observe(repeat each keys) { continuation.yield() }
            // Not `cancel()`: the stream may end while a writer is yielding into it (see
            // `cancelWithoutWaiting`).
            continuation.onTermination = { _ in token.cancelWithoutWaiting() }
        }
    }

    /// The current value of `key`, then its value after each change, as an asynchronous sequence.
    ///
    /// ```swift
    /// for await theme in Defaults.updates(.theme) { apply(theme) }
    /// ```
    /// The sequence ends its observation when the loop ends or its task is cancelled. Changes that come
    /// faster than the loop consumes them are all delivered, in order.
    ///
    /// - Parameters:
    ///   - key: The key to observe.
    ///   - initial: `false` leaves out the current value: only the values after changes are yielded
    ///     (sindresorhus/Defaults' `updates(_:initial: false)`), with no change lost between the call
    ///     and the loop's start.
    public func updates<Value>(_ key: UserDefaultTypedKey<Value>, initial: Bool = true) -> AsyncStream<Value> {
        AsyncStream { continuation in
            let token = feed(of: key, initial: initial, enqueue: { continuation.yield($0) }, drain: {})
            // Not `cancel()`: the stream may end while a writer is yielding into it (see
            // `cancelWithoutWaiting`).
            continuation.onTermination = { _ in token.cancelWithoutWaiting() }
        }
    }

    /// `key`'s value (with `initial`), then its value after each change, in the storage's order of
    /// changes: what `updates` and the Combine publisher hand out. `enqueue` runs under the feed's lock
    /// (`LockRank.feed`; debug builds check that it takes no lock but a leaf), so it only queues the
    /// value; `drain` follows with no lock held, to hand queued values over.
    package func feed<Value>(
        of key: UserDefaultTypedKey<Value>, initial: Bool,
        enqueue: @escaping @Sendable (Value) -> Void, drain: @escaping @Sendable () -> Void
    ) -> ObservationToken {
        // The first value is read after subscribing: a change numbered up to that read is in the first
        // value and is not sent again; later ones are sent, those that arrive before the first value is
        // sent held back until it is.
        let state = Locked<(firstSequence: UInt64?, held: [(sequence: UInt64, value: Value)])>(.feed, (nil, []))
        // In commit order: two writers' deliveries can cross once the write order is released.
        let observer = addObserver(of: key) { change, sequence in
            state.withLockedValue { state in
                guard let first = state.firstSequence else {
                    return state.held.append((sequence, change.newValue))
                }
                if sequence > first { enqueue(change.newValue) }
            }
            drain()
        }
        let token = ObservationToken(observers: [observer], context: context)
        let current = context.log.currentObject(forName: registeringStoredName(key))
        let first = initial ? [Self.value(of: key, from: current.object)] : []
        let replayed = state.withLockedValue { state in
            for value in first { enqueue(value) }
            for change in state.held where change.sequence > current.sequence {
                enqueue(change.value)
            }
            defer { state = (current.sequence, []) }
            return state.held
        }
        // Freed here, past the feed's lock: a value may be the app's object, whose `deinit` may call the
        // library.
        withExtendedLifetime((first, replayed)) {}
        drain()
        return token
    }
}

/// The callback of an observation on the main actor, for a change delivered there at once.
private final class MainActorCallback<Change>: @unchecked Sendable {
    // @unchecked: `body` is called only on the main actor (`MainActor.assumeIsolated`), where it is meant to run.
    let body: (Change) -> Void

    init(_ body: @escaping (Change) -> Void) {
        self.body = body
    }
}
