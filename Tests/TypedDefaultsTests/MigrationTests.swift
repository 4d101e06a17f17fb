import Foundation
import ProbeSettings
import Testing
import TypedDefaults

// What an app moving over from sindresorhus/Defaults, SwiftyUserDefaults or Foil relies on: defaults
// that change while the app runs, one store for the whole app, the peers' observation habits, and a
// typed reset.

/// A default that changes while the app runs, from any thread: a remote configuration's value.
private final class RemoteConfiguration: @unchecked Sendable {
    // @unchecked: `limit` is guarded by `lock`.
    private let lock = NSLock()
    private var current: Int

    init(limit: Int) { current = limit }

    var limit: Int {
        get { lock.withLock { current } }
        set { lock.withLock { current = newValue } }
    }
}

@Suite("Defaults that change while the app runs")
struct ChangingDefaultTests {
    /// A computed key (one declaration, a key object made on each access) whose default comes from a
    /// remote configuration: no conflict, and each read gives the default of the key it was given,
    /// before and after a value is stored and removed.
    @Test func aComputedKeyReadsTheDefaultOfTheKeyItWasGiven() throws {
        try withSuite { suite, store in
            let configuration = RemoteConfiguration(limit: 10)
            let name = "remoteLimit." + suite
            var limit: UserDefaultTypedKey<Int> { UserDefaultTypedKey(name, defaultValue: configuration.limit) }
            #expect(store[limit] == 10)
            configuration.limit = 20
            #expect(store[limit] == 20)
            // Back to the first key's default: read as given, not as last registered.
            configuration.limit = 10
            #expect(store[limit] == 10)
            configuration.limit = 20
            #expect(store[limit] == 20)
            store[limit] = 5
            configuration.limit = 30
            #expect(store[limit] == 5)
            store.remove(limit)
            #expect(store[limit] == 30)
            // The plain API sees the default registered first; it never changes while the process runs.
            #expect(UserDefaults(suiteName: suite)?.object(forKey: name) as? Int == 10)
            #expect(UserDefaultTypedKeys.conflicts(among: [limit, limit]).isEmpty)
        }
    }

    /// Two key objects of one declaration with different defaults, each kept (as a `@UserDefault`
    /// keeps its key): each read gives the default of the key it was given, also when the other key
    /// registered its default last, and a stored value equal to the other's default reads as stored.
    /// Before, the first key read the other's default once that was registered.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func keptKeyObjectsOfOneDeclarationEachReadTheirOwnDefault(_ backend: Backend) throws {
        try withStore(backend) { store in
            func limit(_ value: Int) -> UserDefaultTypedKey<Int> {
                UserDefaultTypedKey("keptLimit", defaultValue: value)
            }
            let ten = limit(10)
            let twenty = limit(20)
            let reads: [Int] = [store[ten], store[twenty], store[ten], store[twenty]]
            #expect(reads == [10, 20, 10, 20])
            let modified = try store.modify(ten) { $0 += 1 }
            #expect(modified == 11 && store[twenty] == 11)
            store[ten] = 20
            let readsOfAStoredValue: [Int] = [store[ten], store[twenty]]
            #expect(readsOfAStoredValue == [20, 20])
            store.remove(twenty)
            let readsAfterRemoval: [Int] = [store[ten], store[twenty], store[ten]]
            #expect(readsAfterRemoval == [10, 20, 10])
        }
    }

    /// The same two key objects read on two threads at once: neither ever reads the other's default.
    /// Before, the first key read the other's in nearly every read.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func keptKeyObjectsReadOnTwoThreadsNeverGiveEachOthersDefault(_ backend: Backend) {
        withStore(backend) { store in
            func limit(_ value: Int) -> UserDefaultTypedKey<Int> {
                UserDefaultTypedKey("racedLimit", defaultValue: value)
            }
            let keys = [limit(10), limit(20)]
            let misreads = Recorder<Int>()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                let key = keys[index]
                var misread = 0
                for _ in 0..<20_000 where store[key] != key.defaultValue { misread += 1 }
                misreads.append(misread)
            }
            #expect(misreads.all == [0, 0])
        }
    }

    /// The computed shape Getting Started shows, with `Date.now`: every access makes another default.
    @Test func aComputedKeyWithADateOfNowIsNotAConflict() throws {
        try withSuite { suite, store in
            var lastReview: UserDefaultTypedKey<Date> { .init("lastReview." + suite, defaultValue: Date.now) }
            let first = lastReview
            let second = lastReview
            #expect(first.defaultValue != second.defaultValue)
            #expect(store[first] == first.defaultValue)
            #expect(store[second] == second.defaultValue)
        }
    }

    /// A default computed at each read: never registered, so the plain API sees nothing until a value is
    /// stored, and `hasKey` is false.
    @Test func aDefaultClosureIsCalledAtEachReadAndNeverRegistered() throws {
        try withSuite { suite, store in
            let configuration = RemoteConfiguration(limit: 1)
            let key = UserDefaultTypedKey<Int>("closureLimit." + suite, default: { configuration.limit })
            #expect(key.hasComputedDefault)
            #expect(store[key] == 1)
            configuration.limit = 2
            #expect(store[key] == 2)
            #expect(!store.hasKey(key))
            #expect(UserDefaults(suiteName: suite)?.object(forKey: key.name) == nil)
            store[key] = 7
            configuration.limit = 3
            #expect(store[key] == 7 && store.hasKey(key))
            store.remove(key)
            #expect(store[key] == 3)
        }
    }

    /// Two declarations of one name with different defaults are still a conflict, and the report prints
    /// dates to the fraction of a second: two dates a quarter of a second apart read differently.
    @Test func twoDeclarationsWithDifferentDatesAreAConflictThatPrintsThemExactly() {
        let now = Date(timeIntervalSinceReferenceDate: 800_000_000)
        let first = UserDefaultTypedKey<Date>("reviewed", defaultValue: now)
        let second = UserDefaultTypedKey<Date>("reviewed", defaultValue: now.addingTimeInterval(0.25))
        let conflicts = UserDefaultTypedKeys.conflicts(among: [first, second])
        #expect(conflicts.count == 1)
        #expect(conflicts.first?.first.contains("800000000.0") == true, "\(conflicts)")
        #expect(conflicts.first?.second.contains("800000000.25") == true, "\(conflicts)")
        #expect(conflicts.first?.second.contains("MigrationTests.swift") == true, "\(conflicts)")
        let closure = UserDefaultTypedKey<Date>("reviewed", default: { now })
        #expect(UserDefaultTypedKeys.conflicts(among: [first, closure]).count == 1)
    }

    /// In a process of its own (a release-built probe in `.ci/run`'s release step, a debug one here):
    /// a key from one declaration with three defaults, and a default closure, read with no trap.
    @Test func aProcessReadsChangingDefaultsWithoutStopping() throws {
        let result = try ProbeProcess.run(["changing-default", uniqueSuiteName()])
        #expect(result.status == 0, "\(result.standardError)")
        // The closure counts up: called once when the key is made (1), then at each read (2, 3).
        #expect(result.lines == ["10 20 2 3 30"])
    }
}

