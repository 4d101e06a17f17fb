import Foundation
import Testing
import TypedDefaults

/// A Combine subscriber as the Apple-only adapter (Platform/Apple/Combine.swift) wires one: the
/// store's feed of a key's values into a `DemandFeed`, which calls `receive`. Records what it got and
/// whether two calls ever overlapped.
private final class RecordingSubscriber: Sendable {
    private let state = Guarded<(values: [Int], running: Int, overlapped: Bool)>(([], 0, false))
    let feed: DemandFeed<Int>
    let token: ObservationToken

    init(store: DefaultsStore, initial: Bool = true, wants: Int, onValue: @escaping @Sendable (Int) -> Void = { _ in })
    {
        let state = state
        let feed = DemandFeed<Int> { value in
            state.withLock { state in
                state.running += 1
                if state.running > 1 { state.overlapped = true }
            }
            onValue(value)
            state.withLock { state in
                state.values.append(value)
                state.running -= 1
            }
            return wants
        }
        self.feed = feed
        token = store.feed(of: .launchCount, initial: initial, enqueue: feed.enqueue, drain: feed.drain)
    }

    var values: [Int] { state.withLock { $0.values } }
    var overlapped: Bool { state.withLock { $0.overlapped } }
}

@Suite("Combine publisher: values and demand, as the Apple adapter feeds them")
struct PublisherFeedTests {
    @Test func aSubscriberGetsTheCurrentValueThenEachChangeInsideTheWrite() {
        withStore(.inMemory) { store in
            store[.launchCount] = 5
            let subscriber = RecordingSubscriber(store: store, wants: Int.max)
            #expect(subscriber.values == [], "nothing before the subscriber asks")
            subscriber.feed.request(Int.max)
            #expect(subscriber.values == [5])
            store[.launchCount] = 6
            #expect(subscriber.values == [5, 6], "the change reaches the subscriber before the write returns")
            store.remove(.launchCount)
            #expect(subscriber.values == [5, 6, 0])
        }
    }

    @Test func withoutTheInitialValueOnlyChangesArrive() {
        withStore(.inMemory) { store in
            let subscriber = RecordingSubscriber(store: store, initial: false, wants: Int.max)
            subscriber.feed.request(Int.max)
            store[.launchCount] = 1
            #expect(subscriber.values == [1])
        }
    }

    @Test func aSubscriberGetsNoMoreThanItAsksForAndThenTheLatestValue() {
        withStore(.inMemory) { store in
            let subscriber = RecordingSubscriber(store: store, wants: 0)
            subscriber.feed.request(1)
            #expect(subscriber.values == [0])
            for value in 1...3 { store[.launchCount] = value }
            #expect(subscriber.values == [0])
            subscriber.feed.request(1)
            #expect(subscriber.values == [0, 3], "the latest value waits, not the history")
            subscriber.feed.request(2)
            store[.launchCount] = 4
            store[.launchCount] = 5
            store[.launchCount] = 6
            #expect(subscriber.values == [0, 3, 4, 5])
        }
    }

    @Test func aSubscriberThatWritesTheKeyItHearsGetsItsOwnWriteNext() throws {
        try withStore(.inMemory) { store in
            let subscriber = RecordingSubscriber(store: store, initial: false, wants: Int.max) { value in
                if value == 1 { store[.launchCount] = 10 }
            }
            subscriber.feed.request(Int.max)
            // A deadlock here would hang the writer: write on a thread of its own and wait with a limit.
            let done = Guarded(false)
            Thread.detachNewThread {
                store[.launchCount] = 1
                done.withLock { $0 = true }
            }
            try #require(pollUntil { done.withLock { $0 } }, "the write never returned")
            #expect(subscriber.values == [1, 10])
        }
    }

    @Test func writersOnFourThreadsReachTheSubscriberInOrderOneAtATime() async throws {
        try await withSuite { _, store in
            let subscriber = RecordingSubscriber(store: store, initial: false, wants: Int.max)
            subscriber.feed.request(Int.max)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask { for _ in 0..<250 { try store.modify(.launchCount) { $0 += 1 } } }
                }
                try await group.waitForAll()
            }
            #expect(subscriber.values == Array(1...1000))
            #expect(!subscriber.overlapped)
        }
    }

    @Test func aCancelledSubscriptionGetsNothingMore() {
        withStore(.inMemory) { store in
            let subscriber = RecordingSubscriber(store: store, initial: false, wants: Int.max)
            subscriber.feed.request(Int.max)
            store[.launchCount] = 1
            subscriber.feed.end()
            subscriber.token.cancel()
            store[.launchCount] = 2
            subscriber.feed.request(1)
            #expect(subscriber.values == [1])
        }
    }
}

