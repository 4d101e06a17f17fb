import Foundation

/// The one door through which the library calls code that is not its own: observer callbacks and their
/// `initial` call, Swift Observation's registrar (and so `onChange`), `updates` and publisher consumers
/// (through their observers), error handlers, and `modify`'s transform.
///
/// Through it, (a) debug builds check that the thread holds no lock of the library (user code ranks
/// below every lock: it may take any of them, so none may be held around it), except the turn of the
/// step that runs the code on purpose (`modify`'s transform runs inside its step), and (b) the thread
/// is marked as inside user code, so that the callback rules hold for all of it: such a thread never
/// waits for an observer's turn, and what it writes out of turn is held back and delivered by that
/// thread once it is out (`Observer`).
enum UserCode {
    /// The thread's mark: bit 0 while it holds changes back (`Observer`) that it must deliver once out of
    /// user code; twice how many calls into a reporting storage it is inside (`runStorageCall`), below
    /// `userCodeStep`; and `userCodeStep` times how many calls into user code it is inside now. Kept per
    /// thread without a lock: a write that nobody observes still tells Swift's Observation through this
    /// door, and Foundation's per-thread dictionary or a locked table cost hundreds of instructions a
    /// write (the gated path). Without a key nothing is marked: the callback rules then fall back to
    /// waiting for turns.
    private static let mark = ThreadWord()

    /// One call into a reporting storage in the mark (at most 127 nested, far beyond any storage's).
    private static let storageCallStep = 2
    /// One call into user code in the mark.
    private static let userCodeStep = 256

    /// Whether this thread runs user code now (a callback, a handler, an `onChange`), at any depth.
    static var isRunning: Bool { mark.value >= userCodeStep }

    /// Delivers the changes this thread held back (`Observer.deliverHeldBack`) once it is out of every
    /// call into user code: called at the end of each announcement, after the changes announced (which
    /// were numbered before any change user code made meanwhile), and wherever user code returns outside
    /// one. One look at the thread's mark on every announcement (the gated write's path); the rest is rare.
    @inline(__always)
    static func deliverHeldBack() {
        if mark.value == 1 { Observer.deliverHeldBack() }
    }

    /// This thread holds changes back (or, with `false`, no longer does).
    static func setHoldsBack(_ holds: Bool) {
        mark.value = mark.value & ~1 | (holds ? 1 : 0)
    }

    /// Runs `body`, code that is not the library's, with this thread marked as inside user code.
    /// `insideStep`: the code runs inside a step's turn on purpose (`modify`'s transform), whose locks it
    /// may hold; the write order, which every write takes, it may not.
    @inline(__always)
    static func run<Result>(insideStep: Bool = false, _ body: () throws -> Result) rethrows -> Result {
        LockOrder.checkNoLockHeld(insideStep: insideStep)
        return try marked(by: userCodeStep, body)
    }

    /// `body`, with `step` added to this thread's mark while it runs.
    @inline(__always)
    private static func marked<Result>(by step: Int, _ body: () throws -> Result) rethrows -> Result {
        // One look-up of the key for the four calls (each access of `mark` checks its once-token).
        let word = Self.mark
        word.value += step
        defer { word.value -= step }
        return try body()
    }

    /// `run` without the mark, checked alike in debug builds, for code that cannot reach a wait the mark
    /// would spare it, where the mark's two thread-local calls would cost the gated write: Swift
    /// Observation's `onChange` on a thread with no delivery of its own left to make (`Announcement`),
    /// and a write's conversion to its stored form (`userDefaultsObject`, `Codable`), which does not call
    /// the library (`insideStep`: `modify`'s conversion runs in its step). A read's conversion is
    /// inlined into the app, where this internal door cannot go.
    @inline(__always)
    static func runUnmarked<Result>(insideStep: Bool = false, _ body: () throws -> Result) rethrows -> Result {
        LockOrder.checkNoLockHeld(insideStep: insideStep)
        return try body()
    }

    /// Runs `body`, a reporting storage's `set` or `removeObject` made under that storage's write order
    /// (`ChangeLog.store`), with the thread marked as inside it: a report the storage makes from inside
    /// one (key-value observing reports on the writing thread), of this name or another, reaches
    /// observers later, on the report queue, never on this thread, which holds a write order
    /// (`ReportQueue.change`). Only storages that report (`ExternallyChangingStorage`) are marked: a plain
    /// write pays nothing.
    static func runStorageCall<Result>(_ body: () throws -> Result) rethrows -> Result {
        try marked(by: storageCallStep, body)
    }

    /// Whether this thread is inside a reporting storage's call made under a write order.
    static var isInsideStorageCall: Bool { mark.value % userCodeStep >= storageCallStep }
}

/// One word per thread, read and written without a lock (a pthread key's value): the thread's mark for
/// user code (`UserCode`), and the ranks of the locks it holds in a debug build (`LockOrder`).
struct ThreadWord: Sendable {
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        _ = pthread_key_create(&key, nil)
        self.key = key
    }

    var value: Int {
        @inline(__always) get { Int(bitPattern: pthread_getspecific(key)) }
        @inline(__always) nonmutating set { _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}
