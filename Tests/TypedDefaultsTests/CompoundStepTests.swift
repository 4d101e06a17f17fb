import Foundation
import Testing
import TypedDefaults

/// Moves and removals by name are single steps of the order of changes, and see every value stored,
/// also one another process saved for a name this process has not used yet.
@Suite("Moves and removals by name are one step, and see every stored value")
struct CompoundStepTests {
    // Corelibs keeps registered defaults for the whole process: each test here uses names of its own, so
    // that a default another test registers is not read as a stored value.

    /// Two threads move two names onto one at once: exactly one move happens, and no value is lost.
    /// Before, the check and the writes were separate steps: both moves returned true and one value was
    /// lost in 47 of 15,000 rounds; here the old code lost one in 2,484 of 6,000 rounds on a suite and 463
    /// of 6,000 in memory. 1,500 rounds on a suite (each move saves it), 6,000 in memory, in the long run
    /// (`runsLongTests`); a quarter in `swift test` (at those rates, about 160 and 115 lost rounds on the
    /// old code).
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func twoMovesOntoOneNameMoveOneValueAndLoseNone(_ backend: Backend) {
        let rounds = (backend == .inMemory ? 6_000 : 1_500) / (runsLongTests ? 1 : 4)
        withStore(backend) { store in twoMovesOntoOneName(store, rounds: rounds) }
    }

    private func twoMovesOntoOneName(_ store: DefaultsStore, rounds: Int) {
        var lost = 0
        for round in 0..<rounds {
            store.storage.set(1, forKey: "a")
            store.storage.set(2, forKey: "b")
            store.removeObject(forName: "target")
            let results = Locked2<[Bool]>([])
            let start = Barrier(2)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                start.arriveAndWait()
                let moved = store.moveObject(fromName: index == 0 ? "a" : "b", toName: "target")
                results.withLock { $0.append(moved) }
            }
            let target = store.object(forName: "target") as? Int
            let left = [store.object(forName: "a"), store.object(forName: "b")].compactMap { $0 as? Int }
            if results.withLock({ $0.filter { $0 }.count }) != 1 || target == nil || left.count != 1
                || Set(left + [target!]) != [1, 2]
            {
                lost += 1
                if lost == 1 {
                    Issue.record(
                        "round \(round): moved \(results.withLock { $0 }), target \(target as Any), left \(left)")
                }
            }
        }
        #expect(lost == 0)
    }

    /// A typed write to the target that lands while a move runs is never overwritten: either the write
    /// comes first and nothing moves, or the move comes first and the write replaces it. Before, 24 of
    /// 15,000 rounds ended with the moved value over the write (here 54 of 6,000 on a suite). 1,500 rounds
    /// on a suite and 6,000 in memory in the long run (`runsLongTests`), half in `swift test` (about 6
    /// and 5 such rounds expected with the old code).
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aTypedWriteDuringAMoveIsNeverOverwritten(_ backend: Backend) {
        let rounds = (backend == .inMemory ? 6_000 : 1_500) / (runsLongTests ? 1 : 2)
        withStore(backend) { store in aTypedWriteDuringAMove(store, rounds: rounds) }
    }

    private func aTypedWriteDuringAMove(_ store: DefaultsStore, rounds: Int) {
        let key = UserDefaultTypedKey<Int>("typedTarget", defaultValue: 0)
        var overwritten = 0
        for _ in 0..<rounds {
            store.storage.set(1, forKey: "old")
            store.remove(key)
            let moved = Locked2(false)
            let start = Barrier(2)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                start.arriveAndWait()
                if index == 0 {
                    let result = store.moveObject(fromName: "old", toName: "typedTarget")
                    moved.withLock { $0 = result }
                } else {
                    store[key] = 7
                }
            }
            // The write came after the move (target 7, old gone) or before it (target 7, old kept).
            let oldLeft = store.object(forName: "old") != nil
            if store[key] != 7 || oldLeft == moved.withLock({ $0 }) { overwritten += 1 }
        }
        #expect(overwritten == 0)
    }

    #if os(Linux)
        /// Another process saves a value under a name this process has not used: it is put aside until
        /// the name's first use. `object(forName:)` sees it, and a move onto that name keeps it. Before,
        /// `object(forName:)` returned nil and the move overwrote it (3 of 3).
        @Test func aValueAnotherProcessSavedIsSeenByNameAndKeptByAMove() throws {
            try withSuite { suite, store in
                store[UserDefaultTypedKey<Int>("source", defaultValue: 0)] = 9
                try store.flush()
                #expect(try ProbeProcess.run(["set-on-line", suite, "savedElsewhere"]).status == 0)
                let seen = pollUntil { store.object(forName: "savedElsewhere") as? Int == 1 }
                #expect(seen, "object(forName:) never saw the other process's value")
                #expect(!store.moveObject(fromName: "source", toName: "savedElsewhere"))
                try store.flush()
                #expect(try ProbeProcess.run(["plain-read", suite, "savedElsewhere", "source"]).lines == ["1", "9"])
            }
        }

        /// A name removed here while another process's value for it waits to be brought in stays removed:
        /// no listing brings it back. Before, `snapshot()` listed it again and `hasKey` said true, while the
        /// file and a new process had nothing (3 of 3).
        @Test func aRemovedNameIsNotBroughtBackByAListing() throws {
            try withSuite { suite, store in
                let marker = UserDefaultTypedKey<Int>("marker", defaultValue: 0)
                _ = store[marker]
                #expect(try ProbeProcess.run(["set-on-line", suite, "removedElsewhere"]).status == 0)
                #expect(try ProbeProcess.run(["set-on-line", suite, "marker"]).status == 0)
                // The marker's change is brought in by the look that also puts "removedElsewhere" aside.
                #expect(pollUntil { store[marker] == 1 })
                store.removeObject(forName: "removedElsewhere")
                try store.flush()
                #expect(store.snapshot()["removedElsewhere"] == nil)
                #expect(store.object(forName: "removedElsewhere") == nil)
                #expect(!store.hasKey(UserDefaultTypedKey<Int?>("removedElsewhere")))
                #expect(try ProbeProcess.run(["plain-read", suite, "removedElsewhere"]).lines == ["nil"])
            }
        }
    #endif
}

/// A value behind a lock, for the rounds above.
private final class Locked2<Value>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}

/// Lets `count` threads go on together, so that two calls start at the same moment.
private final class Barrier: @unchecked Sendable {
    // @unchecked: `arrived` is guarded by `condition`.
    private let condition = NSCondition()
    private var arrived = 0
    private let count: Int
    init(_ count: Int) { self.count = count }
    func arriveAndWait() {
        condition.lock()
        arrived += 1
        condition.broadcast()
        while arrived < count { condition.wait() }
        condition.unlock()
    }
}
