import Foundation
import Testing
import TypedDefaults

// Every change that gets a number is delivered, exactly once, after every lock is released, whatever
// happens after it is numbered (a failed save, a throwing transform); a writer waits for the changes
// numbered before its own and never delivers another writer's; a callback may call any public API.

/// Values and the threads they were heard on, from any thread.
private final class Deliveries: @unchecked Sendable {
    // @unchecked: every field is guarded by `lock`.
    private let lock = NSLock()
    private var values: [Int] = []
    private var seen: Set<Int> = []
    private var offThread = 0

    func append(_ value: Int, onWritersThread: Bool = true) {
        lock.withLock {
            values.append(value)
            seen.insert(value)
            if !onWritersThread { offThread += 1 }
        }
    }
    func has(_ value: Int) -> Bool { lock.withLock { seen.contains(value) } }
    var all: [Int] { lock.withLock { values } }
    var last: Int? { lock.withLock { values.last } }
    var heardOffTheWritersThread: Int { lock.withLock { offThread } }
}

/// Runs `body` on a thread of its own and waits for it at most `limit` seconds: a hang fails the test
/// instead of stopping the run. Whether it returned.
private func finishes(within limit: TimeInterval = waitLimit, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        done.signal()
    }
    thread.start()
    return done.wait(timeout: .now() + limit) == .success
}

private struct Thrown: Error {}

/// A value whose conversion reads another setting of the store: a migration converts through it.
private struct Scaled: UserDefaultConvertible, Equatable {
    let value: Int
    /// Where the scale is read: set before the migration, a key nobody used before.
    nonisolated(unsafe) static var store: DefaultsStore?
    static let scale = UserDefaultTypedKey<Int>("deliveryTestsScale", defaultValue: 10)

    init(_ value: Int) { self.value = value }
    init?(userDefaultsObject object: Any) {
        guard let number = object as? Int else { return nil }
        value = number * (Self.store.map { $0[Self.scale] } ?? 1)
    }
    var userDefaultsObject: Any? { value }
}

@Suite("Every numbered change is delivered once, in turn, on its writer's thread")
struct DeliveryTests {
    private let count = UserDefaultTypedKey<Int>("deliveryCount", defaultValue: 0)
    private let other = UserDefaultTypedKey<Int>("deliveryOther", defaultValue: 0)

