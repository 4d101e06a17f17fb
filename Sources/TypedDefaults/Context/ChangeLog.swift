import Foundation

/// A storage's write order: every change to it (a write through the library, another process's
/// save, a report of another writer, a cloud value) goes into the storage and the saver's record and
/// takes its number here, under one lock (`writeOrder`), and is announced to observers once no lock is held.
/// Steps that run alone (`modify`, a move, a migration) take turns on `modifyTurn`.
///
/// What other processes saved comes in through the same path (`bringIn(savedElsewhere:)`, through the
/// context, the saver's receiver). An operation that reaches the storage without binding a name takes a
/// `DomainPrepared`: the domain is ready before it takes any lock of the log's.
final class ChangeLog: @unchecked Sendable {
    // @unchecked: `storage` is required to be thread-safe (see `KeyValueStorage`); every other field is
    // a `let`, and the mutable state lives in the lock-owning types they hold.
    let storage: any KeyValueStorage
    /// The `UserDefaults` domain, for a `UserDefaults` storage.
    let domain: DefaultsDomain?
    /// The storage, when its values live in a domain of the platform's preferences (`UserDefaults`).
    let domainStorage: (any DomainStorage)?
    /// The storage, when it reports changes made by other means than the library's writes.
    let externalStorage: (any ExternallyChangingStorage)?
    /// Saves the storage's writes where the platform does not (Linux); nil elsewhere.
    let saver: (any DomainSaver)?
    /// The saver's record of the writes it has yet to save (`saver.writes`).
    let writes: (any WriteRecord)?
    let observers: ObserverRegistry
    let names: NameBindings

    /// Makes `modify` calls over this storage take turns.
    let modifyTurn = Locked(.modify, TurnsTaken())
    /// The storage's write order and the state it guards (`WriteOrder`): a value, the saver's
    /// record that it must be saved and the change's number change together (lock order: `LockRank`).
    let writeOrder = WriteOrder.boxed()
    /// Reports of changes made by other means, read again later.
    let reports = ReportQueue()

    init(
        storage: any KeyValueStorage, domain: DefaultsDomain?, domainStorage: (any DomainStorage)?,
        saver: (any DomainSaver)?, observers: ObserverRegistry, names: NameBindings
    ) {
        self.storage = storage
        self.domain = domain
        self.domainStorage = domainStorage
        externalStorage = storage as? any ExternallyChangingStorage
        self.saver = saver
        writes = saver?.writes
        self.observers = observers
        self.names = names
    }
}

// The one path every change takes: into the storage, the saver's record, and then to observers.
extension ChangeLog {
    // MARK: Changing values: the one commit-and-announce path

    /// Stores `object` under `name` (`nil` removes it) and has the saver record it, as one step in the
    /// storage's write order. Returns what observers and Swift's Observation must hear, to be passed
    /// to `announce` once no lock is held; nil when nobody can be listening (a name never bound, or a
    /// write inside `withoutPropagation`).
    ///
    /// On the thread of a step that runs alone (a write inside `modify`'s transform), the step keeps the
    /// change and announces it when it ends: nil is returned then.
    /// `nameIsASCII`: the name is known to be ASCII (its binding found it so); false: looked at here.
    func commit(
        _ object: Any?, forName name: String, tracked: (any TrackedName)?, nameIsASCII: Bool = false
    ) -> Announcement? {
        var stepRuns = false
        let announcement = writeOrder.withLockedValue { order in
            stepRuns = order.exclusiveThread != nil
            return self.commit(object, forName: name, tracked: tracked, nameIsASCII: nameIsASCII, in: &order)
        }
        // Tested out here, on a flag: the test inside the step in the write order made every write cost
        // about 300 instructions more (the gated path).
        if stepRuns, let announcement, keptByStep([announcement]) { return nil }
        return announcement
    }

    /// `commit`'s step, in the write order: for compound operations (`compoundStep`). Inlined into
    /// `commit`: the write path's cost is gated.
    @inline(__always)
    func commit(
        _ object: Any?, forName name: String, tracked: (any TrackedName)?, nameIsASCII: Bool = false,
        in order: inout WriteOrder
    ) -> Announcement? {
        // A value another process saved for the name and put aside here is replaced by this write: a
        // later listing must not bring it back.
        if !order.deferred.isEmpty { order.deferred[ExactText(name)] = nil }
        // A name nothing in this storage bound has no tracked name and no observers: observing binds.
        guard let tracked = tracked ?? names.trackedName(name), Propagation.isOn else {
            storeAndRecord(object, forName: name, nameIsASCII: nameIsASCII, in: &order)
            if order.localChangeTap != nil { noteLocalChange(object, forName: name, in: &order) }
            return nil
        }
        // Looked up in the write order: an observer added before a change is committed hears it.
        let observers = order.anyObserver ? observers.observers(of: name) : []
        // Asked once: the old and the new object in one form.
        let contested = !observers.isEmpty && names.isContested(name)
        let oldObject = observers.isEmpty ? nil : observedObject(forName: name, contested: contested, order.held)
        storeAndRecord(object, forName: name, nameIsASCII: nameIsASCII, in: &order)
        if order.localChangeTap != nil { noteLocalChange(object, forName: name, in: &order) }
        let sequence = order.nextNumber()
        Announcement.expect(sequence, by: observers, order.held)
        let newObject = observers.isEmpty ? nil : observedObject(forName: name, contested: contested, order.held)
        let change = ObjectChange(oldObject: oldObject, newObject: newObject, sequence: sequence)
        return Announcement(tracked: tracked, observers: observers, change: change)
    }

