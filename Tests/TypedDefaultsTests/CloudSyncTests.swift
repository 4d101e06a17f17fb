import Foundation
import Observation
import Testing
import TypedDefaults

private let syncedCount = UserDefaultTypedKey<Int>("syncCount", defaultValue: 0)
private let syncedName = UserDefaultTypedKey<String?>("syncName")
private let syncedTags = UserDefaultTypedKey<[String]>("syncTags", defaultValue: [])
private let localOnly = UserDefaultTypedKey<Int>("syncLocalOnly", defaultValue: 0)
private let syncedSize = UserDefaultTypedKey<Double>("syncSize", defaultValue: 12)

/// One app install on one device: a store over its own storage, syncing through the device's copy of
/// the simulated cloud. `relaunch` ends the app and starts it again over the same storage and copy.
private final class SimulatedApp {
    let storage = InMemoryStorage()
    let device: FakeCloud.Device
    let clock: @Sendable () -> Double
    private(set) var store: DefaultsStore

    init(_ cloud: FakeCloud, clock: @escaping @Sendable () -> Double) {
        device = cloud.connect()
        self.clock = clock
        store = DefaultsStore(storage: storage)
        launch()
    }

    private func launch() {
        store.sync(syncedCount, syncedName, syncedTags, syncedSize, through: device, debounce: nil, clock: clock)
    }

    func relaunch() {
        store = DefaultsStore(storage: InMemoryStorage())  // the old store (and its sync) ends
        store = DefaultsStore(storage: storage)
        launch()
    }

    func flush() throws { try store.flush() }

    /// Ends the app, runs `body` in a run of it that does not sync (an app extension, an older version
    /// of the app) over the same storage, and launches the app again.
    func runWithoutSync(_ body: (DefaultsStore) -> Void) {
        store = DefaultsStore(storage: InMemoryStorage())  // the old store (and its sync) ends
        body(DefaultsStore(storage: storage))
        store = DefaultsStore(storage: storage)
        launch()
    }
}

/// A version's time as a hostile cloud entry may give it.
enum ForgedTime: String, CaseIterable, Sendable {
    case notANumber, infinity, largest, farFuture, text, textOfANumber
    var object: Any {
        switch self {
        case .notANumber: Double.nan
        case .infinity: Double.infinity
        case .largest: Double.greatestFiniteMagnitude
        case .farFuture: 1e15
        case .text: "inf"
        case .textOfANumber: "2000"
        }
    }
}

@Suite("Sync across devices: the engine, over a simulated cloud")
struct CloudSyncTests {
    /// Two devices on one simulated cloud with one clock, each past its first fetch.
    private func twoDevices() -> (FakeCloud, SimulatedClock, SimulatedApp, SimulatedApp) {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let first = SimulatedApp(cloud, clock: time.reading(skew: 0))
        let second = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()
        return (cloud, time, first, second)
    }

    // MARK: The simulation

    /// Three devices write, remove and push at random while the cloud delays, reorders, duplicates,
    /// drops and replays deliveries, and apps relaunch; once the network settles, every device holds
    /// the newest value of every synced key (a removal included), so does a new device that joins then,
    /// and the unsynced key never reached the cloud. Device clocks are skewed by up to 50 ms; changes are at least 110 ms apart, so "newest" is
    /// the order they were made in. Seeds 0 to 299 in the long run (`runsLongTests`), the first 150 in
    /// `swift test`.
    @Test func afterAnySeededScheduleEveryDeviceHoldsTheNewestValueOfEveryKey() throws {
        let schedules = runsLongTests ? 300 : 150
        for seed in 0..<UInt64(schedules) {
            try runSchedule(seed: seed)
        }
        print("cloud sync: \(schedules) seeded schedules, 3 devices, 150 steps each")
    }

