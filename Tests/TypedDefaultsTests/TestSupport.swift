import Foundation
import Testing
import TypedDefaults

// MARK: Backends and stores

/// Whether this is a debug build: key conflicts stop a debug build and only warn in a release build.
#if DEBUG
    let isDebugBuild = true
#else
    let isDebugBuild = false
#endif

/// The backends the core behaviour must hold on alike.
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case userDefaultsSuite, inMemory, minimalCustom
    var testDescription: String { rawValue }
}

/// A backend with only the four required methods, as a user would write one.
final class MinimalStorage: KeyValueStorage, @unchecked Sendable {
    private let lock = NSLock()
    private var stored: [String: Any] = [:]
    private var registered: [String: Any] = [:]

    func object(forKey key: String) -> Any? {
        lock.lock()
        defer { lock.unlock() }
        return stored[key] ?? registered[key]
    }
    func set(_ object: Any?, forKey key: String) {
        lock.lock()
        defer { lock.unlock() }
        stored[key] = object
    }
    func removeObject(forKey key: String) {
        lock.lock()
        defer { lock.unlock() }
        stored[key] = nil
    }
    func register(defaults: [String: Any]) {
        lock.lock()
        defer { lock.unlock() }
        registered.merge(defaults) { _, new in new }
    }
}

/// A unique suite name, so tests run in parallel without sharing values.
func uniqueSuiteName(_ label: String = #function) -> String {
    let cleaned = label.filter { $0.isLetter || $0.isNumber }
    return "typed-defaults-tests.\(cleaned).\(UUID().uuidString)"
}

/// Runs `body` with a fresh store on `backend`, and removes what it stored afterwards.
func withStore<Result>(
    _ backend: Backend = .userDefaultsSuite, keyPrefix: String = "", label: String = #function,
    _ body: (DefaultsStore) throws -> Result
) rethrows -> Result {
    switch backend {
    case .userDefaultsSuite:
        let suiteName = uniqueSuiteName(label)
        defer { DefaultsStore.removeSuite(named: suiteName) }
        return try body(DefaultsStore(suiteName: suiteName, keyPrefix: keyPrefix)!)
    case .inMemory:
        return try body(DefaultsStore(storage: InMemoryStorage(), keyPrefix: keyPrefix))
    case .minimalCustom:
        return try body(DefaultsStore(storage: MinimalStorage(), keyPrefix: keyPrefix))
    }
}

/// `withStore` for async tests; `body` runs on the caller's actor.
func withStore<Result>(
    _ backend: Backend = .userDefaultsSuite, label: String = #function,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (DefaultsStore) async throws -> Result
) async rethrows -> Result {
    switch backend {
    case .userDefaultsSuite:
        let suiteName = uniqueSuiteName(label)
        defer { DefaultsStore.removeSuite(named: suiteName) }
        return try await body(DefaultsStore(suiteName: suiteName)!)
    case .inMemory:
        return try await body(DefaultsStore(storage: InMemoryStorage()))
    case .minimalCustom:
        return try await body(DefaultsStore(storage: MinimalStorage()))
    }
}

// MARK: Types and keys the tests share

enum Theme: String, UserDefaultConvertible, CaseIterable { case light, dark, system }
enum Mood: String, Codable, UserDefaultConvertible { case calm, busy }
enum Level: Int, UserDefaultConvertible {
    case low = 1
    case high = 2
}

struct Profile: Codable, Equatable, Hashable, UserDefaultConvertible {
    var name: String
    var age: Int
}

struct Permissions: OptionSet, UserDefaultConvertible {
    let rawValue: Int
    static let read = Permissions(rawValue: 1)
    static let write = Permissions(rawValue: 2)
}

extension UserDefaultTypedKeys {
    static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
    static let username = UserDefaultTypedKey<String?>("username")
    static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .system)
    static let recent = UserDefaultTypedKey<[String]>("recent", defaultValue: [])
    static let scores = UserDefaultTypedKey<[String: Int]>("scores", defaultValue: [:])
    static let profile = UserDefaultTypedKey<Profile?>("profile")
    static let mood = UserDefaultTypedKey<Mood>("mood", defaultValue: .calm)
    static let permissions = UserDefaultTypedKey<Permissions>("permissions", defaultValue: [.read])
}

