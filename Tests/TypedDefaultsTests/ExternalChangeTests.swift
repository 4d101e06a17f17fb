import Foundation
import Observation
import Testing
import TypedDefaults

/// A storage that reports every change of a watched name as key-value observing does on Apple
/// platforms: synchronously, on the writing thread, inside `set`, the library's own writes included.
/// `writeElsewhere` is another writer (an app extension, `defaults write`, the plain API). With
/// `reportsHoldingItsLock`, a report is made with the storage's own (recursive) lock held, as a storage
/// that notifies inside its critical section does.
private final class FakeObservedStorage: ExternallyChangingStorage, @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSRecursiveLock()
    private let reportsHoldingItsLock: Bool
    private var values: [String: Any] = [:]
    private var registered: [String: Any] = [:]
    private var watches: [String: [UUID: @Sendable () -> Void]] = [:]
    private var startCount = 0
    private var stopCount = 0
    var started: Int { lock.withLock { startCount } }
    var stopped: Int { lock.withLock { stopCount } }

    private struct Watch: ExternalChangeWatch {
        let end: @Sendable () -> Void
        func stop() { end() }
    }

    init(reportsHoldingItsLock: Bool = false) {
        self.reportsHoldingItsLock = reportsHoldingItsLock
    }

    var watchedNames: Set<String> { lock.withLock { Set(watches.keys) } }

    func object(forKey key: String) -> Any? { lock.withLock { values[key] ?? registered[key] } }
    func set(_ object: Any?, forKey key: String) {
        change(key) { $0 = object }
    }
    func removeObject(forKey key: String) {
        change(key) { $0 = nil }
    }
    private func change(_ key: String, _ body: (inout Any?) -> Void) {
        lock.lock()
        body(&values[key])
        if reportsHoldingItsLock { report(key) }
        lock.unlock()
        if !reportsHoldingItsLock { report(key) }
    }
    func register(defaults: [String: Any]) { lock.withLock { registered.merge(defaults) { $1 } } }
    func storedValues() -> [String: Any]? { lock.withLock { values } }

    func watchChanges(ofKey key: String, _ onChange: @escaping @Sendable () -> Void) -> any ExternalChangeWatch {
        let id = UUID()
        lock.withLock {
            startCount += 1
            watches[key, default: [:]][id] = onChange
        }
        return Watch { [self] in
            lock.withLock {
                stopCount += 1
                watches[key]?[id] = nil
                if watches[key]?.isEmpty == true { watches[key] = nil }
            }
        }
    }

    /// Another writer's change, reported on the calling thread.
    func writeElsewhere(_ object: Any?, forKey key: String) {
        set(object, forKey: key)
    }

    private func report(_ key: String) {
        let callbacks = lock.withLock { watches[key].map { Array($0.values) } ?? [] }
        for callback in callbacks { callback() }
    }
}

