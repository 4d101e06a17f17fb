import Foundation

/// What a storage's order of changes holds: the state `StorageContext.order` owns behind its lock
/// (`LockRank.writeOrder`). Every change to the storage takes its number here, under that lock, in
/// `StorageContext.commitInOrder` (a write through the library) or `applyInOrder` (a change from
/// elsewhere: another process's save, a report of another writer, a cloud value); the code that runs
/// under the lock takes this state `inout`.
struct ChangeOrder {
    /// The number of the last change announced.
    private(set) var sequence: UInt64 = 0
    /// Values other processes saved for names this process has not used (no key bound them and the
    /// storage does not hold them): brought in when a key first uses the name, a raw-name operation
    /// reads it, or the suite is listed. No read skips them (`StorageContext.storedObject`,
    /// `storedValues`, `bind` bring them in first).
    var deferred: [ExactText: Any] = [:]
    /// Names watched for changes made by other means (those with an observer), each with its watch and
    /// the object observers last heard of.
    var externalWatches: [String: (watch: any ExternalChangeWatch, last: Any?)] = [:]
    /// Names watched for Swift's Observation whether or not they have observers, for the context's life:
    /// Observation does not tell when a tracking ends.
    var watchedForObservation: Set<String> = []
    /// Syncs the names chosen by `sync` through a cloud; nil until then.
    var cloudSync: CloudSync?
    /// The step that runs alone over the storage now (`StorageContext.exclusively`: `modify`, a move, a
    /// migration, a tool's edit), with the changes numbered on its thread while it runs. They are
    /// announced when the step ends, after every lock is released, whichever way it ends (a save that
    /// failed, a transform that threw): an observer may then call `modify` itself.
    var exclusive: ExclusiveStep?

    struct ExclusiveStep {
        let thread: ObjectIdentifier
        var announcements: [Commit] = []
    }

    /// `commit`, numbered: returned to be announced by the caller once its locks are released, or, on the
    /// thread of the step that runs alone now, kept for that step to announce when it ends (the caller
    /// still holds the step's locks then). Every numbered change passes here, so none is left unannounced.
    @inline(__always)
    mutating func handOver(_ commit: Commit) -> Commit? {
        guard exclusive != nil, exclusive?.thread == ObjectIdentifier(Thread.current) else { return commit }
        exclusive?.announcements.append(commit)
        return nil
    }

    /// Whether the calling thread runs the step that runs alone now.
    var isExclusiveThread: Bool {
        exclusive != nil && exclusive?.thread == ObjectIdentifier(Thread.current)
    }

    /// Gives the next change its number.
    @inline(__always)
    mutating func nextNumber() -> UInt64 {
        sequence &+= 1
        return sequence
    }
}