@Suite("One store for the whole app, chosen at launch")
struct BootstrapTests {
    /// The app chooses its suite once; a wrapper and a subscript in another module use it, and the
    /// standard suite is never written.
    @Test func aWrapperAndASubscriptInAnotherModuleUseTheStoreChosenAtLaunch() throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        let result = try ProbeProcess.run(["bootstrap", suite])
        #expect(result.lines == ["count=2"], "\(result.standardError)")
        #expect(try ProbeProcess.run(["plain-read", suite, "bootstrapCount"]).lines == ["2"])
        #if os(Linux)
            // The probe's standard suite, in the test run's configuration folder.
            let standard = testConfigHome.appendingPathComponent("typed-defaults-probe.plist")
            #expect(propertyList(at: standard)?["bootstrapCount"] == nil)
        #endif
    }

    /// A bootstrap after `Defaults` was used, or a second one, stops a debug build with a message that
    /// says what happened. A second call after the first one's store was used (the losing call of two at
    /// once) is a second call: before, it said the first use came before it.
    @Test(arguments: [("late", "after Defaults"), ("twice", "called twice"), ("twice-after-use", "called twice")])
    func aLateOrSecondBootstrapIsAClearErrorInDebugBuilds(mode: String, message: String) throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        let result = try ProbeProcess.run(["bootstrap", suite, mode])
        #if DEBUG
            #expect(result.reason == .uncaughtSignal, "\(result.standardOutput)")
            #expect(result.standardError.contains(message), "\(result.standardError)")
        #endif
    }
}

@Suite("The peers' observation habits")
struct PeerHabitTests {
    /// `updates(_:initial: false)`: only values after changes, none lost between the call and the loop.
    /// (Ten minutes: see `sequencesAndSwiftObservationHearIt`.)
    @Test(.timeLimit(.minutes(10))) func updatesWithoutTheInitialValueGivesOnlyChanges() async {
        await withStore(.userDefaultsSuite) { store in
            store[.launchCount] = 1
            var iterator = store.updates(.launchCount, initial: false).makeAsyncIterator()
            store[.launchCount] = 2
            store[.launchCount] = 3
            #expect(await iterator.next() == 2)
            #expect(await iterator.next() == 3)
        }
    }

