#if canImport(Combine)
    import Combine

    // Combine, on the systems that have it: a key's values as a `Publisher`, for code written against
    // Foil's `$property` or Defaults' `publisher(_:)`. This file only adapts: the values come from the
    // same feed as `updates` (DefaultsStore+Observation.swift) and the demand is counted by `DemandFeed`,
    // both tested on Linux. Combine exists from the package's minimum systems on.

    extension DefaultsStore {
        /// `key`'s current value, then its value after each change, as a Combine publisher:
        /// `Defaults.publisher(.theme).sink { apply($0) }`. A change reaches the subscriber on the thread
        /// that made it, inside the write when no other write is being delivered, in the order of the
        /// changes; add `receive(on:)` for a given queue. A subscriber that asks for fewer values than
        /// there are changes gets the latest value when it asks again.
        ///
        /// - Parameters:
        ///   - key: The key to publish.
        ///   - initial: `false` leaves out the current value: only values after changes are published.
        public func publisher<Value>(_ key: UserDefaultTypedKey<Value>, initial: Bool = true) -> DefaultsPublisher<
            Value
        > {
            DefaultsPublisher(store: self, key: key, initial: initial)
        }
    }

    extension UserDefault {
        /// The value, then its value after each change, as a Combine publisher:
        /// `$showAvatars.publisher.dropFirst().sink { … }`, where Foil wrote `$showAvatars.dropFirst()`.
        public var publisher: DefaultsPublisher<Value> { store.publisher(key) }
    }

    // Foil's `$property` was the publisher itself: the operators an app chains on it first stop with the
    // spelling here (`$x.publisher`) instead of "no member". Correct code never picks them.
    extension UserDefault {
        /// Unavailable: Foil's `$x.sink { … }`.
        @available(
            *, unavailable,
            message: "Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.sink { ... }"
        )
        public func sink(receiveValue: @escaping (Value) -> Void) -> AnyCancellable {
            fatalError("unavailable")
        }

        /// Unavailable: Foil's `$x.dropFirst()`.
        @available(
            *, unavailable,
            message: "Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.dropFirst()"
        )
        public func dropFirst(_ count: Int = 1) -> Publishers.Drop<DefaultsPublisher<Value>> {
            fatalError("unavailable")
        }

        /// Unavailable: Foil's `$x.map { … }`.
        @available(
            *, unavailable,
            message: "Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.map { ... }"
        )
        public func map<T>(_ transform: @escaping (Value) -> T) -> Publishers.Map<DefaultsPublisher<Value>, T> {
            fatalError("unavailable")
        }

        /// Unavailable: Foil's `$x.receive(on:)`.
        @available(
            *, unavailable,
            message: "Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.receive(on: queue)"
        )
        public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil)
            -> Publishers.ReceiveOn<DefaultsPublisher<Value>, S>
        {
            fatalError("unavailable")
        }

        /// Unavailable: Foil's `$x.eraseToAnyPublisher()`.
        @available(
            *, unavailable,
            message: "Foil's $x was a publisher; TypedDefaults' is $x.publisher: $x.publisher.eraseToAnyPublisher()"
        )
        public func eraseToAnyPublisher() -> AnyPublisher<Value, Never> {
            fatalError("unavailable")
        }
    }

    /// A key's values as a Combine publisher; ``DefaultsStore/publisher(_:initial:)`` makes one.
    public struct DefaultsPublisher<Value: UserDefaultConvertible>: Publisher, Sendable {
        public typealias Output = Value
        public typealias Failure = Never

        let store: DefaultsStore
        let key: UserDefaultTypedKey<Value>
        let initial: Bool

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Value, S.Failure == Never {
            let subscription = KeySubscription(AnySubscriber(subscriber))
            subscriber.receive(subscription: subscription)
            subscription.start(
                store.feed(
                    of: key, initial: initial, enqueue: subscription.feed.enqueue, drain: subscription.feed.drain))
        }
    }

    /// One subscriber's subscription: the observation lives as long as it does, or until cancelled.
    private final class KeySubscription<Value: Sendable>: Subscription, Sendable {
        let feed: DemandFeed<Value>
        private let token = Locked<(observation: ObservationToken?, isCancelled: Bool)>((nil, false))

        init(_ subscriber: AnySubscriber<Value, Never>) {
            let box = SubscriberBox(subscriber)
            feed = DemandFeed { box.subscriber.receive($0).max ?? .max }
        }

        func start(_ observation: ObservationToken) {
            let cancelled = token.withLockedValue { state in
                if !state.isCancelled { state.observation = observation }
                return state.isCancelled
            }
            if cancelled { observation.cancel() }
        }

        func request(_ demand: Subscribers.Demand) {
            feed.request(demand.max ?? .max)
        }

        func cancel() {
            feed.end()
            let observation = token.withLockedValue { state in
                defer { state = (nil, true) }
                return state.observation
            }
            observation?.cancelWithoutWaiting()
        }
    }

    /// A subscriber, for the feed's closure: Combine subscribers are not `Sendable`, and the feed calls
    /// this one from one thread at a time.
    private final class SubscriberBox<Value>: @unchecked Sendable {
        // @unchecked: called only by a `DemandFeed`, which hands values over one at a time.
        let subscriber: AnySubscriber<Value, Never>

        init(_ subscriber: AnySubscriber<Value, Never>) {
            self.subscriber = subscriber
        }
    }
#endif
