/// One numbered change of a stored name, on its way to those who listen to the name: Swift's
/// Observation (the name's tracked name) and the observers registered when it was numbered. The fan-out
/// of every change, whoever made it (a write through the library, another process's save, a report of
/// another writer, a cloud value): made in the storage's write order, where the change gets its number,
/// and delivered once no lock is held.
struct Announcement {
    let tracked: (any TrackedName)?
    let observers: [Observer]
    let change: ObjectChange

    /// Tells `observers` that change `sequence` is theirs, in the write order (`held`), where the change
    /// is numbered, before its announcement is made: each delivers its changes in the order of their
    /// numbers. Called before the change's objects are put into its announcement: a call after it made
    /// every typed write copy both objects (their lifetimes reach past a call), about 200 instructions
    /// (measured).
    @inline(__always)
    static func expect(_ sequence: UInt64, by observers: [Observer], _ held: borrowing WriteOrderHeld) {
        for observer in observers { observer.expect(sequence, held) }
    }

    /// Delivers the change to each receiver, Swift's Observation first: with no lock held but a step's
    /// turns (debug builds check it), since an observer may read and write the store, and call `modify`.
    /// Both are code that is not the library's and run through its one door (`UserCode`): a change an
    /// observer or an `onChange` makes meanwhile never waits for this one, which this thread has yet to
    /// deliver; it is delivered after this one (`UserCode.deliverHeldBack`). Every numbered change is
    /// delivered exactly once: from the thread that numbered it, straight after its locks are released,
    /// or from the end of the step it was numbered in (`ChangeLog.exclusively`).
    func deliver() {
        LockOrder.checkNoLockHeld(insideStep: true)
        tell(marking: !observers.isEmpty)
        UserCode.deliverHeldBack()
    }

    /// `marking`: the thread is marked as inside user code around `onChange` where it has deliveries of
    /// its own still to make (observers of this change, or of a later one it delivers in the same
    /// turn). Where it has none, a write made in `onChange` cannot wait for this thread, and the mark
    /// (two calls into the system's thread-local storage, ~110 instructions) is left off the write
    /// nobody observes, the gated path; the lock check is made either way.
    fileprivate func tell(marking: Bool) {
        if let tracked {
            if marking {
                UserCode.run { tracked.receive(change) }
            } else {
                UserCode.runUnmarked { tracked.receive(change) }
            }
        }
        for observer in observers { observer.receive(change) }
    }
}

/// The change an announcement carries: the name's old and new objects, and the change's number.
// @unchecked: the objects are property lists read from the storage, never changed after the commit;
// a change is handed from the thread that made it to the thread that delivers it.
struct ObjectChange: @unchecked Sendable {
    let oldObject: Any?
    let newObject: Any?
    let sequence: UInt64
}

extension [Announcement] {
    /// Delivers each announcement in turn (see `Announcement.deliver`).
    /// Also with none: the end of a step (`ChangeLog.exclusively`) delivers what its transform held back
    /// (a write to another storage's observed name made in the transform), whether or not the step
    /// changed anything.
    func deliver() {
        LockOrder.checkNoLockHeld(insideStep: true)
        let marking = contains { !$0.observers.isEmpty }
        for announcement in self { announcement.tell(marking: marking) }
        UserCode.deliverHeldBack()
    }
}
