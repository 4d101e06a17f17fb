import Foundation
import Testing
import TypedDefaults

/// `updates` under writers on other threads: no value twice, and ending a stream never waits for a
/// writer that is delivering into it.
@Suite("Streams under concurrent writers")
struct StreamRaceTests {
    /// Rounds of the subscribing race: thousands in `.ci/run`'s long runs, where a stream that sent its
    /// last value before an earlier one (the sentinel never last) failed a few rounds in a thousand.
    private static let rounds = runsLongTests ? 3_000 : 300

    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    func updatesNeverSendsAChangeTwiceWhenItLandsWhileSubscribing(_ backend: Backend) async throws {
        try await withStore(backend) { store in
            for round in 0..<Self.rounds {
                let key = UserDefaultTypedKey<Int>("race\(round)", defaultValue: 0)
                _ = store[key]
                let seen = Recorder<Int>()
                let writer = Thread { store[key] = 1 }
                writer.start()
                let reader = Task { for await value in store.updates(key) { seen.append(value) } }
                defer { reader.cancel() }
                // The sentinel comes after the racing write and the first value: once it is seen, everything
                // before it was sent.
                try await waitUntil("round \(round)") { store[key] == 1 && !seen.all.isEmpty }
                store[key] = 2
                try await waitUntil("the sentinel of round \(round)") { seen.all.last == 2 }
                #expect(seen.all == [0, 1, 2] || seen.all == [1, 2], "round \(round): \(seen.all)")
            }
        }
    }

    /// Four threads each add one to a key 250 times: every change is committed with a larger value than
    /// the one before, so a stream in commit order yields increasing values, ending with the last.
    /// Deliveries made after the write order is released crossed: `[0, 2, 1]` was seen.
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    func aStreamYieldsValuesInTheOrderTheyWereCommitted(_ backend: Backend) async throws {
        try await withStore(backend) { store in
            let key = UserDefaultTypedKey<Int>("ordered", defaultValue: 0)
            let seen = Recorder<Int>()
            let reader = Task { for await value in store.updates(key) { seen.append(value) } }
            defer { reader.cancel() }
            try await waitUntil("the first value") { !seen.all.isEmpty }
            let writers = (0..<4).map { _ in
                Thread {
                    for _ in 0..<250 { _ = try? store.modify(key) { $0 += 1 } }
                }
            }
            for writer in writers { writer.start() }
            try await waitUntil("the last value") { seen.all.contains(1_000) }
            let values = seen.all
            let outOfOrder = zip(values, values.dropFirst()).filter { $0 >= $1 }
            #expect(
                outOfOrder.isEmpty,
                "\(outOfOrder.count) values after a larger one, first \(outOfOrder.first.map { "\($0)" } ?? "")")
            #expect(values.last == 1_000)
        }
    }

    /// Sixteen threads write one key while tasks iterate its updates and are cancelled: a cancel that
    /// waited for the writer delivering into the stream (which waits for the stream's lock the cancelling
    /// thread holds) hung both. For 5 s in the long run (`runsLongTests`), 1 s in `swift test` (the
    /// sixteen threads take both cores of a 2-core machine meanwhile).
    @Test func cancellingStreamsWhileOthersWriteNeverHangs() throws {
        try withSuite { _, store in
            let key = UserDefaultTypedKey<Int>("hammered", defaultValue: 0)
            let finished = DispatchSemaphore(value: 0)
            let deadline = Date(timeIntervalSinceNow: runsLongTests ? 5 : 1)
            for thread in 0..<16 {
                Thread {
                    var step = 0
                    while Date() < deadline {
                        step += 1
                        if thread.isMultiple(of: 2) {
                            store[key] = step
                            if step.isMultiple(of: 7) { store.remove(key) }
                        } else {
                            // Cancelled once it iterates, while the writers deliver into its stream.
                            let iterating = Recorder<Bool>()
                            let task = Task { for await _ in store.updates(key) { iterating.append(true) } }
                            _ = pollUntil(1) { !iterating.all.isEmpty }
                            task.cancel()
                        }
                    }
                    finished.signal()
                }.start()
            }
            var ended = 0
            while ended < 16, finished.wait(timeout: .now() + waitLimit) == .success { ended += 1 }
            #expect(ended == 16, "\(16 - ended) threads did not finish: a deadlock")
        }
    }
}