    private func runSchedule(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let apps = (0..<3).map { _ in
            SimulatedApp(cloud, clock: time.reading(skew: Double.random(in: -0.05...0.05, using: &random)))
        }
        // The newest change of each key: its value, nil for a removal.
        var newest: [String: Any?] = [:]
        var written = 0
        for _ in 0..<150 {
            time.advance(by: Double.random(in: 0.11...0.5, using: &random))
            let app = apps.randomElement(using: &random)!
            switch Int.random(in: 0..<100, using: &random) {
            case 0..<30:
                written += 1
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    app.store[syncedCount] = written
                    newest[syncedCount.name] = written
                case 1:
                    app.store[syncedName] = "name \(written)"
                    newest[syncedName.name] = "name \(written)"
                default:
                    app.store[syncedTags] = ["tag \(written)"]
                    newest[syncedTags.name] = ["tag \(written)"]
                }
            case 30..<38:
                let key = [syncedCount.name, syncedName.name, syncedTags.name].randomElement(using: &random)!
                switch key {
                case syncedCount.name: app.store.remove(syncedCount)
                case syncedName.name: app.store.remove(syncedName)
                default: app.store.remove(syncedTags)
                }
                newest[key] = .some(nil)
            case 38..<43:
                app.store[localOnly] += 1
            case 43..<58:
                try app.flush()
            case 58..<61:
                app.relaunch()
            default:
                cloud.step(&random)
            }
        }
        // The network settles: every message arrives, and every device pushes what it has left.
        for _ in 0..<10 {
            cloud.settle(&random)
            for app in apps { try app.flush() }
            if cloud.messagesInFlight == 0 { break }
        }
        #expect(cloud.messagesInFlight == 0, "seed \(seed): the devices never stopped pushing")
        // A new device joins once the network settled: the cloud itself holds the newest values.
        let newcomer = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()
        for (index, app) in (apps + [newcomer]).enumerated() {
            let expectedCount = newest[syncedCount.name].map { $0 as? Int ?? 0 } ?? 0
            let expectedName = newest[syncedName.name].flatMap { $0 as? String }
            let expectedTags = newest[syncedTags.name].map { $0 as? [String] ?? [] } ?? []
            #expect(app.store[syncedCount] == expectedCount, "seed \(seed), device \(index)")
            #expect(app.store[syncedName] == expectedName, "seed \(seed), device \(index)")
            #expect(app.store[syncedTags] == expectedTags, "seed \(seed), device \(index)")
        }
        #expect(!cloud.everUploaded.contains(localOnly.name), "seed \(seed)")
        #expect(cloud.everUploaded.isSubset(of: [syncedCount.name, syncedName.name, syncedTags.name]))
    }

    // MARK: Named cases

    @Test func aNewInstallWhileTheCloudHoldsValuesPullsFirstAndPushesNoDefault() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let first = SimulatedApp(cloud, clock: time.reading(skew: 0))
        first.store[syncedCount] = 7
        first.store[syncedSize] = 15
        try first.flush()
        cloud.deliverAll()

        // Launched before its first fetch arrived: the copy is empty, and nothing is pushed.
        time.advance(by: 60)
        let second = SimulatedApp(cloud, clock: time.reading(skew: 0))
        try second.flush()
        #expect(cloud.uploads(from: second.device.index) == 0)
        #expect(second.store[syncedCount] == 0)
        cloud.deliverAll()
        #expect(second.store[syncedCount] == 7)
        #expect(second.store[syncedSize] == 15)
        try second.flush()
        #expect(cloud.uploads(from: second.device.index) == 0)
        #expect(first.store[syncedCount] == 7)

        // Relaunched after it: the values are there, and still nothing is pushed.
        second.relaunch()
        #expect(second.store[syncedCount] == 7)
        try second.flush()
        cloud.deliverAll()
        #expect(cloud.uploads(from: second.device.index) == 0)
    }

    @Test func aSecondDeviceLaunchedBeforeTheFirstOnesPushArrivedTakesIt() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let first = SimulatedApp(cloud, clock: time.reading(skew: 0))
        let second = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()  // both initial fetches: an empty cloud
        first.store[syncedName] = "from the first"
        try first.flush()  // on its way, not arrived
        time.advance(by: 1)
        second.relaunch()
        try second.flush()
        #expect(cloud.uploads(from: second.device.index) == 0)
        cloud.deliverAll()
        #expect(second.store[syncedName] == "from the first")
    }

    /// Two devices change one key offline; the older change reaches the server last, yet the newer wins
    /// everywhere.
    @Test func offlineEditsOfOneKeyOnTwoDevicesEndWithTheNewerEverywhere() throws {
        let (cloud, time, first, second) = twoDevices()
        first.store[syncedCount] = 1
        time.advance(by: 10)
        second.store[syncedCount] = 2
        try second.flush()
        try first.flush()  // queued after the newer one: the server keeps the older, by arrival
        cloud.deliverAll()
        for _ in 0..<3 {
            try first.flush()
            try second.flush()
            cloud.deliverAll()
        }
        #expect(first.store[syncedCount] == 2)
        #expect(second.store[syncedCount] == 2)
        let onServer = try #require(cloud.serverValues[syncedCount.name] as? [String: Any])
        #expect(onServer["value"] as? Int == 2)
    }

    /// A change made here before an older cloud value arrives is kept, and pushed.
    @Test func aLocalChangeRacingAnOlderCloudValueIsKept() throws {
        let (cloud, time, first, second) = twoDevices()
        first.store[syncedTags] = ["older"]
        try first.flush()
        time.advance(by: 5)
        second.store[syncedTags] = ["newer"]
        cloud.deliverAll()  // the older value reaches the second device, which changed it since
        #expect(second.store[syncedTags] == ["newer"])
        try second.flush()
        cloud.deliverAll()
        #expect(first.store[syncedTags] == ["newer"])
    }

    /// A device whose clock is an hour behind still wins with a change made after it saw another's.
    @Test func aChangeMadeAfterSeeingAnotherWinsWhateverTheClocks() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let ahead = SimulatedApp(cloud, clock: time.reading(skew: 0))
        let behind = SimulatedApp(cloud, clock: time.reading(skew: -3_600))
        cloud.deliverAll()
        ahead.store[syncedCount] = 1
        try ahead.flush()
        cloud.deliverAll()
        #expect(behind.store[syncedCount] == 1)
        time.advance(by: 1)
        behind.store[syncedCount] = 2
        try behind.flush()
        cloud.deliverAll()
        #expect(ahead.store[syncedCount] == 2)
    }

    /// A value that came from the cloud is not pushed back, and nothing bounces between devices.
    @Test func noPingPong() throws {
        let (cloud, time, first, second) = twoDevices()
        for value in 1...5 {
            time.advance(by: 1)
            first.store[syncedCount] = value
            try first.flush()
            cloud.deliverAll()
            try second.flush()
            cloud.deliverAll()
        }
        #expect(second.store[syncedCount] == 5)
        #expect(cloud.uploads(from: first.device.index) == 5)
        #expect(cloud.uploads(from: second.device.index) == 0)
        #expect(cloud.messagesInFlight == 0)
    }

    /// Removal syncs as removal, and an older value does not come back.
    @Test func aRemovalSyncsAndNothingComesBack() throws {
        let (cloud, time, first, second) = twoDevices()
        first.store[syncedName] = "kept a while"
        try first.flush()
        cloud.deliverAll()
        #expect(second.store[syncedName] == "kept a while")
        time.advance(by: 1)
        second.store.remove(syncedName)
        try second.flush()
        cloud.deliverAll()
        #expect(first.store[syncedName] == nil)
        #expect(!first.store.hasKey(syncedName))
        first.relaunch()
        second.relaunch()
        cloud.deliverAll()
        try first.flush()
        try second.flush()
        cloud.deliverAll()
        #expect(first.store[syncedName] == nil && second.store[syncedName] == nil)
    }

    /// `removeAll()` and `removeAll(except:)` keep the engine's own record of versions: removing every
    /// value, then quitting before the push, the removals are pushed at the next launch and the cloud's
    /// old values never come back. Before, the record was removed with the values (in listing order, so
    /// sometimes after them), and the relaunched app took the cloud's old values as new.
    @Test(arguments: [false, true])
    func removingEverythingKeepsTheSyncsRecordAndPushesTheRemovals(keepingOne: Bool) throws {
        // The removal order is the storage's listing order: other names around the synced ones vary it.
        for others in 0..<20 {
            let (cloud, time, first, second) = twoDevices()
            first.store[syncedName] = "old"
            first.store[syncedCount] = 41
            for index in 0..<others { first.store[UserDefaultTypedKey<Int>("other\(index)", defaultValue: 0)] = index }
            try first.flush()
            cloud.deliverAll()
            time.advance(by: 1)
            if keepingOne {
                first.store.removeAll(except: syncedCount)
            } else {
                first.store.removeAll()
            }
            first.relaunch()  // quit within the push window
            cloud.deliverAll()
            try first.flush()
            cloud.deliverAll()
            try second.flush()
            cloud.deliverAll()
            for app in [first, second] {
                #expect(app.store[syncedName] == nil, "\(others) other names")
                #expect(app.store[syncedCount] == (keepingOne ? 41 : 0), "\(others) other names")
            }
            #expect(first.store.snapshot()["TypedDefaults.cloudSync"] == nil)
        }
    }

    /// A record of versions kept by an earlier release (no digests) tells nothing of changes made while
    /// not syncing: the first launch that reads it takes the stored values as unchanged, so another
    /// device's newer change is never overwritten by this device's older value. (Taking a missing digest
    /// as a change made now did that: both devices ended on the older value.)
    @Test func aRecordWithoutDigestsNeverOverwritesANewerChange() throws {
        let (cloud, time, first, second) = twoDevices()
        first.store[syncedCount] = 1
        try first.flush()
        cloud.deliverAll()
        time.advance(by: 1)
        second.store[syncedCount] = 2
        // An earlier release's record: the same versions, without digests.
        var saved = try #require(first.storage.object(forKey: "TypedDefaults.cloudSync") as? [String: Any])
        var records = try #require(saved["records"] as? [String: Any])
        for (name, record) in records {
            var entry = try #require(record as? [String: Any])
            entry["digest"] = nil
            records[name] = entry
        }
        saved["records"] = records
        first.runWithoutSync { store in store.storage.set(saved, forKey: "TypedDefaults.cloudSync") }
        try first.flush()
        cloud.deliverAll()
        try second.flush()
        cloud.deliverAll()
        try first.flush()
        cloud.deliverAll()
        #expect(first.store[syncedCount] == 2 && second.store[syncedCount] == 2)
    }

    /// The rule for a change made on a new install before the cloud's values arrive (SyncingAcrossDevices
    /// states it): it is a change like any other, and the newest change wins, so it replaces the cloud's
    /// value on every device. A launch counter incremented then starts over from 1.
    @Test func aChangeMadeBeforeTheFirstPullIsTheNewest() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let first = SimulatedApp(cloud, clock: time.reading(skew: 0))
        first.store[syncedCount] = 41
        try first.flush()
        cloud.deliverAll()
        time.advance(by: 60)
        let second = SimulatedApp(cloud, clock: time.reading(skew: 0))  // its first fetch not here yet
        second.store[syncedCount] += 1
        #expect(second.store[syncedCount] == 1)
        cloud.deliverAll()
        try second.flush()
        cloud.deliverAll()
        try first.flush()
        cloud.deliverAll()
        #expect(first.store[syncedCount] == 1 && second.store[syncedCount] == 1)
    }

    /// A change of a synced key made while the app was not syncing (an app extension, a run without
    /// `sync`) is a change of this device's: pushed at the next launch that syncs, and on every device in
    /// the end. Before, the devices stayed on the old and the new value for good.
    @Test func aChangeMadeWhileNotSyncingIsPushedAtTheNextLaunch() throws {
        let (cloud, time, first, second) = twoDevices()
        first.store[syncedCount] = 1
        first.store[syncedTags] = ["one"]
        try first.flush()
        cloud.deliverAll()
        #expect(second.store[syncedCount] == 1)
        time.advance(by: 1)
        first.runWithoutSync { store in
            store[syncedCount] = 2
            store.remove(syncedTags)
        }
        cloud.deliverAll()
        try first.flush()
        cloud.deliverAll()
        try second.flush()
        cloud.deliverAll()
        for app in [first, second] {
            #expect(app.store[syncedCount] == 2)
            #expect(app.store[syncedTags] == [])
        }
    }

    /// A value nested `levels` deep, as a hostile cloud entry may hold one.
    private static func nested(_ levels: Int) -> Any {
        var value: Any = 1
        for _ in 0..<levels { value = [value] }
        return value
    }

    #if os(Linux)
        /// A synced key receives a value nested deeper than a suite's file can keep: this device keeps its
        /// own value, and the suite's file stays readable, so another process reads every other key.
        /// Before, the value was stored, the next save wrote a file no reader could read, and the next
        /// launch read every key as its default.
        @Test func aCloudValueTooDeepForTheSuiteIsNotStored() throws {
            try withSuite { suite, store in
                let cloud = FakeCloud()
                let device = cloud.connect()
                store[UserDefaultTypedKey<Int>("count", defaultValue: 0)] = 5
                store.sync(syncedTags, through: device, debounce: nil, clock: SimulatedClock().reading(skew: 0))
                let entry: [String: Any] = [
                    "typedDefaults": 1, "modified": 2_000.0, "device": "other", "value": Self.nested(520),
                ]
                device.receive([(syncedTags.name, entry)], reason: .serverChange)
                #expect(store[syncedTags] == [])
                try store.flush()
                #expect(try ProbeProcess.run(["plain", suite]).lines == ["count=5"])
            }
        }
    #endif

    /// Values nested 10,000 levels deep in the cloud, under a synced name and under one the app never
    /// declared, neither stop the process nor are stored: the push measures every entry without
    /// recursion. Before, measuring them overflowed the stack at every `flush()`.
    @Test func deepCloudValuesNeverStopThePush() async {
        await #expect(processExitsWith: .success) {
            let cloud = FakeCloud()
            let device = cloud.connect()
            let store = DefaultsStore(storage: InMemoryStorage())
            store.sync(syncedTags, through: device, debounce: nil, clock: SimulatedClock().reading(skew: 0))
            let deep = CloudSyncTests.nested(10_000)
            let entry: [String: Any] = ["typedDefaults": 1, "modified": 2_000.0, "device": "other", "value": deep]
            device.receive([(syncedTags.name, entry), ("undeclared", deep)], reason: .serverChange)
            store[syncedTags] = ["mine"]
            try store.flush()
            if store[syncedTags] != ["mine"] { exit(1) }
        }
    }

    /// Observers and Swift's Observation hear a value that came from the cloud, with its old value.
    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func observersHearACloudChange() throws {
        let (cloud, _, first, second) = twoDevices()
        let heard = Recorder<String>()
        let token = second.store.observe(syncedCount) { heard.append("\($0.oldValue)->\($0.newValue)") }
        defer { token.cancel() }
        let tracked = Recorder<Bool>()
        withObservationTracking {
            _ = second.store[syncedCount]
        } onChange: {
            tracked.append(true)
        }
        first.store[syncedCount] = 4
        try first.flush()
        cloud.deliverAll()
        #expect(heard.all == ["0->4"])
        #expect(tracked.all == [true])
    }

    /// A value stored before syncing began (by the plain API, in a peer's form) is pushed when the
    /// cloud has none, and reads back on the other device.
    @Test func aValueStoredBeforeSyncingByThePlainAPIReadsBackElsewhere() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let storage = InMemoryStorage()
        storage.set(14, forKey: syncedSize.name)  // an Int, as the plain API's set(14, forKey:) stores it
        let device = cloud.connect()
        let store = DefaultsStore(storage: storage)
        cloud.deliverAll()
        store.sync(syncedSize, through: device, debounce: nil, clock: time.reading(skew: 0))
        try store.flush()
        let other = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()
        #expect(other.store[syncedSize] == 14)
    }

    /// A `Codable` value left as JSON text (sindresorhus/Defaults' form, and this library's) travels as
    /// that text and reads back typed on the other device.
    @Test func aValueInAPeersFormReadsBackElsewhere() throws {
        let (cloud, time, first, second) = twoDevices()
        let profileKey = UserDefaultTypedKey<Profile?>("syncProfile")
        second.store.sync(profileKey, through: second.device, debounce: nil, clock: time.reading(skew: 0))
        let json = #"{"name":"Ada","age":36}"#
        first.storage.set(json, forKey: profileKey.name)  // as the peer left it
        first.store.sync(profileKey, through: first.device, debounce: nil, clock: time.reading(skew: 0))
        try first.flush()
        cloud.deliverAll()
        let entry = try #require(second.device.object(forKey: profileKey.name) as? [String: Any])
        #expect(entry["value"] as? String == json)
        #expect(second.store[profileKey] == first.store[profileKey])
        #expect(second.store[profileKey] != nil)
    }

    // MARK: Limits, account, timing

    /// What the cloud would refuse is not pushed, and `flush()` says why; the value stays here.
    @Test func theCloudsLimitsAreCheckedBeforeAPush() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let app = SimulatedApp(cloud, clock: time.reading(skew: 0))
        let longName = UserDefaultTypedKey<Int>(String(repeating: "n", count: 65), defaultValue: 0)
        let big = UserDefaultTypedKey<Data?>("syncBig")
        app.store.sync(longName, big, through: app.device, debounce: nil, clock: time.reading(skew: 0))
        app.store[longName] = 1
        #expect(throws: DefaultsError.self) { try app.flush() }
        app.store[big] = Data(count: 1_100_000)
        do {
            try app.flush()
            Issue.record("a value over 1 MB was pushed")
        } catch let DefaultsError.syncRefused(key, reason) {
            #expect(key == "syncBig")
            #expect(reason.contains("1 MB"))
        }
        #expect(app.store[big]?.count == 1_100_000)
        #expect(cloud.uploads(from: app.device.index) == 0)
        #expect(app.device.dictionaryRepresentation().isEmpty)

        var keys: [UserDefaultTypedKey<Int>] = []
        for index in 0..<1_025 {
            let key = UserDefaultTypedKey<Int>("syncMany\(index)", defaultValue: 0)
            keys.append(key)
            app.store.sync(key, through: app.device, debounce: nil, clock: time.reading(skew: 0))
            app.store[key] = index
        }
        // Pushed in the order of their names: the last is one too many.
        do {
            try app.flush()
            Issue.record("a 1,025th key was pushed")
        } catch let DefaultsError.syncRefused(key, reason) {
            #expect(key == "syncMany999")
            #expect(reason.contains("1024 keys") || reason.contains("1,024 keys"))
        }
        #expect(app.device.dictionaryRepresentation().count == 1_024)
    }

    /// Several refused values at one `flush()`: it throws the first, and every other one is reported, not
    /// lost with it.
    @Test func aFlushWithSeveralRefusedValuesThrowsOneAndReportsTheOthers() throws {
        try withReportedErrors { reported in try flushSeveralRefusedValues(reported) }
    }

    private func flushSeveralRefusedValues(_ reported: ReportedErrors) throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let app = SimulatedApp(cloud, clock: time.reading(skew: 0))
        let names = ["syncRefusedFirst", "syncRefusedSecond", "syncRefusedThird"]
        let keys = names.map { UserDefaultTypedKey<Data?>($0) }
        for key in keys {
            app.store.sync(key, through: app.device, debounce: nil, clock: time.reading(skew: 0))
            app.store[key] = Data(count: 1_100_000)
        }
        var thrown: String?
        do {
            try app.flush()
        } catch let DefaultsError.syncRefused(key, _) {
            thrown = key
        }
        let others = reported.all.compactMap { error -> String? in
            if case .syncRefused(let key?, _) = error, names.contains(key) { key } else { nil }
        }
        #expect(thrown != nil, "flush() threw nothing")
        #expect(Set(others + [thrown].compactMap { $0 }) == Set(names), "thrown \(thrown ?? "-"), reported \(others)")
        #expect(others.count == 2)
    }

    /// A quota violation the cloud reports goes to `ErrorReporting`.
    @Test func aQuotaViolationIsReported() throws {
        withReportedErrors { reported in
            let cloud = FakeCloud()
            let app = SimulatedApp(cloud, clock: SimulatedClock().reading(skew: 0))
            cloud.deliverAll()
            app.device.report(.quotaViolation)
            #expect(
                reported.all.contains {
                    if case .syncRefused(nil, let reason) = $0 { reason.contains("quota") } else { false }
                })
        }
    }

    /// Another account: the values here stay; the new account's cloud values win for the keys it holds,
    /// and the others are pushed to it.
    @Test func anAccountChangeKeepsLocalValuesAndStartsOverWithTheNewCloud() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let app = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()
        app.store[syncedCount] = 3
        app.store[syncedName] = "mine"
        try app.flush()
        cloud.deliverAll()
        time.advance(by: 10)
        // Another account's cloud, where another device stored 40.
        let theirs: [String: Any] = ["typedDefaults": 1, "modified": 1.0, "device": "another", "value": 40]
        cloud.changeAccount(of: app.device, to: [syncedCount.name: theirs])
        #expect(app.store[syncedCount] == 40)
        #expect(app.store[syncedName] == "mine")
        try app.flush()
        let pushed = try #require(app.device.object(forKey: syncedName.name) as? [String: Any])
        #expect(pushed["value"] as? String == "mine")
    }

    /// A change is pushed after the debounce with no `flush()`, and at once by `flush()`.
    @Test func aChangeIsPushedAfterTheDebounceOrAtOnceByFlush() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let quick = cloud.connect()
        let quickStore = DefaultsStore(storage: InMemoryStorage())
        quickStore.sync(syncedCount, through: quick, debounce: 0.05, clock: time.reading(skew: 0))
        quickStore[syncedCount] = 1
        #expect(pollUntil { cloud.uploads(from: quick.index) == 1 })

        let slow = cloud.connect()
        let slowStore = DefaultsStore(storage: InMemoryStorage())
        slowStore.sync(syncedCount, through: slow, debounce: 3_600, clock: time.reading(skew: 0))
        slowStore[syncedCount] = 2
        #expect(cloud.uploads(from: slow.index) == 0)
        try slowStore.flush()
        #expect(cloud.uploads(from: slow.index) == 1)
    }

    /// A cloud value no store could hold, or not in the library's form, never traps: the first is
    /// ignored, the second read as the oldest version there is.
    @Test func hostileCloudValuesNeverTrap() throws {
        let cloud = FakeCloud()
        let time = SimulatedClock()
        let app = SimulatedApp(cloud, clock: time.reading(skew: 0))
        cloud.deliverAll()
        app.device.receive(
            [(syncedCount.name, NSNull()), (syncedName.name, 42), (syncedTags.name, ["typedDefaults": 1])],
            reason: .serverChange)
        #expect(app.store[syncedCount] == 0)
        #expect(app.store[syncedName] == nil)
        #expect(app.store[syncedTags] == [])
    }

    /// A cloud entry whose version is forged (a time that is `NaN`, infinite, the largest `Double`, far
    /// in the future, or text) is taken as no version: a device that never changed the key may take its
    /// value, but honest changes made after it win on every device, and alternating writes converge.
    /// Before, `NaN` made a device refuse every later value, infinity reverted a later write, and the
    /// largest `Double` left the device id deciding.
    @Test(arguments: ForgedTime.allCases)
    func forgedVersionsNeverBeatHonestChanges(_ forgedTime: ForgedTime) throws {
        let (cloud, time, first, second) = twoDevices()
        let forged: [String: Any] = [
            "typedDefaults": 1, "modified": forgedTime.object, "device": "zzzz", "value": 99,
        ]
        for app in [first, second] { app.device.receive([(syncedCount.name, forged)], reason: .serverChange) }
        for round in 1...6 {
            time.advance(by: 1)
            let writer = round.isMultiple(of: 2) ? second : first
            writer.store[syncedCount] = round
            try writer.flush()
            cloud.deliverAll()
            try first.flush()
            try second.flush()
            cloud.deliverAll()
            #expect(first.store[syncedCount] == round, "round \(round), forged \(forgedTime)")
            #expect(second.store[syncedCount] == round, "round \(round), forged \(forgedTime)")
        }
    }

    /// Local writes on four threads while cloud changes arrive on another: no write is lost to a cloud
    /// value that is older, and both devices end with the same value (ThreadSanitizer runs this too).
    @Test func writesOnManyThreadsBesideCloudDeliveriesConverge() throws {
        let (cloud, _, first, second) = twoDevices()
        let firstStore = first.store
        let secondStore = second.store
        let done = DispatchGroup()
        for thread in 0..<4 {
            DispatchQueue.global().async(group: done) {
                for index in 0..<50 {
                    firstStore[syncedCount] = thread * 1_000 + index
                    if index % 10 == 0 { try? firstStore.flush() }
                }
            }
        }
        DispatchQueue.global().async(group: done) {
            for index in 0..<50 {
                secondStore[syncedName] = "second \(index)"
                try? secondStore.flush()
                cloud.deliverAll()
            }
        }
        #expect(done.wait(timeout: .now() + waitLimit) == .success)
        for _ in 0..<3 {
            try first.flush()
            try second.flush()
            cloud.deliverAll()
        }
        #expect(first.store[syncedCount] == second.store[syncedCount])
        #expect(first.store[syncedName] == "second 49")
        #expect(second.store[syncedName] == "second 49")
    }
}