    /// Two threads write one key 10,000 times each, the values telling the writer apart; a callback
    /// checks which thread it runs on. Every change is delivered on the thread that wrote it, so a
    /// callback that trusts the doc (`MainActor.assumeIsolated` for a main-thread write) is right.
    /// Before, the thread that found the observer free delivered every change that was ready, the other
    /// writer's too: 99 to 4,251 of 20,000 changes ran on the other thread, and one writer's single write
    /// waited while it delivered thousands of the other's. 10,000 writes each in the long run
    /// (`runsLongTests`), 4,000 in `swift test` (the old code: about 40 to 1,700 off the writer's thread).
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func everyChangeIsDeliveredOnTheThreadThatWroteIt(_ backend: Backend) {
        let writes = runsLongTests ? 10_000 : 4_000
        withStore(backend) { store in
            let heard = Deliveries()
            let key = count
            let token = store.observe(key) { change in
                let writer = Thread.current.threadDictionary["deliveryTestsWriter"] as? Int
                heard.append(change.newValue, onWritersThread: writer == change.newValue % 2)
            }
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                Thread.current.threadDictionary["deliveryTestsWriter"] = writer
                for index in 0..<writes { store[key] = index * 2 + writer }
                Thread.current.threadDictionary["deliveryTestsWriter"] = nil
            }
            token.cancel()
            #expect(heard.all.count == 2 * writes)
            #expect(heard.heardOffTheWritersThread == 0)
        }
    }

    /// A write returns once its own change is delivered: the callback that a write causes has run when
    /// the write returns, on every thread, while another thread writes too.
    @Test func aWriteReturnsOnceItsOwnChangeIsDelivered() {
        withStore(.inMemory) { store in
            let heard = Deliveries()
            let key = count
            let token = store.observe(key) { heard.append($0.newValue) }
            let missing = Locked2(0)
            DispatchQueue.concurrentPerform(iterations: 2) { writer in
                for index in 0..<5_000 {
                    let value = index * 2 + writer
                    store[key] = value
                    if !heard.has(value) { missing.withLock { $0 += 1 } }
                }
            }
            token.cancel()
            #expect(missing.withLock { $0 } == 0)
        }
    }

    /// A write made inside a callback is delivered after that callback returns, on the same thread,
    /// before the outer write returns; every observer ends on the stored value.
    @Test func aWriteInsideACallbackIsDeliveredOnTheSameThreadBeforeTheOuterWriteReturns() {
        withStore(.inMemory) { store in
            let heard = Deliveries()
            let key = count
            let token = store.observe(key) { change in
                heard.append(change.newValue)
                if change.newValue < 5 { store[key] = change.newValue + 1 }
            }
            store[key] = 1
            #expect(heard.all == [1, 2, 3, 4, 5])
            token.cancel()
        }
    }

    /// A `modify` whose transform throws, or whose save fails, still announces what it numbered; later
    /// changes reach the observer. Before, a failed save numbered its change, left by the error without
    /// announcing it, and the observer waited for that number forever: every later change was held in
    /// memory and never delivered (every run).
    #if os(Linux) && DEBUG
        @Test func aStepWhoseSaveFailsStillAnnouncesAndObserversKeepHearing() throws {
            try withReportedErrors { _ in
                try withSuite { suite, store in
                    defer { SystemCallFaults.removeAll(onPathsContaining: suite) }
                    let heard = Deliveries()
                    let token = store.observe(count) { heard.append($0.newValue) }
                    store[count] = 1
                    try store.flush()
                    SystemCallFaults.inject(.error(ENOSPC), into: .write, onPathsContaining: suite)
                    #expect(throws: DefaultsError.self) { try store.modify(count) { $0 = 2 } }
                    _ = store.moveObject(fromName: "deliveryCount", toName: "deliveryMoved")
                    store.storage.set(3, forKey: "deliveryOld")
                    _ = store.migrate(from: "deliveryOld", to: other)
                    SystemCallFaults.removeAll(onPathsContaining: suite)
                    for value in 10..<20 { store[count] = value }
                    #expect(heard.all == [1, 2] + [0] + Array(10..<20), "\(heard.all)")
                    token.cancel()
                }
            }
        }

        /// Another process saves a value while this process's `modify` holds the suite's lock; the
        /// observer of that value calls `modify`, `moveObject` and `migrate` from its callback. Before, the
        /// brought-in change was announced inside `modify`'s lock: the callback's `modify` waited for that
        /// lock (release builds hung, 3 of 3; debug builds stopped on the lock order); and a transform
        /// that threw skipped the announcement, so the observer heard 0 to 2 of 120 saves (16 of 16).
        @Test(arguments: [false, true])
        func anotherProcesssSaveBroughtInByModifyIsHeardByACallbackThatModifies(transformThrows: Bool) throws {
            try withReportedErrors { _ in
                try withSuite { suite, store in
                    let heard = Deliveries()
                    let finished = Deliveries()
                    let key = count
                    let token = store.observe(other) { change in
                        heard.append(change.newValue)
                        _ = try? store.modify(key) { $0 += 1 }
                        _ = store.moveObject(fromName: "deliveryNothing", toName: "deliveryNowhere")
                        _ = store.migrate(from: "deliveryNothing", to: key)
                        finished.append(change.newValue)
                    }
                    _ = store[other]
                    try store.flush()
                    let file = testConfigHome.appendingPathComponent(suite + ".plist")
                    for round in 1...30 {
                        // A size of its own each round: a file replaced within one tick of the file
                        // system's clock, at the same size, may reuse the inode and look unchanged.
                        let saved = try PropertyListSerialization.data(
                            fromPropertyList: [
                                "deliveryOther": round, "deliveryCount": store[key],
                                "deliveryPadding": String(repeating: "x", count: round),
                            ], format: .binary, options: 0)
                        try saved.write(to: file, options: .atomic)
                        let returned = finishes {
                            _ = try? store.modify(key) { value in
                                if transformThrows { throw Thrown() }
                                value += 0
                            }
                        }
                        try #require(returned, "modify did not return (round \(round))")
                        // Until the callback's own `modify` has saved: the file written next is written
                        // without the suite's lock, which a save in flight would write over.
                        #expect(
                            pollUntil { heard.last == round && finished.last == round },
                            "round \(round): heard \(heard.all.suffix(3)), reads \(store[other])")
                    }
                    token.cancel()
                }
            }
        }
    #endif

    /// A migration whose conversion reads a setting the process has not used yet. Before, the
    /// conversion ran under the write order, which the read took again: release builds hung (2 of 2) and
    /// debug builds stopped ("writeOrder taken while holding writeOrder").
    /// Serialized: both cases set the one static store the conversion reads (one case's end cleared it
    /// while the other converted, which read the scale as 1).
    @Test(.serialized, arguments: [Backend.userDefaultsSuite, .inMemory])
    func aConversionThatReadsTheStoreDoesNotStopAMigration(_ backend: Backend) {
        withStore(backend) { store in
            Scaled.store = store
            defer { Scaled.store = nil }
            store.storage.set(4, forKey: "deliveryOldScaled")
            let key = UserDefaultTypedKey<Scaled>("deliveryScaled", defaultValue: Scaled(0))
            let moved = Locked2(false)
            #expect(finishes { moved.withLock { $0 = store.migrate(from: "deliveryOldScaled", to: key) } })
            #expect(moved.withLock { $0 })
            #expect(store[key] == Scaled(40 * 10), "converted once on the way in, once on the read")
        }
    }

    /// Inside `modify`'s transform a move and a migration join the step; `modify` and `flush()` are
    /// refused with an error that says so, instead of waiting for themselves. Before, a move inside a
    /// transform hung (release) or stopped the program (debug).
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func insideATransformMovesJoinAndModifyAndFlushAreRefused(_ backend: Backend) throws {
        try withStore(backend) { store in
            store.storage.set(5, forKey: "deliveryOldName")
            let inner = Locked2<[String]>([])
            let finished = finishes {
                _ = try? store.modify(count) { value in
                    value = 1
                    let moved = store.moveObject(fromName: "deliveryOldName", toName: "deliveryNewName")
                    inner.withLock { $0.append("moved \(moved)") }
                    do {
                        try store.modify(count) { $0 = 99 }
                    } catch {
                        inner.withLock { $0.append("\(error)") }
                    }
                    do {
                        try store.flush()
                    } catch {
                        inner.withLock { $0.append("\(error)") }
                    }
                }
            }
            try #require(finished, "modify did not return")
            let said = inner.withLock { $0 }
            #expect(said.count == 3)
            #expect(said.first == "moved true")
            #expect(said.dropFirst().allSatisfy { $0.contains("inside a modify transform") }, "\(said)")
            #expect(store[count] == 1)
            #expect(store.object(forName: "deliveryNewName") as? Int == 5)
            #expect(store.object(forName: "deliveryOldName") == nil)
        }
    }
}

/// A value behind a lock.
private final class Locked2<Value>: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<Result>(_ body: (inout Value) -> Result) -> Result { lock.withLock { body(&value) } }
}