// MARK: Round trips and counting

/// Writes `value` through a fresh key and reads it back through another key object of the same name,
/// so the read goes through storage, not through any cache of the written value.
func roundTrip<Value: UserDefaultConvertible & Equatable>(
    _ value: Value, default defaultValue: Value, in store: DefaultsStore, name: String = "value"
) -> Value {
    store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)] = value
    return store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)]
}

/// A storage that counts its `register(defaults:)` calls.
final class CountingStorage: KeyValueStorage, @unchecked Sendable {
    let inner = InMemoryStorage()
    private let lock = NSLock()
    private var calls = 0
    var registerCalls: Int { lock.withLock { calls } }
    func object(forKey key: String) -> Any? { inner.object(forKey: key) }
    func set(_ object: Any?, forKey key: String) { inner.set(object, forKey: key) }
    func removeObject(forKey key: String) { inner.removeObject(forKey: key) }
    func register(defaults: [String: Any]) {
        lock.withLock { calls += 1 }
        inner.register(defaults: defaults)
    }
}

// MARK: Random property lists

/// A small seeded generator, so a failure names a seed that reproduces it.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random property-list values, biased towards the ones that trip conversions: boundaries, text that
/// looks like numbers, dates, URLs, JSON and property-list syntax, and wrong elements deep inside.
struct PropertyListGenerator {
    var random: SplitMix64

    static let texts = [
        "", "YES", "no", "true", "0", "1", "3", "-1", "2.5", "1e400", "nan", "inf", "300", "18446744073709551616",
        "(a, b)", "{a = 1; b = (2);}", "(", "{\"name\":\"x\",\"age\":3}", "{\"name\":1}", "[1,2]", "null",
        "https://example.com/a?b=c#d", "/tmp/x y", "~/z", "mailto:a@b.c", "not a url", "::",
        "2026-01-01T00:00:00Z", "2026-01-01T00:00:00.5Z", "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "light", "dark", "system", "✓ ünïcødé", String(repeating: "x", count: 300),
    ]
    static var numbers: [Any] { numberValues }
    private static let numberValues: [any Sendable] = [
        0, 1, -1, 2, 127, 128, 255, 256, 300, -129, 32767, 65536, Int.max, Int.min, Int64.max, UInt64.max,
        0.0, -0.0, 0.5, 1.0, 2.5, -2.5, 1e19, 1e300, -1e300, Double.nan, Double.infinity, -Double.infinity,
        Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, Float(1.5), Float.nan, true, false,
    ]

    mutating func value(depth: Int = 0) -> Any {
        let choice = Int(random.next() % (depth < 3 ? 9 : 6))
        switch choice {
        case 0: return Self.numbers.randomElement(using: &random)!
        case 1: return Int(truncatingIfNeeded: random.next())
        case 2: return Double(bitPattern: random.next())
        case 3: return Self.texts.randomElement(using: &random)!
        case 4: return Data((0..<Int(random.next() % 20)).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        case 5:
            return Date(timeIntervalSince1970: Double(Int64(truncatingIfNeeded: random.next()) % 10_000_000_000) / 1000)
        case 6, 7:
            return (0..<Int(random.next() % 4)).map { _ in value(depth: depth + 1) }
        default:
            var dictionary: [String: Any] = [:]
            for _ in 0..<Int(random.next() % 4) {
                dictionary[Self.texts.randomElement(using: &random)!] = value(depth: depth + 1)
            }
            return dictionary
        }
    }
}

/// Converts `object` to `Value`; a value that comes out must survive its own round trip unchanged
/// (the faithful value), else the conversion gave something it cannot store again.
func checkFaithful<Value: UserDefaultConvertible & Equatable>(_ type: Value.Type, _ object: Any) -> String? {
    guard let value = Value(userDefaultsObject: object) else { return nil }
    guard let stored = value.userDefaultsObject, let again = Value(userDefaultsObject: stored) else {
        return "\(Value.self) read \(object) as \(value) but cannot store it again"
    }
    let same = again == value || equivalentPropertyLists(stored, again.userDefaultsObject as Any)
    return same ? nil : "\(Value.self) read \(object) as \(value), which stores back as \(again)"
}

/// Property-list equality in which NaN equals NaN (a Double NaN is a faithful value, yet never `==`).
func equivalentPropertyLists(_ first: Any, _ second: Any) -> Bool {
    switch (first, second) {
    case (let first as [Any], let second as [Any]):
        return first.count == second.count && zip(first, second).allSatisfy(equivalentPropertyLists)
    case (let first as [String: Any], let second as [String: Any]):
        return first.count == second.count
            && first.allSatisfy { key, value in second[key].map { equivalentPropertyLists(value, $0) } ?? false }
    case (let first as Double, let second as Double):
        return first == second || (first.isNaN && second.isNaN)
    case (let first as Float, let second as Float):
        return first == second || (first.isNaN && second.isNaN)
    default:
        return "\(first)" == "\(second)"
    }
}

// MARK: Keys only some tests use

extension UserDefaultTypedKeys {
    static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }
    static var lastSearch: UserDefaultTypedKey<String?> { .init() }
    static let legacyTheme = UserDefaultTypedKey<String>("theme", defaultValue: "system")
    // Read only inside an exit test: Swift passes the type's name for `#function` in a `static let`.
    static let nameless = UserDefaultTypedKey<Int>(defaultValue: 0)
}

