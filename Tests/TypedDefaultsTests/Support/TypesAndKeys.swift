import Foundation
import Testing
import TypedDefaults

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

// MARK: Keys only some tests use

extension UserDefaultTypedKeys {
    static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }
    static var lastSearch: UserDefaultTypedKey<String?> { .init() }
    /// The theme's name with another stored form (a number): a conflict.
    static let themeNumber = UserDefaultTypedKey<Int>("theme", defaultValue: 2)
    /// The theme's name as text, with the enum's default's raw value: the same stored form, no conflict.
    static let themeText = UserDefaultTypedKey<String>("theme", defaultValue: "system")
    // Swift passes the type's name for `#function` in a `static let`: both are "UserDefaultTypedKeys".
    static let nameless = UserDefaultTypedKey<Int>(defaultValue: 0)
    static let namelessToo = UserDefaultTypedKey<Int>(defaultValue: 5)
}

/// A type of the app's own holding keys: a nameless `static let` here is named "AppKeys".
enum AppKeys {
    static let nameless = UserDefaultTypedKey<String?>()
    static let namelessLimit = UserDefaultTypedKey<Int>(default: { 9 })
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
