import Foundation
import Testing
import TypedDefaults

/// `updates` under writers on other threads: no value twice, and ending a stream never waits for a
/// writer that is delivering into it.
@Suite("Streams under concurrent writers")
struct StreamRaceTests {
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    func updatesNeverSendsAChangeTwiceWhenItLandsWhileSubscribing(_ backend: Backend) async throws {
        try await withStore(backend) { store in
            for round in 0..<300 {
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

    /// Sixteen threads write one key while tasks iterate its updates and are cancelled: a cancel that
    /// waited for the writer delivering into the stream (which waits for the stream's lock the cancelling
    /// thread holds) hung both.
    @Test func cancellingStreamsWhileOthersWriteNeverHangs() throws {
        try withSuite { _, store in
            let key = UserDefaultTypedKey<Int>("hammered", defaultValue: 0)
            let finished = DispatchSemaphore(value: 0)
            let deadline = Date(timeIntervalSinceNow: 2)
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