    func bringIn(savedElsewhere changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool) -> [Announcement]
    {
        writeOrder.withLockedValue { bringIn(changed, isOwnWrite: isOwnWrite, deferringUnused: true, in: &$0) }
    }

    /// Runs `body` as one step of the storage's write order, atomic against every other write in
    /// this process and, on Linux, inside the suite's file lock against other processes' saves
    /// (`exclusively`): `read` gives what a name stores (values other processes saved are in), `write`
    /// commits. `body` runs with the write order held: a call into the library there would take it again,
    /// which stops a debug build (`LockOrder`). Observers hear of the changes when the step ends, once
    /// every lock is released (`exclusively`), whichever way it ends.
    func compoundStep<Result>(
        _ prepared: DomainPrepared, names: [String],
        _ body: (_ read: (String) -> Any?, _ write: (Any?, String) -> Void) throws -> Result
    ) throws -> Result {
        try exclusively(prepared) {
            try writeOrder.withLockedValue { order throws -> Result in
                // Values put aside for these names are the storage's before the step reads them. The
                // changes are numbered on the step's thread: the step keeps them to announce.
                let unannounced = bringIn(order.takeDeferred(names), in: &order)
                assert(unannounced.isEmpty, "a change numbered in a step is the step's to announce")
                return try body(
                    { storedObject(forName: $0, order.held) },
                    { object, name in
                        // This is the step's thread: the step announces the change when it ends.
                        if let announcement = commit(object, forName: name, tracked: nil, in: &order) {
                            order.keep(announcement)
                        }
                    })
            }
        }
    }

    /// Brings in the values put aside for names this process had not used: `name`'s alone, or all.
    func bringInDeferred(only name: String? = nil) {
        let announcements = writeOrder.withLockedValue { order -> [Announcement] in
            guard !order.deferred.isEmpty else { return [] }
            return bringIn(order.takeDeferred(name.map { [$0] }), in: &order)
        }
        announcements.deliver()
    }

    /// Puts changes this process did not write into the storage, and numbers those a read sees.
    ///
    /// In three passes, every read before every write and every write before the reads after: on Linux,
    /// Foundation recomputes its whole merged view of a suite at the first read after any write, so a
    /// read, write, read per name cost the suite's size for every name brought in; this way the suite is
    /// gone through twice for the whole change.
    ///
    /// With `deferringUnused`, a name this process has not used (no key bound it, the storage does not
    /// hold it) is put aside rather than set: Foundation's `set` of a name costs more the more names the
    /// process has set since it started (corelibs keeps them in a list it searches), and bringing in every
    /// name many other processes write made each of them spend more time on it than on its own work.
    func bringIn(
        _ changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool = { _ in false },
        deferringUnused: Bool = false, in order: inout WriteOrder
    ) -> [Announcement] {
        // A null or a set another tool put in the file: Foundation's `set` traps on it. The file keeps it
        // (a save writes it back); memory keeps what it had.
        let incoming = changed.filter { name, object in
            !isOwnWrite(name) && (object.map(isStorablePropertyList) ?? true)
        }
        // Before the equality skip below: memory may hold the value only because Foundation read it again.
        if order.promisedOnlyLibraryWrites, !changed.isEmpty { names.valuesChanged() }
        var written: [(name: String, contested: Bool, oldObject: Any?)] = []
        let read = incoming.map { name, object in
            let contested = names.isContested(name)
            return (name, object, contested, observedObject(forName: name, contested: contested, order.held))
        }
        for (name, object, contested, oldObject) in read {
            if deferringUnused {
                if oldObject == nil, names.trackedName(name) == nil {
                    order.deferred[ExactText(name)] = object
                    continue
                }
                order.deferred[ExactText(name)] = nil
            }
            // Already so here (Foundation read it, or this process wrote it): nothing to bring in. What
            // reads as the registered default may be the default alone: a value equal to it is set, so
            // that listings hold it.
            if propertyListsEqual(oldObject, object, by: .exact), !names.isRegisteredDefault(oldObject, forName: name) {
                continue
            }
            written.append((name, contested, oldObject))
            store(object, forName: name, in: &order)
        }
        var announcements: [Announcement] = []
        for (name, contested, oldObject) in written {
            let newObject = observedObject(forName: name, contested: contested, order.held)
            // A removal that leaves the registered default in view of a value equal to it: no read changes.
            if propertyListsEqual(oldObject, newObject, by: .exact) { continue }
            if let announcement = numberedChange(of: name, from: oldObject, to: newObject, in: &order) {
                announcements.append(announcement)
            }
        }
        return announcements
    }

