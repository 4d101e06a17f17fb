/// What saves one `UserDefaults` domain's writes where Foundation does not save them itself (Linux):
/// the one seam between a storage context and the platform. Apple platforms persist `UserDefaults`
/// themselves and have no saver (see `Platform`).
///
/// The context calls it from one place each: its commit path (`writes`), `modify`
/// (`exclusively`), `flush()`, a name's first use (`prepare`, `declare`), suite removal and the listing of stored
/// values.
protocol DomainSaver: AnyObject, Sendable {
    /// Makes the domain ready, once: starts watching for other processes' saves, which go to `receiver`
    /// (held weakly; the context that owns the saver, given by the one call every operation makes
    /// first), and makes Foundation read the domain. Every caller returns only once that is done.
    func prepare(receivingIn receiver: any SavedChangeReceiver)
    /// The record of the writes the saver has yet to save, which the context tells of each write.
    var writes: any WriteRecord { get }
    /// `key` was bound in the domain (its first use in this process): record it in the domain's key
    /// manifest (`KeyManifest`) with the next save, if the manifest does not hold it as it is. Never
    /// written on the caller's thread; `key` is made only if the manifest may still take it (an app that
    /// makes a key per item binds a new name at each write: past the manifest's bound it costs a flag).
    func declare(from declaration: KeyDeclaration, _ key: () -> DeclaredKey)
    /// Saves every pending write now; throws when they cannot be saved (they stay pending).
    func flush() throws
    /// Runs `body` so that no other `exclusively` of the domain runs meanwhile, in this process or any
    /// other, with what others saved brought in first and what `body` wrote saved before it returns.
    func exclusively<Result>(_ body: () throws -> Result) throws -> Result
    /// Removes the domain's file, under the domain's file lock.
    func removeFile()
    /// The domain's values as this process holds them, saved or not, or nil when they cannot be listed.
    func storedValues() -> [String: Any]?
    /// What is stored under `name` as the saver knows it, without listing the domain: this process's
    /// unsaved write of it, else what the file held when this process last read or wrote it.
    func knownObject(forName name: String) -> KnownObject
}

/// A saver's record of the writes it has yet to save (Linux: `PendingWrites`), told of each write by the
/// context's commit path in the write order (`held`), so that records change in the order values do.
protocol WriteRecord: AnyObject, Sendable {
    /// `name` was just written (`nil`: removed) in the storage, replacing the other forms `forms` names
    /// (see `otherForms(of:)`): saved soon (the first write of a burst schedules the save).
    func record(_ object: Any?, forName name: String, forms: NameForms, _ held: borrowing WriteOrderHeld)
    /// Forgets every unsaved write, as the context empties memory.
    func forget(_ held: borrowing WriteOrderHeld)
}

/// What a saver knows is stored under a name.
enum KnownObject {
    case stored(Any)
    case absent
    /// It cannot tell: a name with other forms (composed, decomposed), or a domain it does not save.
    case unknown
}

/// The storage context as its saver sees it: where values another process saved are put into the
/// storage (through the context's one commit path) and announced to observers.
protocol SavedChangeReceiver: AnyObject, Sendable {
    /// Puts `changed` (name and object, `nil`: removed; each name once, by its bytes) into the storage,
    /// except names for which `isOwnWrite` is true (this process's own last write wins until it is
    /// saved), under the write order. Returns what must be announced once no lock is held.
    func bringIn(savedElsewhere changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool) -> [Announcement]
}
