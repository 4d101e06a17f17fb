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

/// Runs `body` with a new suite and a store over it, and removes the suite afterwards: the one way a
/// test gets a suite of its own.
func withSuite<Result>(
    keyPrefix: String = "", label: String = #function,
    _ body: (_ suite: String, _ store: DefaultsStore) throws -> Result
) throws -> Result {
    let suite = uniqueSuiteName(label)
    defer { DefaultsStore.removeSuite(named: suite) }
    return try body(suite, try #require(DefaultsStore(suiteName: suite, keyPrefix: keyPrefix)))
}

/// `withSuite` for async tests; `body` runs on the caller's actor.
func withSuite<Result>(
    label: String = #function, isolation: isolated (any Actor)? = #isolation,
    _ body: (_ suite: String, _ store: DefaultsStore) async throws -> Result
) async throws -> Result {
    let suite = uniqueSuiteName(label)
    defer { DefaultsStore.removeSuite(named: suite) }
    return try await body(suite, try #require(DefaultsStore(suiteName: suite)))
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
