import Foundation
import Observation
import Testing
import TypedDefaults

#if os(Linux)
    /// What one observer heard last, from any thread.
    private final class LastHeard: @unchecked Sendable {
        // @unchecked: `value` is guarded by `lock`.
        private let lock = NSLock()
        private var value: Int?
        private var count = 0

        func hear(_ newValue: Int) {
            lock.withLock {
                value = newValue
                count += 1
            }
        }
        var last: Int? { lock.withLock { value } }
        var heard: Int { lock.withLock { count } }
    }

    /// An actor whose observation of a key keeps the last value it heard.
    private actor ActorObserver {
        private(set) var last: Int?
        private var token: ObservationToken?

        func start(_ store: DefaultsStore, _ key: UserDefaultTypedKey<Int>) {
            token = store.observe(key, isolation: self) { self.last = $0.newValue }
        }

        func stop() { token = nil }
    }

    private struct Refused: Error {}

    /// Observers of every kind call the library's public API from inside their callbacks while this
    /// process's `modify`, moves and `flush` run on other threads, another process saves the observed key
    /// (brought in by the watcher and by this process's steps), and some transforms throw:
    /// the run finishes (in debug builds with the lock order checked, and under ThreadSanitizer), and
    /// every observer ends on the value the store holds. Before, a callback's `modify` hung behind the
    /// step that announced to it (release) or stopped on the lock order (debug), and a throwing step
    /// left observers waiting for a change forever.
    @Suite("A callback may call any API while steps run and throw")
    struct CallbackAPITests {
        private let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
        private let echo = UserDefaultTypedKey<Int>("callbackEcho", defaultValue: 0)
        private let moved = UserDefaultTypedKey<Int>("callbackMoved", defaultValue: 0)

        // Failed saves are not injected here: a save that fails in the background is reported to the one
        // `ErrorReporting` handler of the process, which another test may hold (`withReportedErrors`,
        // synchronous, which an async test cannot take). DeliveryTests make steps fail, with the turn.
        @Test @MainActor func everyObserverEndsOnTheStoredValue() async throws {
            let suite = uniqueSuiteName()
            defer { DefaultsStore.removeSuite(named: suite) }
            let store = try #require(DefaultsStore(suiteName: suite))
            let (count, echo, moved) = (self.count, self.echo, self.moved)
            // A callback that calls the API: a write, `modify`, a move back and forth, a migration, a flush,
            // an observation made and cancelled, a read.
            let busy = LastHeard()
            let busyToken = store.observe(count) { change in
                busy.hear(change.newValue)
                store[echo] = change.newValue
                _ = try? store.modify(echo) { $0 += 0 }
                _ = store.moveObject(fromName: "callbackMoved", toName: "callbackMovedBack")
                _ = store.migrate(from: "callbackMovedBack", to: moved)
                try? store.flush()
                store.observe(echo) { _ in }.cancel()
                _ = store[count]
            }
            let plain = LastHeard()
            let plainToken = store.observe(count) { plain.hear($0.newValue) }
            let echoHeard = LastHeard()
            let echoToken = store.observe(echo) { echoHeard.hear($0.newValue) }
            let actor = ActorObserver()
            await actor.start(store, count)
            var onMain: Int?
            let mainToken = store.observe(count, isolation: MainActor.shared) { onMain = $0.newValue }
            let streamed = LastHeard()
            let values = store.updates(count)
            let stream = Task.detached { for await value in values { streamed.hear(value) } }

            // Another process adds to the count while this one works.
            let other = try ProbeProcess(["modify", suite, "150"])
            #expect(other.waitForLine("ready"))
            try other.send("go")

            let writers = Task.detached {
                await withTaskGroup(of: Void.self) { group in
                    group.addTask {
                        for index in 0..<300 { store[count] = 10_000 + index }
                    }
                    group.addTask {
                        for index in 0..<150 {
                            _ = try? store.modify(count) { value in
                                if index % 5 == 0 { throw Refused() }
                                value += 1
                            }
                        }
                    }
                    group.addTask {
                        for index in 0..<60 {
                            store[moved] = index
                            _ = store.moveObject(fromName: "callbackMoved", toName: "callbackMovedBack")
                            _ = store.migrate(from: "callbackMovedBack", to: moved)
                            try? store.flush()
                        }
                    }
                }
            }
            await writers.value
            let finished = other.finish()
            #expect(finished.status == 0, "\(finished.standardError.suffix(300))")
            try store.flush()

            // Quiet: every observer is on what the store holds, twice in a row.
            var polls = Int(waitLimit / 0.005)  // counted, not timed: see `waitUntil`
            var agreedBefore = false
            while true {
                let stored = store[count]
                let fromActor = await actor.last
                let agreed =
                    [busy.last, plain.last, streamed.last, fromActor, onMain].allSatisfy { $0 == stored }
                    && echoHeard.last == store[echo]
                if agreed, agreedBefore { break }
                agreedBefore = agreed
                polls -= 1
                guard polls > 0 else {
                    let heard: String =
                        "callback \(busy.last as Any), plain \(plain.last as Any), stream \(streamed.last as Any), "
                        + "actor \(fromActor as Any), main \(onMain as Any), echo \(echoHeard.last as Any)"
                    Issue.record("observers did not end on \(stored) (echo \(store[echo])): \(heard)")
                    break
                }
                try await Task.sleep(nanoseconds: 5_000_000)
            }
            #expect(plain.heard > 0 && busy.heard > 0)
            stream.cancel()
            await actor.stop()
            busyToken.cancel()
            plainToken.cancel()
            echoToken.cancel()
            mainToken.cancel()
        }
    }
#endif
