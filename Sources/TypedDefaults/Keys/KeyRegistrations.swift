/// The stores a key has been used with and the name it is stored under in each, so that a read looks
/// up the name and registers the default once per store rather than on every access.
@usableFromInline
final class KeyRegistrations: Sendable {
    private struct Entry {
        let store: UInt64
        let storedName: String
    }
    private let entries = Locked<[Entry]>([])

    @inline(__always)
    func storedName(inStore store: UInt64) -> String? {
        entries.withLock { entries in
            for entry in entries where entry.store == store { return entry.storedName }
            return nil
        }
    }

    func remember(_ storedName: String, inStore store: UInt64) {
        entries.withLock { $0.append(Entry(store: store, storedName: storedName)) }
    }
}