// MARK: Reading what the plain API stored

/// Stores `object` with the storage's own API and reads it through a key of type `Value`.
func read<Value: UserDefaultConvertible>(
    _ object: Any, as type: Value.Type, default defaultValue: Value, in store: DefaultsStore
) -> Value {
    // A name per read: one name with two types or defaults is a conflict the library reports.
    let name = "probe.\(UUID().uuidString)"
    store.storage.set(object, forKey: name)
    return store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)]
}

// MARK: Recording callbacks

/// Collects what callbacks receive, from any thread.
final class Recorder<Element: Sendable>: Sendable {
    private let lock = NSLock()
    nonisolated(unsafe) private var elements: [Element] = []
    func append(_ element: Element) {
        lock.lock()
        elements.append(element)
        lock.unlock()
    }
    var all: [Element] {
        lock.lock()
        defer { lock.unlock() }
        return elements
    }
}

// MARK: What the probe writes

/// What `typed-defaults-probe dump` prints after `typed-defaults-probe write`: every date to the
/// microsecond, every URL exactly.
let fixtureLines = [
    "count=42",
    "date=1700000000.123456",
    "dates=0.001000,1800000000.500000",
    "theme=dark",
    "profile=Ada@-4000000000.250000",
    "urls=https://example.com/p?q=1&r=a%20b#frag https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4 "
        + "mailto:ada@example.com?subject=Hi%20there ftp://user@ftp.example.com:2121/pub/file.txt "
        + "file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt www.example.com //example.com/a?b=1 /a/path?q=1#f",
    "urlsByName=file:file:///tmp/a%20dir/%C3%BCn%C3%AF%20c%C3%B8d%C3%A9.txt first:https://example.com/p?q=1&r=a%20b#frag",
    "homepage=https://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%A4",
]

// MARK: The probe, a real child process

/// Runs `typed-defaults-probe`, the package's small executable, as a real child process.
struct ProbeProcess {
    struct Output {
        let status: Int32
        let reason: Process.TerminationReason
        let standardOutput: String
        let standardError: String
        var lines: [String] { standardOutput.split(separator: "\n").map(String.init) }
    }

