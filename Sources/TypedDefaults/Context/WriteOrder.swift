import Foundation

/// What a storage's write order holds: the state `ChangeLog.writeOrder` owns behind its lock
/// (`LockRank.writeOrder`). Every change to the storage takes its number here, under that lock, in
/// `ChangeLog.commit` (a write through the library) or `ChangeLog.numberedChange` (a change from
/// elsewhere: another process's save, a report of another writer, a cloud value); the code that runs
/// under the lock takes this state `inout`.
struct WriteOrder {
    /// The one way to make a write order: inside the box that guards it, so that no code can hold one,
    /// or its proof `held`, without that lock.
    static func boxed() -> Locked<WriteOrder> {
        Locked(.writeOrder, WriteOrder())
    }

    private init() {}

    /// The number of the last change announced.
    private(set) var sequence: UInt64 = 0
    /// Values other processes saved for names this process has not used (no key bound them and the
    /// storage does not hold them): brought in when a key first uses the name, a raw-name operation
    /// reads it, or the suite is listed. No read skips them (`StorageContext.storedObject`,
    /// `storedValues`, `bindFirst` bring them in first).
    var deferred: [ExactText: Any] = [:]
    /// Names watched for changes made by other means (those with an observer), each with its watch and
    /// the object observers last heard of.
    var externalWatches: [String: (watch: any ExternalChangeWatch, last: Any?)] = [:]
    /// Names watched for Swift's Observation whether or not they have observers, for the context's life:
    /// Observation does not tell when a tracking ends.
    var watchedForObservation: Set<String> = []
    /// Follows the changes made on this device (the cloud sync, once `sync` is called); nil until then.
    var localChangeTap: (any LocalChangeTap)?
    /// The thread of the step that runs alone over the storage now (`ChangeLog.exclusively`:
    /// `modify`, a move, a migration, a tool's edit), and the changes numbered on that thread while it
    /// runs. They are announced when the step ends, after every lock is released, whichever way it ends
    /// (a save that failed, a transform that threw): an observer may then call `modify` itself. Two
    /// plain fields, not an optional struct: the write path tests the first at every write, and an
    /// optional pointer's test is one comparison.
    var exclusiveThread: ObjectIdentifier?
    /// The app promised that in this process the storage changes only through the library
    /// (`DefaultsStore.Writers.onlyTypedDefaults`): every change made here moves the bindings' generation,
    /// which cached reads are checked against. Tested at every write: a plain field.
    var promisedOnlyLibraryWrites = false
    var stepAnnouncements: [Announcement] = []
    /// Whether any name of the storage has an observer (`ChangeLog.observersChanged`): a change looks its
    /// name up in the observer registry, under that registry's lock, only then (~90 instructions a write
    /// with nobody observing, the gated path).
    var anyObserver = false

    /// Keeps `commit`, numbered on the thread of the step that runs alone now, for the step to announce
    /// when it ends (the caller still holds the step's locks). Every numbered change is either kept here
    /// or returned to the caller to announce once its locks are released (`ChangeLog.commit`,
    /// `numberedChange`), so none is left unannounced.
    mutating func keep(_ announcement: Announcement) {
        stepAnnouncements.append(announcement)
    }

    /// Whether the calling thread runs the step that runs alone now.
    var isExclusiveThread: Bool {
        guard let thread = exclusiveThread else { return false }
        return thread == ObjectIdentifier(Thread.current)
    }

    /// Starts the step that runs alone, on this thread.
    mutating func startStep() {
        exclusiveThread = ObjectIdentifier(Thread.current)
    }

    /// Takes the values put aside for `names` (by their bytes), or all of them (`nil`).
    mutating func takeDeferred(_ names: [String]?) -> [(name: String, object: Any?)] {
        guard let names else {
            defer { deferred = [:] }
            return deferred.map { ($0.key.text, $0.value) }
        }
        return names.compactMap { name in deferred.removeValue(forKey: ExactText(name)).map { (name, $0) } }
    }

    /// Ends the step that runs alone: the changes it kept, to be announced once its locks are released.
    mutating func endStep() -> [Announcement] {
        exclusiveThread = nil
        defer { stepAnnouncements = [] }
        return stepAnnouncements
    }

    /// Proof that the write order is held, for code elsewhere that must run under it (the saver's record
    /// of a write): only code handed this state, inside the lock, can make one.
    var held: WriteOrderHeld {
        @inline(__always) get { WriteOrderHeld() }
    }

    /// Gives the next change its number.
    @inline(__always)
    mutating func nextNumber() -> UInt64 {
        sequence &+= 1
        return sequence
    }
}

/// A token that the storage's write order is held (`WriteOrder.held`): a function that must run under
/// that lock takes one, and the compiler checks the rule a comment used to state. Not copyable, so it
/// cannot be kept for later; made only in this file.
struct WriteOrderHeld: ~Copyable {
    fileprivate init() {}
}