    @Test(.timeLimit(.minutes(10))) func updatesOfSeveralKeysWithoutTheInitialElementYieldsOnceAChange() async {
        await withStore(.userDefaultsSuite) { store in
            var iterator = store.updates(.launchCount, .theme, initial: false).makeAsyncIterator()
            store[.theme] = .dark
            #expect(await iterator.next() != nil)
            #expect(store[.theme] == .dark)
        }
    }
}

@Suite("A typed reset")
struct TypedResetTests {
    /// "Reset the settings but keep the session": every value but the kept keys' is removed, observers
    /// hear it, and a new process reads the result from the file.
    @Test func removeAllExceptKeepsTheGivenKeysAndIsObservedAndSaved() throws {
        try withSuite { suite, store in
            let session = UserDefaultTypedKey<String?>("session")
            store[session] = "token"
            store[.launchCount] = 4
            store[.theme] = .dark
            UserDefaults(suiteName: suite)?.set("plain", forKey: "plainName")
            let heard = Recorder<Theme>()
            let token = store.observe(.theme) { heard.append($0.newValue) }
            defer { token.cancel() }
            store.removeAll(except: session)
            #expect(store[session] == "token")
            #expect(store[.launchCount] == 0 && store[.theme] == .system)
            #expect(UserDefaults(suiteName: suite)?.object(forKey: "plainName") == nil)
            #expect(heard.all == [.system])
            try store.flush()
            let read = try ProbeProcess.run(["plain-read", suite, "session", "launchCount", "theme"])
            #expect(read.lines == ["token", "nil", "nil"])
        }
    }
}

@Suite("NSSecureCoding objects, stored as keyed archives")
struct ArchivedObjectTests {
    static let red = Swatch(name: "red", level: 1)
    static let blue = Swatch(name: "blue", level: 2)

    /// One object, an array and a dictionary of them, written here and read in another process.
    @Test func archivedObjectsReadBackInAnotherProcess() throws {
        try withSuite { suite, store in
            store[.swatch] = Self.red
            store[.swatches] = [Self.red, Self.blue]
            store[.swatchesByName] = ["b": Self.blue]
            #expect(store[.swatch] == Self.red)
            #expect(UserDefaults(suiteName: suite)?.object(forKey: "swatch") is Data)
            try store.flush()
            let read = try ProbeProcess.run(["swatches", suite])
            #expect(read.lines == ["red:1", "red:1 blue:2", "b=blue:2"], "\(read.standardError)")
        }
    }

    /// The peers' forms: sindresorhus/Defaults archives each object (with secure coding; an array holds
    /// one archive per element); SwiftyUserDefaults archives the whole value, an array included, without
    /// secure coding.
    @Test func thePeersArchivesRead() throws {
        try withSuite { suite, store in
            let plain = try #require(UserDefaults(suiteName: suite))
            let one = try NSKeyedArchiver.archivedData(withRootObject: Self.blue, requiringSecureCoding: true)
            let each = try [Self.red, Self.blue].map {
                try NSKeyedArchiver.archivedData(withRootObject: $0, requiringSecureCoding: true)
            }
            let whole = try NSKeyedArchiver.archivedData(
                withRootObject: [Self.red, Self.blue], requiringSecureCoding: false)
            plain.set(one, forKey: "swatch")
            plain.set(each, forKey: "swatches")
            #expect(store[.swatch] == Self.blue)
            #expect(store[.swatches] == [Self.red, Self.blue])
            plain.set(whole, forKey: "swatches")
            #expect(store[.swatches] == [Self.red, Self.blue])
        }
    }

    /// A keyed archive whose root is a UID of 8 bytes, past what an `Int` holds: the key's default, and
    /// the process goes on. Before, the library's own archive reader stopped the process converting it.
    @Test func anArchiveWithAUIDPastIntReadsAsTheDefault() async {
        await #expect(processExitsWith: .success) {
            let ascii = { (text: String) in [0x50 | UInt8(text.utf8.count)] + Array(text.utf8) }
            let archive = handMadeBinaryPropertyList([
                [0xD4, 1, 2, 3, 4, 5, 6, 7, 8],  // {$archiver, $top, $objects, $version}
                ascii("$archiver"), ascii("$top"), ascii("$objects"), ascii("$version"),
                [0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8),
                [0xD1, 9, 10],  // {root: UID}
                [0xA1, 11],  // [$null]
                [0x12, 0x00, 0x01, 0x86, 0xA0],  // 100000
                ascii("root"), [0x87] + Array(repeating: 0xFF, count: 8), ascii("$null"),
            ])
            let store = DefaultsStore(storage: InMemoryStorage())
            store.storage.set(archive, forKey: "swatch")
            if store[.swatch] != nil { exit(1) }
        }
    }

    /// An archive of another class, a truncated or flipped one, plain bytes: the key's default, and the
    /// process goes on (swift-corelibs-foundation's unarchiver would stop it on a foreign class).
    @Test func aForeignOrCorruptArchiveReadsAsTheDefault() throws {
        try withSuite { suite, store in
            let plain = try #require(UserDefaults(suiteName: suite))
            let good = try NSKeyedArchiver.archivedData(withRootObject: Self.red, requiringSecureCoding: true)
            let foreign = try NSKeyedArchiver.archivedData(
                withRootObject: ["not", "a", "swatch"] as NSArray, requiringSecureCoding: true)
            let foreignArray = try NSKeyedArchiver.archivedData(
                withRootObject: ["a", "b"], requiringSecureCoding: false)
            var flipped = [UInt8](good)
            for index in stride(from: 8, to: flipped.count - 32, by: 7) { flipped[index] ^= 0x5A }
            let bad: [Data] = [foreign, good.dropLast(20), Data(flipped), Data("bplist00garbage".utf8), Data()]
            for data in bad {
                plain.set(data, forKey: "swatch")
                #expect(store[.swatch] == nil)
            }
            plain.set(foreignArray, forKey: "swatches")
            #expect(store[.swatches] == [])
            plain.set([foreign, good], forKey: "swatches")
            #expect(store[.swatches] == [])
        }
    }
}