    /// The probe built beside the test binary (SwiftPM builds it, as a dependency of the tests). On
    /// Linux the test binary is the main executable; on macOS tests run inside `xctest`, and the test
    /// bundle is among the loaded bundles.
    static let executable: URL? = {
        let starts =
            [Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])]
            + Bundle.allBundles.map(\.bundleURL)
        for start in starts {
            var directory = start
            for _ in 0..<6 {
                directory.deleteLastPathComponent()
                let candidate = directory.appendingPathComponent("typed-defaults-probe")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        return nil
    }()

    /// The folder SwiftPM built the probe, the library's module and its resource bundle into.
    static var productsDirectory: URL? { executable?.deletingLastPathComponent() }

    let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errors = Pipe()

    /// Starts the probe with `environment` over the tests' own, without the variables in `unsetting`,
    /// in `directory` when given.
    init(
        _ arguments: [String], environment: [String: String] = [:], unsetting: [String] = [],
        directory: URL? = nil
    ) throws {
        guard let executable = Self.executable else {
            throw CocoaError(
                .fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "typed-defaults-probe is not built"])
        }
        process.executableURL = executable
        process.arguments = arguments
        var merged = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        for name in unsetting { merged[name] = nil }
        process.environment = merged
        if let directory { process.currentDirectoryURL = directory }
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
    }

    /// Runs the probe to the end.
    static func run(
        _ arguments: [String], environment: [String: String] = [:], unsetting: [String] = [], directory: URL? = nil
    ) throws -> Output {
        let probe = try ProbeProcess(arguments, environment: environment, unsetting: unsetting, directory: directory)
        try probe.input.fileHandleForWriting.close()
        return probe.finish()
    }

    /// Blocks until the probe writes `line` on standard output (the probe's own signal, not a guess
    /// at timing), and returns false if it ends first.
    func waitForLine(_ line: String) -> Bool {
        var received = ""
        while !received.split(separator: "\n").contains(Substring(line)) {
            guard let chunk = Self.readChunk(output), !chunk.isEmpty else { return false }
            received += String(decoding: chunk, as: UTF8.self)
        }
        return true
    }

    func send(_ line: String) throws {
        try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
    }

    /// Sends `line` and returns the one line the probe answers with; nil if it ends first.
    func ask(_ line: String) throws -> String? {
        try send(line)
        var received = ""
        while !received.hasSuffix("\n") {
            guard let chunk = Self.readChunk(output), !chunk.isEmpty else { return nil }
            received += String(decoding: chunk, as: UTF8.self)
        }
        return String(received.dropLast())
    }

    func kill() {
        Foundation.kill(process.processIdentifier, SIGKILL)
    }

    /// Reads what the pipe has, retrying a read that a signal interrupts (Foundation's `FileHandle`
    /// traps on EINTR, and child processes make signals arrive); nil on error, empty at end of file.
    private static func readChunk(_ pipe: Pipe) -> Data? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipe.fileHandleForReading.fileDescriptor, &buffer, buffer.count)
            if count >= 0 { return Data(buffer[0..<count]) }
            if errno != EINTR { return nil }
        }
    }

    private static func readToEnd(_ pipe: Pipe) -> Data {
        var data = Data()
        while let chunk = readChunk(pipe), !chunk.isEmpty { data += chunk }
        return data
    }

    func finish() -> Output {
        let standardOutput = Self.readToEnd(output)
        let standardError = Self.readToEnd(errors)
        process.waitUntilExit()
        return Output(
            status: process.terminationStatus, reason: process.terminationReason,
            standardOutput: String(decoding: standardOutput, as: UTF8.self),
            standardError: String(decoding: standardError, as: UTF8.self))
    }
}

/// A unique suite for a test that involves child processes, removed afterwards.
func withProcessSuite(_ label: String = #function, _ body: (String) throws -> Void) rethrows {
    let suiteName = uniqueSuiteName(label)
    defer { _ = try? ProbeProcess.run(["remove", suiteName]) }
    try body(suiteName)
}

// MARK: Folders of a test's own

/// Runs `body` with a new empty folder, removed afterwards with everything in it.
func withTemporaryFolder<Result>(_ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("typed-defaults-\(UUID())")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// The top-level dictionary of the property list at `url`, or nil when there is none.
func propertyList(at url: URL) -> [String: Any]? {
    guard let data = try? Data(contentsOf: url) else { return nil }
    return (try? PropertyListSerialization.propertyList(from: data, format: nil)) as? [String: Any]
}

// MARK: Sanitizers

/// Whether this test binary runs under ThreadSanitizer (its runtime is linked in), which makes every
/// process, the probe too, several times slower: a claim about seconds is not measured there.
let runsUnderThreadSanitizer: Bool = {
    #if canImport(Glibc)
        return dlsym(dlopen(nil, RTLD_NOW), "__tsan_init") != nil
    #else
        return false
    #endif
}()
