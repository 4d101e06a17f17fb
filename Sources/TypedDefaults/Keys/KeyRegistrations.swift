import Foundation

/// Where a key's value is found in one store: the name it is stored under, for an ``InMemoryStorage``
/// the `InMemoryStorage.Reader` of the key's type that reads it, and on Linux the record its writes
/// are saved from. A class, so that a write can use it unretained (see `KeyRegistrationState`).
final class StoredLocation: @unchecked Sendable {
    // @unchecked: `reader` is a `Sendable` `InMemoryStorage.Reader`; `pending` is guarded by the lock of
    // the store's persistence.
    let name: String
    let reader: AnyObject?
    /// Made by the first write through this location (Linux), not by its first use: most keys are only
    /// read, and making it costs a lock and a lookup.
    @exclusivity(unchecked) var pending: PendingName?

    init(name: String, reader: AnyObject?) {
        self.name = name
        self.reader = reader
    }
}

/// The stores a key has been used with and where its value is found in each, so that a read looks
/// up the name and registers the default once per store rather than on every access.
@usableFromInline
struct KeyRegistrationState {
    /// Kept for the life of the key, so that the unretained references handed out stay valid.
    var locations: [(store: UInt64, location: StoredLocation)] = []
    /// The reader of the first store that has one, unretained (`locations` keeps it), so that the read
    /// that finds it touches no reference count: a read on `InMemoryStorage` costs a few tens of
    /// nanoseconds, and a retain and release would add a third.
    @usableFromInline var firstReader: (store: UInt64, reader: Unmanaged<AnyObject>)?
}

@usableFromInline
typealias KeyRegistrations = Locked<KeyRegistrationState>

extension Locked where State == KeyRegistrationState {
    /// The reader the key has in `store`, if the store reads through readers and has been used.
    /// Valid as long as the key lives.
    @inlinable @inline(__always)
    func reader(inStore store: UInt64) -> Unmanaged<AnyObject>? {
        // The lock taken by hand rather than through `withLock`, whose closure would retain.
        pthread_mutex_lock(mutex)
        let first = state.pointee.firstReader
        pthread_mutex_unlock(mutex)
        guard let first, first.store == store else { return nil }
        return first.reader
    }

    /// Where the key is found in `store`, unretained: valid as long as the key lives. Unretained, because
    /// reference counting is atomic, and atomic operations are most of what the library adds to a write.
    func location(inStore store: UInt64) -> Unmanaged<StoredLocation>? {
        withLock { state in
            for index in state.locations.indices where state.locations[index].store == store {
                return Unmanaged.passUnretained(state.locations[index].location)
            }
            return nil
        }
    }

    func remember(_ location: StoredLocation, inStore store: UInt64) {
        withLock { state in
            state.locations.append((store, location))
            if state.firstReader == nil, let reader = location.reader {
                state.firstReader = (store, Unmanaged.passUnretained(reader))
            }
        }
    }
}
