import Foundation
import Observation
import Testing
import TypedDefaults

/// Values an observer got, from any thread or actor.
private final class Heard: @unchecked Sendable {
    // @unchecked: `values` is guarded by `lock`.
    private let lock = NSLock()
    private var values: [Int] = []

    func append(_ value: Int) { lock.withLock { values.append(value) } }
    var all: [Int] { lock.withLock { values } }
}

/// An actor that keeps what its observation hears.
private actor Listener {
    private(set) var heard: [Int] = []
    private var token: ObservationToken?

    func start(_ store: DefaultsStore) {
        token = store.observe(.launchCount, isolation: self) { self.heard.append($0.newValue) }
    }

    func stop() { token = nil }
}

/// Every kind of observer gets a key's changes in the order they were made: callbacks, an actor's and
/// the main actor's observations, `updates` streams. A delivery is never nested inside another to the
/// same observer, so a write made inside a callback comes after the change being delivered, for everyone.
@Suite("Every observer kind gets changes in the order they were made")
@MainActor
struct ObserverOrderTests {
    /// Four threads add one 250 times each with `modify`: the values 1 to 1,000 in the order they were
    /// made. Each observer must hear exactly that, in every round. Before, an actor's observation got
    /// changes in the order writers delivered them, not made them (11 of 9,000 rounds of four writes
    /// crossed the last two: about one round in four of 1,000 writes here). 40 rounds in the long run
    /// (`runsLongTests`), 15 in `swift test` (a round in four: all 15 pass with the old code 1 time in 75).
    @Test func everyKindHearsConcurrentWritesInTheOrderTheyWereMade() async throws {
        for round in 0..<(runsLongTests ? 40 : 15) {
            try await withStore(.inMemory) { store in
                let callback = Heard()
                let callbackToken = store.observe(.launchCount) { callback.append($0.newValue) }
                let listener = Listener()
                await listener.start(store)
                var onMain: [Int] = []
                let mainToken = store.observe(.launchCount, isolation: MainActor.shared) { onMain.append($0.newValue) }
                let streamed = Heard()
                let values = store.updates(.launchCount, initial: false)
                let stream = Task.detached {
                    for await value in values {
                        streamed.append(value)
                        if value == 1_000 { return }
                    }
                }
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<4 {
                        group.addTask { for _ in 0..<250 { _ = try? store.modify(.launchCount) { $0 += 1 } } }
                    }
                }
                let expected = Array(1...1_000)
                try await waitUntil(
                    "every observer heard 1,000 changes (round \(round)): callback \(callback.all.count), "
                        + "main actor \(onMain.count), stream \(streamed.all.count)"
                ) {
                    callback.all.count == 1_000 && onMain.count == 1_000 && streamed.all.count == 1_000
                }
                var fromActor = await listener.heard
                let deadline = Date(timeIntervalSinceNow: waitLimit)
                while fromActor.count < 1_000, Date() < deadline {
                    try await Task.sleep(nanoseconds: 2_000_000)
                    fromActor = await listener.heard
                }
                #expect(callback.all == expected, "callback, round \(round)")
                #expect(fromActor == expected, "actor, round \(round)")
                #expect(onMain == expected, "main actor, round \(round)")
                #expect(streamed.all == expected, "stream, round \(round)")
                await stream.value
                await listener.stop()
                callbackToken.cancel()
                mainToken.cancel()
            }
        }
    }

    /// The same where main-actor observers run inside a write made on the main thread (an app; here the
    /// probe): once the write returns, both heard `[20, 10]` and the store holds 10. Before, the clamp was
    /// delivered to the second observer inside the first write's delivery: it heard `[10, 20]`. (Under
    /// `swift test` on Linux the old code did not take that path, so the test below passed there.)
    @Test func anObserverThatWritesBackInsideAMainThreadWriteIsHeardInOrder() throws {
        let output = try ProbeProcess.run(["main-actor-clamp", "-"])
        #expect(output.lines == ["clamping: [20, 10] watching: [20, 10] stored: 10"], "\(output.standardError)")
    }

    /// A main-actor observer clamps the value by writing back inside its call; a second main-actor
    /// observer of the key hears the write, then the clamp, and ends on what the store holds. Before,
    /// the clamp was delivered inside the first write's delivery, so the second observer heard
    /// `[10, 20]` and ended on 20 while the store held 10 (13 of 13).
    @Test func anObserverThatWritesBackIsHeardAfterTheChangeItHeard() async throws {
        try await withStore(.inMemory) { store in
            var clamping: [Int] = []
            var watching: [Int] = []
            let clamp = store.observe(.launchCount, isolation: MainActor.shared) { change in
                clamping.append(change.newValue)
                if change.newValue > 10 { store[.launchCount] = 10 }
            }
            let watch = store.observe(.launchCount, isolation: MainActor.shared) { watching.append($0.newValue) }
            let callback = Heard()
            let callbackToken = store.observe(.launchCount) { callback.append($0.newValue) }
            store[.launchCount] = 20
            try await waitUntil("both main-actor observers heard the clamp") {
                clamping.count == 2 && watching.count == 2
            }
            #expect(store[.launchCount] == 10)
            #expect(clamping == [20, 10])
            #expect(watching == [20, 10])
            #expect(callback.all == [20, 10])
            clamp.cancel()
            watch.cancel()
            callbackToken.cancel()
        }
    }

    /// Every kind together, with writers on four threads and an observer that writes back: a callback
    /// clamps any value above 1,000 to 1,000, inside its call. The clamps are changes like any other, so
    /// every observer (callbacks, an actor's, the main actor's, a stream, Swift Observation) hears one
    /// sequence, the same for all, and ends on the value the store holds.
    @Test func everyKindHearsOneOrderWithWritersOnSeveralThreadsAndAnObserverThatWritesBack() async throws {
        for round in 0..<20 {
            try await withStore(.inMemory) { store in
                let clamp = store.observe(.launchCount) { change in
                    if change.newValue > 1_000 { store[.launchCount] = 1_000 }
                }
                let callback = Heard()
                let callbackToken = store.observe(.launchCount) { callback.append($0.newValue) }
                let listener = Listener()
                await listener.start(store)
                var onMain: [Int] = []
                let mainToken = store.observe(.launchCount, isolation: MainActor.shared) { onMain.append($0.newValue) }
                let streamed = Heard()
                let values = store.updates(.launchCount, initial: false)
                let stream = Task.detached { for await value in values { streamed.append(value) } }
                // One tracking, as a view's: told at the first change (where Observation is).
                let tracked = Heard()
                var observes = false
                if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
                    observes = true
                    withObservationTracking {
                        _ = store[.launchCount]
                    } onChange: {
                        tracked.append(1)
                    }
                }
                await withTaskGroup(of: Void.self) { group in
                    for writer in 0..<4 {
                        group.addTask {
                            for index in 0..<100 { store[.launchCount] = (writer * 100 + index) * 3 % 1_201 }
                        }
                    }
                }
                // Quiet: every observer has heard as many changes as the callbacks, twice in a row.
                var heardBefore = -1
                var polls = Int(waitLimit / 0.005)  // counted, not timed: see `waitUntil`
                while true {
                    let fromActor = await listener.heard.count
                    let counts = [callback.all.count, onMain.count, streamed.all.count, fromActor]
                    if counts.allSatisfy({ $0 == counts[0] }), counts[0] == heardBefore, counts[0] >= 400 { break }
                    heardBefore = counts[0]
                    polls -= 1
                    guard polls > 0 else {
                        throw TimedOut(what: "the observers to agree on the changes (round \(round)): \(counts)")
                    }
                    try await Task.sleep(nanoseconds: 5_000_000)
                }
                let final = store[.launchCount]
                let heard = callback.all
                #expect(final <= 1_000, "round \(round)")
                #expect(heard.last == final, "callback ends on the stored value, round \(round)")
                #expect(await listener.heard == heard, "actor, round \(round)")
                #expect(onMain == heard, "main actor, round \(round)")
                #expect(streamed.all == heard, "stream, round \(round)")
                // Every value above 1,000 is followed by the clamp, for everyone.
                for (index, value) in heard.enumerated() where value > 1_000 {
                    #expect(heard.indices.contains(index + 1), "a value above 1,000 was the last heard")
                }
                // At least once: Observation's tracking is one-shot, but two writers' mutations at once can
                // both call it before it is cancelled (seen under ThreadSanitizer).
                #expect(!observes || !tracked.all.isEmpty, "Swift Observation was told: \(tracked.all)")
                stream.cancel()
                await listener.stop()
                clamp.cancel()
                callbackToken.cancel()
                mainToken.cancel()
            }
        }
    }
}

