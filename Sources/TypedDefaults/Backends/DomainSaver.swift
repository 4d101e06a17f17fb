/// What saves one `UserDefaults` domain's writes where Foundation does not save them itself (Linux):
/// the one seam between a storage context and the platform. Apple platforms persist `UserDefaults`
/// themselves and have no saver (see `Platform`).
///
/// The context calls it from one place each: its commit path (`commit`), `modify`
/// (`exclusively`), `flush()`, a name's first use, suite removal and the listing of stored values.
protocol DomainSaver: AnyObject, Sendable {
    /// Where the saver applies and announces values it finds saved by someone else. Set once, by the
    /// context that owns the saver; held weakly.
    func attach(to receiver: any SavedChangeReceiver)
    /// A name of the domain is used for the first time: start watching for other processes' saves and
    /// make Foundation read the domain, once; every caller returns only once that is done.
    func prepareForFirstUse()
    /// `name` was just written (`nil`: removed) in the storage, replacing its `otherForms`: save it soon.
    /// Called with the context's write order held, so records change in the order values do.
    func commit(_ object: Any?, forName name: String, otherForms: [String])
    /// The other forms of `name` (composed and decomposed, where their bytes differ from the name's):
    /// Foundation on Linux keeps one form of a name in memory, and drops a `set` of one while another
    /// read from the file is there, so a change of `name` removes them first (and the save removes them
    /// from the file). Called with the write order held; empty, and cheap, for an ASCII name.
    func otherForms(of name: String) -> [String]
    /// Whether this process wrote `name` and has not saved it yet. Called with the write order held.
    func hasUnsavedWrite(forName name: String) -> Bool
    /// Saves every pending write now; throws when they cannot be saved (they stay pending).
    func flush() throws
    /// Runs `body` so that no other `exclusively` of the domain runs meanwhile, in this process or any
    /// other, with what others saved brought in first and what `body` wrote saved before it returns.
    func exclusively<Result>(_ body: () throws -> Result) throws -> Result
    /// Forgets every unsaved write. Called with the write order held, as the context empties memory.
    func forgetUnsavedWrites()
    /// Removes the domain's file, under the domain's file lock.
    func removeFile()
    /// The domain's values as this process holds them, saved or not, or nil when they cannot be listed.
    func storedValues() -> [String: Any]?
    /// What is stored under `name` as the saver knows it, without listing the domain: this process's
    /// unsaved write of it, else what the file held when this process last read or wrote it.
    func knownObject(forName name: String) -> KnownObject
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
    func applySavedElsewhere(_ changed: [(name: String, object: Any?)], isOwnWrite: (String) -> Bool) -> [Commit]
    /// Tells observers and Swift's Observation of `commits`. Called with no lock held.
    func announce(_ commits: [Commit])
}
