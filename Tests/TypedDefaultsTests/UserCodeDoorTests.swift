import Foundation
import Observation
import Testing
import TypedDefaults

/// Runs `body` on a thread of its own; whether it returned within the wait limit. A hang fails the
/// test instead of stopping the run (the thread is left behind).
private func returnsInTime(_ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done.wait(timeout: .now() + waitLimit) == .success
}

/// The kinds of observer the library delivers to through its one door for code that is not its own.
enum ObserverKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case callback, stream, isolatedCallback
    var testDescription: String { rawValue }
}

private let level = UserDefaultTypedKey<Int>("level", defaultValue: 0)

/// Keeps one observer of `level` alive, of `kind`, recording what it hears.
private final class LevelObserver: Sendable {
    let heard = Recorder<Int>()
    private let token = Locked<ObservationToken?>(nil)
    private let task = Locked<Task<Void, Never>?>(nil)

    init(_ kind: ObserverKind, of store: DefaultsStore) async {
        let heard = self.heard
        switch kind {
        case .callback:
            token.withLockedValue { $0 = store.observe(level) { heard.append($0.newValue) } }
        case .isolatedCallback:
            let made = await Self.observeOnActor(store, heard)
            token.withLockedValue { $0 = made }
        case .stream:
            let values = store.updates(level, initial: false)
            task.withLockedValue { $0 = Task.detached { for await value in values { heard.append(value) } } }
        }
    }

    private static func observeOnActor(_ store: DefaultsStore, _ heard: Recorder<Int>) async -> ObservationToken {
        await ObservingActor().observe(store, heard)
    }

    func end() {
        token.withLockedValue { $0 = nil }
        task.withLockedValue { $0?.cancel() }
    }
}

private actor ObservingActor {
    func observe(_ store: DefaultsStore, _ heard: Recorder<Int>) -> ObservationToken {
        store.observe(level, isolation: self) { heard.append($0.newValue) }
    }
}

/// Code that is not the library's (Swift Observation's `onChange`, observer callbacks and their
/// `initial` call, error handlers) runs under no lock of the library and in its turn: what it does with
/// the library never waits for itself, and every observer ends on the stored value.
@Suite("Code that is not the library's runs through one door")
struct UserCodeDoorTests {
    /// A model keeps a setting in range from Observation's `onChange`, which runs inside the write that
    /// changed it: the write made there must return, and every kind of observer of the name ends on the
    /// clamped value, having heard both changes in order. Before, every combination hung (all 6 here):
    /// the nested write waited for the outer change, which the same thread delivers once `onChange`
    /// returns.
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite], ObserverKind.allCases)
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func aWriteMadeInOnChangeReturnsAndObserversEndOnTheStoredValue(_ backend: Backend, _ kind: ObserverKind)
        async throws
    {
        try await withStore(backend) { store in
            let observer = await LevelObserver(kind, of: store)
            defer { observer.end() }
            withObservationTracking {
                _ = store[level]
            } onChange: {
                if store[level] > 10 { store[level] = 10 }
            }
            #expect(returnsInTime { store[level] = 50 })
            #expect(store[level] == 10)
            try await waitUntil("the observer's last value") { observer.heard.all.last == 10 }
            #expect(observer.heard.all == [50, 10])
        }
    }

    /// An `onChange` that tracks again and calls `modify` without changing the value: `modify` announces
    /// nothing, so this ends. Before, it recursed until the stack overflowed.
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func anOnChangeThatCallsModifyWithoutAChangeEnds(_ backend: Backend) {
        withStore(backend) { store in
            let calls = Recorder<Int>()
            @Sendable func track() {
                withObservationTracking {
                    _ = store[level]
                } onChange: {
                    calls.append(1)
                    guard calls.count < 100 else { return }
                    track()
                    _ = try? store.modify(level) { $0 = max($0, 0) }
                }
            }
            track()
            #expect(returnsInTime { store[level] = 3 })
            #expect(calls.count == 1)
            #expect(store[level] == 3)
        }
    }

    /// The `initial` call takes the observer's turn: a change made on another thread while it runs is
    /// delivered after it, so the closure ends on the stored value. Before, the change was delivered on
    /// the writer's thread during the initial call, which then ended the closure on the old value.
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    func theInitialCallComesBeforeEveryChangeMadeWhileItRuns(_ backend: Backend) {
        withStore(backend) { store in
            store[level] = 1
            let heard = Recorder<Int>()
            let writerDone = DispatchSemaphore(value: 0)
            let calls = Locked(0)
            let token = store.observe(level, initial: true) { change in
                let call = calls.withLockedValue { calls in
                    calls += 1
                    return calls
                }
                if call == 1 {
                    // Another thread writes now; its value is readable at once, and its delivery waits
                    // for this call.
                    Thread {
                        store[level] = 2
                        writerDone.signal()
                    }.start()
                    _ = pollUntil { store[level] == 2 }
                }
                heard.append(change.newValue)
            }
            defer { token.cancel() }
            #expect(writerDone.wait(timeout: .now() + waitLimit) == .success)
            #expect(heard.all == [1, 2])
        }
    }

    /// Several observers with `initial`, registered while another thread writes all along: each hears
    /// its initial value and then only later values, never one older than one it heard, and ends on the
    /// stored value.
    @Test(arguments: [Backend.inMemory, .userDefaultsSuite])
    func initialCallsAndConcurrentWritesEndOnTheStoredValue(_ backend: Backend) {
        withStore(backend) { store in
            let writing = Locked(true)
            let writer = Thread {
                var value = 0
                while writing.withLockedValue({ $0 }) {
                    value += 1
                    store[level] = value
                }
            }
            writer.start()
            var recorders: [Recorder<Int>] = []
            var tokens: [ObservationToken] = []
            for _ in 0..<200 {
                let heard = Recorder<Int>()
                recorders.append(heard)
                tokens.append(store.observe(level, initial: true) { heard.append($0.newValue) })
            }
            writing.withLockedValue { $0 = false }
            store[level] = -1
            for heard in recorders {
                #expect(heard.waitForCount(1))
                _ = pollUntil { heard.all.last == -1 }
                let values = heard.all
                #expect(values.last == -1)
                #expect(values.dropLast().allSatisfy { $0 >= 0 })
                #expect(zip(values.dropLast(), values.dropLast().dropFirst()).allSatisfy { $0 < $1 })
            }
            for token in tokens { token.cancel() }
        }
    }

    /// An error handler that reads and writes settings, for an error reported while the library holds
    /// the step's locks (a removal of the suite inside `modify`'s transform, refused): it runs once they
    /// are released, after the step, and what it writes is stored. Before, it ran inside the transform,
    /// where its `modify` was refused (it read 1, and 5 was stored).
    @Test func anErrorHandlerRunsAfterTheLocksAndMayUseTheStore() throws {
        try withSuite { suite, store in
            try withReportedErrors { _ in
                let handled = Recorder<Int>()
                ErrorReporting.setHandler { _ in
                    // `modify` takes turns with the step: inside it, it would be refused.
                    _ = try? store.modify(level) { $0 += 1 }
                    handled.append(store[level])
                }
                _ = try store.modify(level) { value in
                    DefaultsStore.removeSuite(named: suite)
                    value = 5
                }
                #expect(handled.waitForCount(1))
                #expect(handled.all == [6])
                #expect(store[level] == 6)
            }
        }
    }
}