    /// A change the library did not make through `commit` (another process's save, a report of another
    /// writer, a cloud value), numbered in the storage's write order, with those who must hear it: returned to
    /// be announced once the caller's locks are released, or kept by the step that runs alone on this
    /// thread (`WriteOrder.keep`).
    func numberedChange(of name: String, from oldObject: Any?, to newObject: Any?, in order: inout WriteOrder)
        -> Announcement?
    {
        let sequence = order.nextNumber()
        let observers = order.anyObserver ? observers.observers(of: name) : []
        Announcement.expect(sequence, by: observers, order.held)
        let change = ObjectChange(oldObject: oldObject, newObject: newObject, sequence: sequence)
        let announcement = Announcement(tracked: names.trackedName(name), observers: observers, change: change)
        guard order.isExclusiveThread else { return announcement }
        order.keep(announcement)
        return nil
    }

    /// A name got its first observer or lost its last (the registry's call, with none of its locks
    /// held): whether any name has one, as the registry says now. Asked, not counted: two such calls can
    /// arrive in either order, and each sets what the registry holds when it runs, in the write order, so
    /// an observer is in the answer from before its `add` returns until it is removed.
    func observersChanged() {
        writeOrder.withLockedValue { $0.anyObserver = !observers.isEmpty }
    }

    /// Keeps `announcements` for the step that runs alone now, if this is its thread.
    @inline(never)
    private func keptByStep(_ announcements: [Announcement]) -> Bool {
        writeOrder.withLockedValue { order in
            guard order.isExclusiveThread else { return false }
            for announcement in announcements { order.keep(announcement) }
            return true
        }
    }

    /// What the storage holds for `name` now, and the number of the last change announced: a change
    /// numbered after it is not in the value.
    func currentObject(forName name: String) -> (object: Any?, sequence: UInt64) {
        writeOrder.withLockedValue { order in
            (observedObject(forName: name, contested: names.isContested(name), order.held), order.sequence)
        }
    }

    /// What observers of `name` are told it holds, in the write order (`held`): the storage's object, so
    /// that each observer's key converts it as its reads do. For a name whose keys gave different
    /// defaults (`contested`: `NameBindings.isContested`, asked once for an old and a new object, so that
    /// both are in one form), the storage may read another key's default (registration is the process's,
    /// shared by every suite) where nothing is stored: only a stored value is told then, and each key
    /// gives its own default for nothing, as its read does (`StorageContext.object(forName:changedDefault:)`).
    func observedObject(forName name: String, contested: Bool, _ held: borrowing WriteOrderHeld) -> Any? {
        contested ? storedObject(forName: name, held) : storage.object(forKey: name)
    }

    /// A change made here: into the storage, and into the saver's record of what to save (Linux).
    @inline(__always)
    func storeAndRecord(_ object: Any?, forName name: String, nameIsASCII: Bool = false, in order: inout WriteOrder) {
        let forms = store(object, forName: name, nameIsASCII: nameIsASCII, in: &order)
        writes?.record(object, forName: name, forms: forms, order.held)
    }

    /// Puts `object` into the storage under `name`; returns the name's forms as the saver's record needs
    /// them: ASCII (one form), or the other forms it removed. `nameIsASCII`: as `commit`'s.
    @discardableResult
    func store(_ object: Any?, forName name: String, nameIsASCII: Bool = false, in order: inout WriteOrder)
        -> NameForms
    {
        // A storage that reports changes may report inside these calls, on this thread, which holds the
        // write order: marked, so that a report is read again once no lock is held (`ReportQueue.change`),
        // when this write's own (its echo) finds what observers last heard, set below, and is dropped.
        let forms =
            externalStorage == nil
            ? put(object, forName: name, nameIsASCII: nameIsASCII)
            : UserCode.runStorageCall { put(object, forName: name, nameIsASCII: nameIsASCII) }
        // After the change, never before: a read between the two then caches nothing older (`ReadCache`).
        if order.promisedOnlyLibraryWrites { names.valuesChanged() }
        if !order.externalWatches.isEmpty, order.externalWatches[name] != nil {
            let now = observedObject(forName: name, contested: names.isContested(name), order.held)
            order.externalWatches[name]?.last = now
        }
        return forms
    }

