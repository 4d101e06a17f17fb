import Foundation
import Testing
import TypedDefaults

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
    /// How many have come, without copying them (for polling).
    var count: Int {
        lock.lock()
        defer { lock.unlock() }
        return elements.count
    }

    /// Polls until `count` have come, up to a deadline; whether they did.
    func waitForCount(_ expected: Int, within seconds: TimeInterval = waitLimit) -> Bool {
        pollUntil(seconds) { count >= expected }
    }
}
