import Foundation
import Testing
import TypedDefaults

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

/// `withStore` for async tests.
func withStore<Result>(
    _ backend: Backend = .userDefaultsSuite, label: String = #function,
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