    /// Puts `object` into the storage under `name`, and removes the name's other forms where a saver saves
    /// the domain; returns the name's forms.
    @inline(__always)
    private func put(_ object: Any?, forName name: String, nameIsASCII: Bool) -> NameForms {
        // One form of a name at a time (Linux: see `otherForms(of:)`), where a saver saves the domain.
        // ASCII text has one form: known from the name's binding, else found with a scan of its bytes.
        var forms = NameForms.replacing([])
        if saver != nil {
            if nameIsASCII || isASCII(name) {
                forms = .ascii
            } else {
                let others = otherForms(of: name)
                for other in others { storage.removeObject(forKey: other) }
                forms = .replacing(others)
            }
        }
        // Tested against nil, not bound: `if let` copied the object first (~130 instructions a write).
        if object != nil {
            storage.set(object, forKey: name)
        } else {
            storage.removeObject(forKey: name)
        }
        return forms
    }

    /// Runs `body` so that no other `exclusively` over this storage runs meanwhile: in this process, and
    /// on Linux in any process that saves the suite (see `DomainSaver.exclusively`).
    ///
    /// The changes numbered on this thread while it runs (its own, and what others saved, brought in
    /// first) are announced when it ends, after every lock is released, whichever way it ends: a throw,
    /// a failed save. Called again on the same thread inside `body` (a move inside `modify`'s transform),
    /// `body` joins the step that runs; `refusingNested` names an operation that cannot join one
    /// (`modify` inside a transform), which is refused with ``DefaultsError/calledInsideModify(operation:)``
    /// instead of waiting for itself.
    func exclusively<Result>(
        _ prepared: DomainPrepared, refusingNested operation: String? = nil, _ body: () throws -> Result
    ) throws
        -> Result
    {
        prepared.check(for: self)
        if isInExclusiveStep() {
            if let operation { throw DefaultsError.calledInsideModify(operation: operation) }
            return try body()
        }
        var announcements: [Announcement] = []
        // Declared first, so it runs last: after the step's locks are released.
        defer { announcements.deliver() }
        return try modifyTurn.withLockedValue { turns in
            turns.count &+= 1
            defer { announcements = writeOrder.withLockedValue { $0.endStep() } }
            writeOrder.withLockedValue { $0.startStep() }
            guard let saver else { return try body() }
            return try saver.exclusively(body)
        }
    }

    /// Whether this thread runs a step over this storage now (inside `modify`'s transform, or a step's
    /// body): an operation that needs the step's locks would wait for itself.
    func isInExclusiveStep() -> Bool {
        writeOrder.withLockedValue { $0.isExclusiveThread }
    }

    /// Saves pending writes now (Linux), then pushes the synced names' changes not pushed yet.
    func flush(_ prepared: DomainPrepared) throws {
        prepared.check(for: self)
        if isInExclusiveStep() { throw DefaultsError.calledInsideModify(operation: "flush()") }
        try saver?.flush()
        let refused = writeOrder.withLockedValue({ $0.localChangeTap })?.flush() ?? []
        // One error is thrown; the others would be lost with it, so they are reported.
        for other in refused.dropFirst() { ErrorReporting.report(other) }
        if let first = refused.first { throw first }
    }

    /// Removes every value of the domain from memory and disk; observers hear of each change a read sees.
    /// See `StorageContext.promiseOnlyLibraryWrites`: in the write order, so that no write made before it
    /// is missed by a value cached after it.
    /// Returns whether the promise is new.
    @discardableResult
    func promiseOnlyLibraryWrites() -> Bool {
        writeOrder.withLockedValue { order in
            guard !order.promisedOnlyLibraryWrites else { return false }
            order.promisedOnlyLibraryWrites = true
            names.promiseOnlyLibraryWrites()
            return true
        }
    }

    func removeDomain(_ prepared: DomainPrepared) {
        prepared.check(for: self)
        if isInExclusiveStep() {
            return ErrorReporting.report(DefaultsError.calledInsideModify(operation: "removeSuite(named:)"))
        }
        guard let saver else {
            if let domain { domainStorage?.removeValues(in: domain) }
            names.valuesChanged()
            return
        }
        let announcements = writeOrder.withLockedValue { order in
            saver.writes.forget(order.held)
            order.deferred = [:]
            return bringIn((saver.storedValues() ?? [:]).map { ($0.key, nil) }, in: &order)
        }
        saver.removeFile()
        names.valuesChanged()
        announcements.deliver()
    }
}
