import Dispatch
import Foundation

/// The lock inside the library's lock boxes (`Locked`, `RankedLock`): every read through a key takes
/// one, every write three (the binding table, the write order, the saver's record).
///
/// On Linux a semaphore of one: libdispatch's uncontended wait and signal are one atomic operation each,
/// 31 instructions a lock and unlock against 82 for Foundation's `NSLock` (callgrind, Swift 6.3.1), which
/// goes through an `open` class's dispatch to `pthread_mutex_lock`. Elsewhere an `NSLock`: on Apple
/// platforms a waiting thread lends its priority to a lock's holder, not to a semaphore's (a main thread
/// waiting for a background writer would wait at the writer's priority).
///
/// Not recursive: a thread that takes it again waits for itself, as with `NSLock`.
final class BasicLock: @unchecked Sendable {
    // @unchecked: both kinds are thread-safe, and nothing else is stored.
    #if os(Linux)
        private let semaphore = DispatchSemaphore(value: 1)

        @inline(__always)
        func lock() {
            semaphore.wait()
        }

        @inline(__always)
        func unlock() {
            semaphore.signal()
        }

        /// The lock if it can be had before `deadline`.
        func lock(before deadline: Date) -> Bool {
            // At most a day: `DispatchTime` counts nanoseconds in 64 bits, which a far date
            // (`.distantFuture`) does not fit.
            let seconds = min(max(deadline.timeIntervalSinceNow, 0), 86_400)
            return semaphore.wait(timeout: .now() + seconds) == .success
        }

        /// The lock if it is free now.
        func `try`() -> Bool {
            semaphore.wait(timeout: .now()) == .success
        }
    #else
        private let base = NSLock()

        @inline(__always)
        func lock() {
            base.lock()
        }

        @inline(__always)
        func unlock() {
            base.unlock()
        }

        /// The lock if it can be had before `deadline`.
        func lock(before deadline: Date) -> Bool {
            base.lock(before: deadline)
        }

        /// The lock if it is free now.
        func `try`() -> Bool {
            base.try()
        }
    #endif
}
