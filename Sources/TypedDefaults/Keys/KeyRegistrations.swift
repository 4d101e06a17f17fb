import Foundation

/// Where a key's value is found in one store: the name it is stored under, and for an
/// ``InMemoryStorage`` the `InMemoryStorage.Reader` of the key's type that reads it.
struct StoredLocation {
    let name: String
    let reader: AnyObject?
}

/// The stores a key has been used with and where its value is found in each, so that a read looks
/// up the name and registers the default once per store rather than on every access.
@usableFromInline
final class KeyRegistrations: @unchecked Sendable {
    // @unchecked: `state` is guarded by `mutex`.
    @usableFromInline
    struct State {
        var locations: [(store: UInt64, location: StoredLocation)] = []
        /// The reader of the first store that has one, unretained (`locations` keeps it), so that the
        /// read that finds it touches no reference count: a read on `InMemoryStorage` costs a few tens
        /// of nanoseconds, and a retain and release would add a third.
        @usableFromInline var firstReader: (store: UInt64, reader: Unmanaged<AnyObject>)?
    }
    @usableFromInline let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    @usableFromInline let state = UnsafeMutablePointer<State>.allocate(capacity: 1)

    init() {
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        state.initialize(to: State())
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// The reader the key has in `store`, if the store reads through readers and has been used.
    /// Valid as long as the key lives.
    @inlinable @inline(__always)
    func reader(inStore store: UInt64) -> Unmanaged<AnyObject>? {
        pthread_mutex_lock(mutex)
        let first = state.pointee.firstReader
        pthread_mutex_unlock(mutex)
        guard let first, first.store == store else { return nil }
        return first.reader
    }

    func location(inStore store: UInt64) -> StoredLocation? {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return state.pointee.locations.first { $0.store == store }?.location
    }

    func remember(_ location: StoredLocation, inStore store: UInt64) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        state.pointee.locations.append((store, location))
        if state.pointee.firstReader == nil, let reader = location.reader {
            state.pointee.firstReader = (store, Unmanaged.passUnretained(reader))
        }
    }
}
