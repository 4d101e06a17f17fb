import Foundation

/// A value behind a lock of the tests' own, as an app keeps one: the library's `Locked` is checked in
/// debug builds as a lock of the library (taking no other lock while held), and an app's lock may be
/// held around any call into the library.
final class Guarded<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
