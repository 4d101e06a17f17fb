import Foundation

/// A value guarded by a lock: the library's one synchronization primitive.
///
/// A `pthread_mutex_t`, which Apple platforms and Linux both have. Measured on Linux for a typed read on
/// `InMemoryStorage`, before keys kept readers of their own (two locks and a name lookup a read):
/// `NSLock` ~175 ns, `Synchronization.Mutex` ~140 ns (and it needs macOS 15; the package supports
/// 10.15), `pthread_mutex_t` ~100 ns.
@usableFromInline
final class Locked<State>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // Behind a pointer rather than a `var`, so that access pays no dynamic exclusivity check: the mutex
    // already makes it exclusive.
    @usableFromInline let state: UnsafeMutablePointer<State>

    init(_ state: State) {
        self.state = .allocate(capacity: 1)
        self.state.initialize(to: state)
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    @inlinable @inline(__always)
    func withLock<Result>(_ body: (inout State) throws -> Result) rethrows -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&state.pointee)
    }
}