/// One suite's values shared by several storage objects, as two `UserDefaults` objects of one suite
/// share them on Apple platforms: a change through any object is reported to the watches made through
/// every object, synchronously on the writing thread, as key-value observing reports it. A name in
/// `linked` changes with another (a `set` of the key sets the linked name too, reported inside it).
private final class SharedSuite: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`.
    private let lock = NSLock()
    private var values: [String: Any] = [:]
    private var registered: [String: Any] = [:]
    private var watches: [String: [UUID: @Sendable () -> Void]] = [:]
    private let linked: [String: String]

    init(linked: [String: String] = [:]) {
        self.linked = linked
    }

    func object(forKey key: String) -> Any? { lock.withLock { values[key] ?? registered[key] } }
    func register(_ defaults: [String: Any]) { lock.withLock { registered.merge(defaults) { $1 } } }
    var watchedNames: Set<String> { lock.withLock { Set(watches.keys) } }

    func change(_ key: String, to object: Any?) {
        let names = [key] + (linked[key].map { [$0] } ?? [])
        lock.withLock {
            for name in names { values[name] = object }
        }
        for name in names {
            for report in lock.withLock({ watches[name].map { Array($0.values) } ?? [] }) { report() }
        }
    }

    func watch(_ key: String, _ onChange: @escaping @Sendable () -> Void) -> any ExternalChangeWatch {
        let id = UUID()
        lock.withLock { watches[key, default: [:]][id] = onChange }
        return SuiteWatch { [self] in
            lock.withLock {
                watches[key]?[id] = nil
                if watches[key]?.isEmpty == true { watches[key] = nil }
            }
        }
    }

    private struct SuiteWatch: ExternalChangeWatch {
        let end: @Sendable () -> Void
        func stop() { end() }
    }
}

/// One storage object over a shared suite; it refuses to watch the names key-value observing cannot take.
private final class SuiteObject: ExternallyChangingStorage, Sendable {
    let suite: SharedSuite
    init(_ suite: SharedSuite) { self.suite = suite }
    func object(forKey key: String) -> Any? { suite.object(forKey: key) }
    func set(_ object: Any?, forKey key: String) { suite.change(key, to: object) }
    func removeObject(forKey key: String) { suite.change(key, to: nil) }
    func register(defaults: [String: Any]) { suite.register(defaults) }
    func watchChanges(ofKey key: String, _ onChange: @escaping @Sendable () -> Void) -> any ExternalChangeWatch {
        precondition(canWatchChanges(ofKey: key), "asked to watch \(key), which key-value observing cannot take")
        return suite.watch(key, onChange)
    }
    func canWatchChanges(ofKey key: String) -> Bool { KeyValueObservingNames.canObserve(key) }
}

/// Observations a failed deadlock test cannot end (ending one waits for the deadlocked locks).
private let keptAfterADeadlock = Recorder<ObservationToken>()

@Suite("Changes made by other means reach observers through the shared pipeline")
struct ExternalChangeTests {
    @Test func anotherWritersChangeIsHeardOnceWithItsOldAndNewValue() throws {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        let heard = Recorder<String>()
        let token = store.observe(.launchCount) { heard.append("\($0.oldValue)->\($0.newValue)") }
        defer { token.cancel() }
        storage.writeElsewhere(5, forKey: "launchCount")
        storage.writeElsewhere(5, forKey: "launchCount")  // no change: not heard
        let other = Thread { storage.writeElsewhere(6, forKey: "launchCount") }
        other.start()
        #expect(heard.waitForCount(2))
        storage.writeElsewhere(nil, forKey: "launchCount")
        #expect(heard.all == ["0->5", "5->6", "6->0"])
        #expect(store[.launchCount] == 0)
    }

    /// A storage that reports another writer's change while holding its own lock: the library's writes
    /// on one thread and the other writer's on another never wait for each other forever, and observers
    /// end with the last value. Before, a commit holding the library's write order waited for the
    /// storage's lock in `object(forKey:)` while the report held it and waited for the write order.
    @Test func aStorageReportingWhileHoldingItsLockNeverDeadlocks() {
        let storage = FakeObservedStorage(reportsHoldingItsLock: true)
        let store = DefaultsStore(storage: storage)
        let heard = Recorder<Int>()
        let token = store.observe(.launchCount) { heard.append($0.newValue) }
        let finished = DispatchSemaphore(value: 0)
        Thread {
            for value in 1...2_000 { store[.launchCount] = value }
            finished.signal()
        }.start()
        Thread {
            for value in 1...2_000 { storage.writeElsewhere(-value, forKey: "launchCount") }
            finished.signal()
        }.start()
        let ended = (0..<2).filter { _ in finished.wait(timeout: .now() + waitLimit) == .success }.count
        // After a deadlock, the storage and the store stay locked: the test ends without touching them.
        guard ended == 2 else {
            Issue.record("a deadlock: \(2 - ended) writer threads never finished")
            keptAfterADeadlock.append(token)  // ending the observation would wait for the locks too
            return
        }
        defer { token.cancel() }
        storage.writeElsewhere(7, forKey: "launchCount")
        #expect(
            pollUntil { heard.all.last == 7 }, "observers last heard \(heard.all.last.map { "\($0)" } ?? "nothing")")
        #expect(store[.launchCount] == 7)
    }

    /// Two stores over two objects of one suite (on Apple platforms, `DefaultsStore(suiteName:)` and
    /// `DefaultsStore(storage: UserDefaults(suiteName:)!)` have a context each), writing on two threads,
    /// each object reporting every change to both synchronously: neither waits for the other forever,
    /// and each store's observers end with the suite's last value. Before, each write held its store's
    /// write order while the report into the other store waited for that store's.
    @Test func twoStoresOverOneSuiteReportingToEachOtherNeverDeadlock() {
        let suite = SharedSuite()
        let stores = [DefaultsStore(storage: SuiteObject(suite)), DefaultsStore(storage: SuiteObject(suite))]
        let heard = stores.map { _ in Recorder<Int>() }
        let tokens = zip(stores, heard).map { store, heard in store.observe(.launchCount) { heard.append($0.newValue) }
        }
        let finished = DispatchSemaphore(value: 0)
        for (index, store) in stores.enumerated() {
            Thread {
                for value in 1...2_000 { store[.launchCount] = index * 10_000 + value }
                finished.signal()
            }.start()
        }
        let ended = (0..<2).filter { _ in finished.wait(timeout: .now() + waitLimit) == .success }.count
        guard ended == 2 else {
            Issue.record("a deadlock: \(2 - ended) writer threads never finished")
            for token in tokens { keptAfterADeadlock.append(token) }
            return
        }
        defer { for token in tokens { token.cancel() } }
        stores[0][.launchCount] = 7
        for (index, heard) in heard.enumerated() {
            #expect(
                pollUntil { heard.all.last == 7 },
                "store \(index) last heard \(heard.all.last.map { "\($0)" } ?? "nothing")")
        }
    }

    /// An observer of one store that writes through another store over the same suite, which reports
    /// each change to both synchronously, from inside the writing store's `set`: the observer runs once
    /// that store's write order is released, so its write never waits for its own thread. Before, the
    /// report was delivered on the writing thread inside the first store's commit, holding its write
    /// order: the observer's write through that store waited for itself (a debug build's lock check
    /// stopped the process: "code that is not the library's called while holding writeOrder").
    @Test func anObserverThatWritesThroughTheOtherStoreOfTheSuiteNeverWaitsForItself() {
        let suite = SharedSuite()
        let first = DefaultsStore(storage: SuiteObject(suite))
        let second = DefaultsStore(storage: SuiteObject(suite))
        let echoed = UserDefaultTypedKey<Int>("echoedCount", defaultValue: 0)
        let token = second.observe(.launchCount) { change in first[echoed] = change.newValue }
        let finished = DispatchSemaphore(value: 0)
        Thread {
            for value in 1...200 { first[.launchCount] = value }
            finished.signal()
        }.start()
        guard finished.wait(timeout: .now() + waitLimit) == .success else {
            Issue.record("a deadlock: the writer never finished")
            keptAfterADeadlock.append(token)
            return
        }
        defer { token.cancel() }
        #expect(pollUntil { first[echoed] == 200 }, "the observer last wrote \(first[echoed])")
    }

    /// A report of another name from inside the library's `set` (a storage where one name changes with
    /// another) is that name's change, heard by its observers. Before, every report made on the writing
    /// thread during a `set` was taken for the write's own echo, whatever name it gave.
    @Test func aReportOfAnotherNameFromInsideASetIsHeard() {
        let suite = SharedSuite(linked: ["launchCount": "mirroredCount"])
        let store = DefaultsStore(storage: SuiteObject(suite))
        let mirrored = UserDefaultTypedKey<Int>("mirroredCount", defaultValue: 0)
        let heard = Recorder<String>()
        let tokens = [
            store.observe(.launchCount) { heard.append("launchCount \($0.newValue)") },
            store.observe(mirrored) { heard.append("mirroredCount \($0.newValue)") },
        ]
        defer { for token in tokens { token.cancel() } }
        store[.launchCount] = 3
        #expect(pollUntil { heard.all.count == 2 })
        #expect(Set(heard.all) == ["launchCount 3", "mirroredCount 3"], "\(heard.all)")
    }

    /// Names key-value observing cannot take (empty, with a `.`, beginning with `@`: `addObserver` raises
    /// an exception no Swift code can catch for the first and the last) are never watched; their
    /// observers hear the library's own writes.
    @Test(arguments: ["", "@count", "a.b"])
    func namesKeyValueObservingCannotTakeAreNotWatchedAndStillHeard(_ name: String) {
        #expect(!KeyValueObservingNames.canObserve(name))
        let suite = SharedSuite()
        let store = DefaultsStore(storage: SuiteObject(suite))
        let key = UserDefaultTypedKey<Int>(name, defaultValue: 0)
        let heard = Recorder<Int>()
        let token = store.observe(key) { heard.append($0.newValue) }
        defer { token.cancel() }
        store.trackChangesElsewhere(of: key)
        store[key] = 4
        #expect(heard.all == [4])
        #expect(suite.watchedNames.isEmpty)
        #expect(KeyValueObservingNames.canObserve("launchCount") && KeyValueObservingNames.canObserve("a@b"))
    }

    @Test func theLibrarysOwnWritesAreNotHeardTwice() {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        let heard = Recorder<Int>()
        let token = store.observe(.launchCount) { heard.append($0.newValue) }
        defer { token.cancel() }
        store[.launchCount] = 3
        store.remove(.launchCount)
        _ = try? store.modify(.launchCount) { $0 += 2 }
        #expect(heard.all == [3, 0, 2])
        store.withoutPropagation { store[.launchCount] = 9 }
        storage.writeElsewhere(9, forKey: "launchCount")  // what observers last heard was skipped, not 9
        #expect(heard.all == [3, 0, 2])
    }

    @Test func aNameIsWatchedFromItsFirstObserverToItsLast() {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        #expect(storage.watchedNames.isEmpty)
        let first = store.observe(.launchCount) { _ in }
        let second = store.updates(.launchCount, .theme)
        #expect(storage.watchedNames == ["launchCount", "theme"])
        #expect(storage.started == 2)
        first.cancel()
        #expect(storage.watchedNames == ["launchCount", "theme"])
        _ = second
    }

    @Test func theLastObserverStopsTheWatch() {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        let first = store.observe(.launchCount) { _ in }
        let second = store.observe(.launchCount) { _ in }
        first.cancel()
        #expect(storage.watchedNames == ["launchCount"])
        second.cancel()
        #expect(storage.watchedNames.isEmpty)
        #expect(storage.started == 1 && storage.stopped == 1)
        let heard = Recorder<Int>()
        let third = store.observe(.launchCount) { heard.append($0.newValue) }
        storage.writeElsewhere(4, forKey: "launchCount")
        #expect(heard.all == [4])
        third.cancel()
    }

    // Ten minutes, not one: an async test's awaits resume only when Swift Testing's cooperative threads
    // (two on a 2-core machine) are free of synchronous tests, which under ThreadSanitizer is near the end
    // of the whole run (244 to 267 s in CI); a one-minute limit fired in one CI run of three.
    @Test(.timeLimit(.minutes(10))) @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func sequencesAndSwiftObservationHearIt() async {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        var values = store.updates(.theme).makeAsyncIterator()
        #expect(await values.next() == .system)
        storage.writeElsewhere("dark", forKey: "theme")
        #expect(await values.next() == .dark)

        let observed = Recorder<Bool>()
        let token = store.observe(.launchCount) { _ in }  // watches the name
        defer { token.cancel() }
        withObservationTracking {
            _ = store[.launchCount]
        } onChange: {
            observed.append(true)
        }
        storage.writeElsewhere(8, forKey: "launchCount")
        #expect(observed.all == [true])
    }

    /// A SwiftUI view or an `@Observable` model has no observer to start a watch with: once it asks,
    /// Observation hears another writer, and the watch outlives every observer.
    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func swiftObservationHearsAnotherWriterOnceAskedWithNoObserver() {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        func tracked() -> Recorder<Bool> {
            let heard = Recorder<Bool>()
            withObservationTracking {
                _ = store[.launchCount]
            } onChange: {
                heard.append(true)
            }
            return heard
        }
        let unasked = tracked()
        storage.writeElsewhere(1, forKey: "launchCount")
        #expect(unasked.all.isEmpty, "nothing watched the name: nothing could be heard")

        store.trackChangesElsewhere(of: .launchCount, .theme)
        store.trackChangesElsewhere(of: .launchCount)
        #expect(storage.watchedNames == ["launchCount", "theme"])
        #expect(storage.started == 2)
        let asked = tracked()
        storage.writeElsewhere(2, forKey: "launchCount")
        #expect(asked.all == [true])
        #expect(store[.launchCount] == 2)

        // An observer that comes and goes does not end the watch.
        store.observe(.launchCount) { _ in }.cancel()
        let afterObserver = tracked()
        storage.writeElsewhere(3, forKey: "launchCount")
        #expect(afterObserver.all == [true])
        #expect(storage.stopped == 0)
        // The library's own write is heard once, as always.
        let own = tracked()
        store[.launchCount] = 4
        #expect(own.all == [true])
    }

    /// A synced name changed by other means (the plain API, an app extension) is pushed like a change
    /// made through a store, with no observer.
    @Test func aSyncedNameChangedByOtherMeansIsPushed() throws {
        let storage = FakeObservedStorage()
        let store = DefaultsStore(storage: storage)
        let cloud = FakeCloud()
        let device = cloud.connect()
        store.sync(.launchCount, through: device, debounce: nil, clock: SimulatedClock().reading(skew: 0))
        storage.writeElsewhere(12, forKey: "launchCount")
        try store.flush()
        let entry = try #require(device.object(forKey: "launchCount") as? [String: Any])
        #expect(entry["value"] as? Int == 12)
    }
}
