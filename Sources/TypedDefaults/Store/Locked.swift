import Foundation

/// A value guarded by a lock: the library's one synchronization primitive.
///
/// `NSLock` rather than `Mutex` because `Mutex` needs macOS 15 and the package supports macOS 10.15.
final class Locked<State>: @unchecked Sendable {
    private let lock = NSLock()
    private var state: State

    init(_ state: State) { self.state = state }

    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&state)
    }
}