/// A class of the app's own that is both `Codable` and `NSSecureCoding`: stored as JSON text.
final class Bookmark: NSObject, NSSecureCoding, Codable, UserDefaultConvertible, @unchecked Sendable {
    // @unchecked: immutable after init.
    static var supportsSecureCoding: Bool { true }
    let path: String

    init(path: String) { self.path = path }
    required init?(coder: NSCoder) {
        guard let path = coder.decodeObject(of: NSString.self, forKey: "path") else { return nil }
        self.path = path as String
    }
    func encode(with coder: NSCoder) { coder.encode(path as NSString, forKey: "path") }
}

/// The same, declared to be stored as a keyed archive.
final class ArchivedBookmark: NSObject, NSSecureCoding, Codable, UserDefaultKeyedArchive, @unchecked Sendable {
    // @unchecked: immutable after init.
    static var supportsSecureCoding: Bool { true }
    let path: String

    init(path: String) { self.path = path }
    required init?(coder: NSCoder) {
        guard let path = coder.decodeObject(of: NSString.self, forKey: "path") else { return nil }
        self.path = path as String
    }
    func encode(with coder: NSCoder) { coder.encode(path as NSString, forKey: "path") }
}

/// An `NSSecureCoding` class the archiver cannot name on Linux: nested in another type.
enum Tokens {
    final class Token: NSObject, NSSecureCoding, UserDefaultConvertible, @unchecked Sendable {
        // @unchecked: immutable after init.
        static var supportsSecureCoding: Bool { true }
        let value: Int

        init(value: Int) { self.value = value }
        required init?(coder: NSCoder) { value = coder.decodeInteger(forKey: "value") }
        func encode(with coder: NSCoder) { coder.encode(value, forKey: "value") }
    }
}

@Suite("Archived classes: which form, and which classes")
struct ArchivedClassTests {
    /// A class that is `Codable` and `NSSecureCoding` compiles with one storage form: JSON text, as
    /// sindresorhus/Defaults stores it; `UserDefaultKeyedArchive` chooses the keyed archive. Before, the
    /// two conformances gave "multiple matching initializers named 'init(userDefaultsObject:)'".
    @Test func aCodableSecureCodingClassIsJSONUnlessItAsksForTheArchive() throws {
        let store = DefaultsStore(storage: InMemoryStorage())
        let json = UserDefaultTypedKey<Bookmark?>("bookmark")
        let archived = UserDefaultTypedKey<ArchivedBookmark?>("archivedBookmark")
        store[json] = Bookmark(path: "/a")
        store[archived] = ArchivedBookmark(path: "/b")
        #expect(store.storage.object(forKey: json.name) as? String == #"{"path":"\/a"}"#)
        #expect(store.storage.object(forKey: archived.name) is Data)
        #expect(store[json]?.path == "/a")
        #expect(store[archived]?.path == "/b")
    }

    /// A class the archiver cannot name (nested in a type, or `private`) stops no process: on Linux its
    /// writes are refused and reported and its reads give the default, from the first key made. Before,
    /// making a key with such a default stopped the process ("is not a top-level class").
    @Test func aClassTheArchiverCannotNameStopsNothing() async {
        await #expect(processExitsWith: .success) {
            let key = UserDefaultTypedKey<Tokens.Token>("token", defaultValue: Tokens.Token(value: 1))
            let store = DefaultsStore(storage: InMemoryStorage())
            store[key] = Tokens.Token(value: 2)
            #if os(Linux)
                if store[key].value != 1 { exit(1) }
                if (try? store.set(Tokens.Token(value: 3), for: key)) != nil { exit(2) }
            #else
                if store[key].value != 2 { exit(1) }
            #endif
        }
    }
}