@Suite("SwiftUI before Observation: the main-actor watch that redraws a view")
@MainActor
struct MainActorWatchTests {
    @Test func aWatchStartedOnEveryUpdateCallsOncePerChangeOnTheMainActor() async throws {
        try await withSuite { _, store in
            let watch = MainActorWatch()
            var calls = 0
            for _ in 0..<3 {
                watch.start(.launchCount, in: store) {
                    MainActor.preconditionIsolated("the watch ran off the main actor")
                    calls += 1
                }
            }
            // Started after the watch: the main actor runs queued calls in order, so once the control has
            // heard a change, any call the watch would make for it (one per start, had it started thrice)
            // has run.
            let control = MainActorWatch()
            var controlCalls = 0
            control.start(.launchCount, in: store) { controlCalls += 1 }
            await Task.detached { store[.launchCount] = 1 }.value
            try await waitUntil("the first change") { controlCalls >= 1 }
            #expect(calls == 1)
            await Task.detached { store[.launchCount] = 2 }.value
            try await waitUntil("the second change") { controlCalls >= 2 }
            #expect(calls == 2)
        }
    }

    /// `UserDefaultState.update()` is not isolated (SwiftUI's `DynamicProperty` is not, in the iOS 18
    /// SDK), so it starts the watch through `startFromAnyContext`: from the main actor or from another
    /// thread, the watch starts once and calls on the main actor after each change.
    @Test func aWatchStartedFromAnyThreadCallsOncePerChangeOnTheMainActor() async throws {
        try await withSuite { _, store in
            final class Count: @unchecked Sendable {
                // @unchecked: read and written on the main actor only.
                var calls = 0
            }
            let watch = MainActorWatch()
            let count = Count()
            let onChange: @MainActor @Sendable () -> Void = {
                MainActor.preconditionIsolated("the watch ran off the main actor")
                count.calls += 1
            }
            await Task.detached {
                for _ in 0..<3 { watch.startFromAnyContext(.launchCount, in: store, onChange: onChange) }
            }.value
            watch.startFromAnyContext(.launchCount, in: store, onChange: onChange)
            // A start from another thread lands on the main actor later: write until the watch hears.
            var written = 0
            try await waitUntil("the watch started off the main thread hears a change") {
                if count.calls == 0 {
                    written += 1
                    store[.launchCount] = written
                }
                return count.calls >= 1
            }
            let control = MainActorWatch()
            var controlCalls = 0
            control.start(.launchCount, in: store) { controlCalls += 1 }
            let before = count.calls
            await Task.detached { store[.launchCount] = -1 }.value
            try await waitUntil("the control's call") { controlCalls >= 1 }
            #expect(count.calls == before + 1)
        }
    }

    @Test func aReleasedWatchCallsNoMore() async throws {
        try await withSuite { _, store in
            var released: MainActorWatch? = MainActorWatch()
            let control = MainActorWatch()
            var releasedCalls = 0
            var controlCalls = 0
            released?.start(.launchCount, in: store) { releasedCalls += 1 }
            control.start(.launchCount, in: store) { controlCalls += 1 }
            released = nil
            await Task.detached { store[.launchCount] = 1 }.value
            try await waitUntil("the control's call") { controlCalls == 1 }
            #expect(releasedCalls == 0)
        }
    }
}

/// A value of the app's that is an object, whose `deinit` reads the store it came from.
private final class Reading: UserDefaultConvertible {
    let count: Int
    init?(userDefaultsObject: Any) {
        guard let count = userDefaultsObject as? Int else { return nil }
        self.count = count
    }
    var userDefaultsObject: Any? { count }
    deinit { _ = feedStore[.launchCount] }
}
private let feedStore = DefaultsStore(storage: InMemoryStorage())

@Suite("Values a subscriber does not want are freed past the library's locks")
struct DroppedFeedValueTests {
    /// A subscriber that wants nothing yet keeps only the latest value: each one it drops, and the
    /// queue's values when it ends, may be the app's objects whose `deinit` reads the store. They are
    /// freed past every lock (the feed's and the queue's). Before, inside both: a debug build stopped
    /// at the first drop (a lock taken while holding another); a `deinit` that touched the same feed
    /// would have waited for itself.
    @Test func droppedAndEndedValuesAreFreedWithNoLockHeld() async {
        await #expect(processExitsWith: .success) {
            endThisProcessIfItHangs()
            let key = UserDefaultTypedKey<Reading?>("feedReading")
            let feed = DemandFeed<Reading?> { _ in 0 }
            let token = feedStore.feed(of: key, initial: true, enqueue: feed.enqueue, drain: feed.drain)
            for count in 1...5 { feedStore[key] = Reading(userDefaultsObject: count) }
            feed.end()
            token.cancel()
        }
    }
}
