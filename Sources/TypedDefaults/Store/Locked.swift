import Foundation

/// A value guarded by a lock: the library's one synchronization primitive.
///
/// An `NSLock`, which every platform has. A typed read on `UserDefaults` costs about two
/// microseconds on Linux, nearly all of it Foundation's; the lock adds a few tens of nanoseconds.
final class Locked<State>: @unchecked Sendable {
    // @unchecked: `state` is only reached through `withLock`.
    private let lock = NSLock()
    // Unchecked: the lock already makes every access exclusive, and the run-time check Swift would add
    // cost a write about 250 instructions across its locks (callgrind, Linux, 2026-11-22).
    @exclusivity(unchecked) private var state: State

    init(_ state: State) {
        self.state = state
    }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