/// A write looks its name's observers up only while some name of the storage has one (a flag the
/// registry sets when a name gets its first observer or loses its last). Observers of another name that
/// come and go on two threads meanwhile must never make a long-lived observer miss a change: each first
/// and last call sets the flag from what the registry holds when it runs, so calls that arrive out of
/// order cannot leave it false while an observer is registered.
@Suite("An observer hears every change while observers of other names come and go")
struct ObserverChurnTests {
    @Test(arguments: Backend.allCases)
    func aLongLivedObserverHearsEveryWriteWhileOthersComeAndGo(_ backend: Backend) {
        let writes = 2_000
        withStore(backend) { store in
            let heard = Recorder<Int>()
            let token = store.observe(.launchCount) { heard.append($0.newValue) }
            defer { token.cancel() }
            // Two threads make a name's first observer and cancel its last, over and over, so that their
            // first and last calls cross; threads of their own, not tasks: two busy tasks would hold the
            // two threads a 2-core machine's task pool has, and the writer would never run.
            let stop = StopFlag()
            let churners = (0..<2).map { _ in
                Thread {
                    while !stop.isSet {
                        let other = store.observe(.username) { _ in }
                        other.cancel()
                    }
                    stop.finished()
                }
            }
            for churner in churners { churner.start() }
            for value in 1...writes { store[.launchCount] = value }
            stop.set()
            #expect(pollUntil { stop.finishedCount == churners.count })
            #expect(heard.waitForCount(writes))
            let values = heard.all
            #expect(Set(1...writes).subtracting(values).count == 0, "changes not heard")
            #expect(values == values.sorted(), "changes heard out of order")
        }
    }
}

/// A flag set once, read from any thread.
private final class StopFlag: @unchecked Sendable {
    // @unchecked: `value` is reached only under `lock`.
    private let lock = NSLock()
    private var value = false
    private var finishedThreads = 0
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
    /// A thread that watched the flag saw it and stopped.
    func finished() { lock.withLock { finishedThreads += 1 } }
    var finishedCount: Int { lock.withLock { finishedThreads } }
}
