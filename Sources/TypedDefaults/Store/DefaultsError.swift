import Foundation

/// What can go wrong when writing or saving values.
public enum DefaultsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A value has no property-list form (a `Codable` value that failed to encode). What was stored
    /// is kept.
    case unconvertibleValue(key: String, type: String)
    /// Values could not be saved to disk (a read-only home, a full disk). They stay pending in memory
    /// and the next save tries again.
    case saveFailed(suite: String, reason: String)
    /// The suite's file on disk was not a property list (Linux). Rather than overwrite bytes it cannot
    /// read, the library renamed the file to `path` and saved the suite's values to a new file.
    case unreadableFileKept(suite: String, path: String)
    /// The suite's file (Linux) is there but is not a regular file the library may read and replace: a
    /// symbolic link, a FIFO, a directory, or a file this user cannot read. It is left as it is; the
    /// values stay pending in memory and the next save tries again.
    case fileRefused(suite: String, path: String, reason: String)
    /// The suite's file cannot be watched (Linux: no inotify instance or watch left for this user, the
    /// system's `fs.inotify` limits): values other processes save are seen at this process's next save
    /// or `modify`, not within 200 ms. Reported once per suite.
    case notWatched(suite: String, reason: String)
    /// The library cannot save this suite its own way (Linux) and lets Foundation's `synchronize()` save
    /// it: dates keep whole seconds only, and another process saving the suite at the same moment can
    /// lose keys. Reported once per suite.
    case savedBySynchronize(suite: String, reason: String)
    /// A key made without a name where Swift gives it none of its own: in a `static let` (`#function`
    /// is then the type's name, which every such key of the type would share), a function or a closure.
    /// Its writes are refused (thrown by `set` and `modify`, reported by the subscript and the
    /// wrapper), and reads give its default, so no value is ever stored under a name another key got
    /// the same way. Reported once to ``ErrorReporting`` when the key is made (its first use, a read or
    /// a write), naming its declaration; then at each refused write, thrown by `set` and `modify` and
    /// reported by the subscript and the wrapper.
    case namelessKey(key: String)
    /// An operation that needs the storage to itself (`operation`: `modify`, `flush()`,
    /// `removeSuite(named:)`) was called inside a `modify` transform over the same storage, which holds
    /// it: it would wait for itself. Nothing was done; call it after `modify` returns.
    case calledInsideModify(operation: String)
    /// The cloud refused a synced value (`key`) or values (`nil`: over its quota): they stay on this
    /// device and are not pushed until they change.
    case syncRefused(key: String?, reason: String)
    /// Debug builds: a store made with ``DefaultsStore/Writers/onlyTypedDefaults`` kept `cached` for `key`,
    /// but the suite holds `stored`: something in this process changed the suite through `UserDefaults`
    /// itself, which the promise excludes. The read gave the suite's value, and the store reads it again.
    case promiseBroken(key: String, cached: String, stored: String)

    /// A sentence that names the key or suite and the cause.
    public var description: String {
        switch self {
        case .unconvertibleValue(let key, let type):
            "TypedDefaults: a \(type) for key \"\(key)\" has no property-list form; the stored value is kept"
        case .saveFailed(let suite, let reason):
            "TypedDefaults: could not save suite \"\(suite)\": \(reason)"
        case .unreadableFileKept(let suite, let path):
            "TypedDefaults: the file of suite \"\(suite)\" was not a property list; it is kept as \(path), "
                + "and the suite's values are saved to a new file"
        case .fileRefused(let suite, let path, let reason):
            "TypedDefaults: could not save suite \"\(suite)\": \(path) is left as it is, because \(reason); "
                + "the values stay pending"
        case .notWatched(let suite, let reason):
            "TypedDefaults: suite \"\(suite)\" is not watched for other processes' saves, because \(reason); "
                + "they are seen at this process's next save or modify"
        case .savedBySynchronize(let suite, let reason):
            "TypedDefaults: suite \"\(suite)\" is saved with synchronize(), because \(reason): "
                + "dates keep whole seconds only, and other processes saving it at once can lose keys"
        case .namelessKey(let key):
            "TypedDefaults: \(key) has no name of its own, so its writes are refused and reads give its "
                + "default. Give it a name, UserDefaultTypedKey<T>(\"name\", defaultValue: value), or declare it "
                + "as a computed `static var`, whose name it takes"
        case .calledInsideModify(let operation):
            "TypedDefaults: \(operation) was called inside a modify transform over the same storage, which "
                + "would wait for itself; nothing was done: call it after modify returns"
        case .syncRefused(let key?, let reason):
            "TypedDefaults: \"\(key)\" is not synced, because \(reason); it is kept on this device"
        case .syncRefused(nil, let reason):
            "TypedDefaults: \(reason)"
        case .promiseBroken(let key, let cached, let stored):
            "TypedDefaults: \"\(key)\" was changed outside TypedDefaults in this process (the store kept \(cached), "
                + "the suite holds \(stored)), which a store made with writers: .onlyTypedDefaults promises never "
                + "happens: change it through a key, or make the store with writers: .anyAPI"
        }
    }
}

/// Where errors that no caller can catch (a save in the background, a subscript write) go.
///
/// Reports are queued where they arise and handed to the handler one at a time, in the order they came,
/// on the library's report queue: never inside a lock of the library or a one-time initializer, so a
/// handler may read and write settings, even the very suite whose first use reported. What is queued
/// when the process exits normally is handed over at exit (waiting at most two seconds for a handler
/// that runs then).
public enum ErrorReporting {
    /// The handler; the reports not handed over yet, whether a hand-over is scheduled, and the thread
    /// handing them over.
    private static let queued = ConditionLocked(ReportsQueued())
    /// What is queued at a normal exit is handed over then: registered with the first report.
    private static let handOverAtExit: Void = { atexit { ErrorReporting.handOverAtExit(waiting: 2) } }()

    /// Sets the function that receives errors no caller can catch: saves in the background and at
    /// exit, and writes through a subscript or wrapper. `nil`, the default, prints them to standard
    /// error. The handler runs on the library's report queue, one report at a time, a moment after the
    /// error (see ``ErrorReporting``).
    public static func setHandler(_ newHandler: (@Sendable (DefaultsError) -> Void)?) {
        let replaced = queued.withLockedValue(waking: false) { queued in
            defer { queued.handler = newHandler }
            return queued.handler
        }
        // Released here, past the lock: what the handler held may be the app's objects, whose `deinit`
        // may call the library (a store freed, an error reported).
        withExtendedLifetime(replaced) {}
    }

    /// Queues `error` for the handler; returns at once, whatever locks the caller holds.
    static func report(_ error: any Error) {
        let defaultsError =
            error as? DefaultsError ?? .saveFailed(suite: "?", reason: String(describing: error))
        _ = handOverAtExit
        let schedules = queued.withLockedValue(waking: false) { queued -> Bool in
            queued.reports.append(defaultsError)
            defer { queued.isScheduled = true }
            return !queued.isScheduled
        }
        if schedules { ReportQueue.queue.async { handOver() } }
    }

    /// Returns once every error reported before the call has been handed to the handler (or printed).
    /// Inside a handler it returns at once: the reports after the running one wait for it.
    package static func waitForQueuedReports() {
        let thread = ObjectIdentifier(Thread.current)
        queued.wait { $0.deliverer == thread || (!$0.isScheduled && $0.reports.isEmpty) }
    }

    /// Hands the queued reports over, one at a time, on this thread (the report queue's).
    private static func handOver() {
        let thread = ObjectIdentifier(Thread.current)
        while let report = queued.withLockedValue({ $0.next(for: thread) }) {
            hand(report)
        }
    }

    /// At exit: waits up to `seconds` for a hand-over under way on another thread, then hands over what
    /// is left on this one (the exiting thread may be the report queue's, inside a handler).
    static func handOverAtExit(waiting seconds: TimeInterval) {
        let thread = ObjectIdentifier(Thread.current)
        let deadline = Date(timeIntervalSinceNow: seconds)
        guard queued.wait(until: { $0.deliverer == nil || $0.deliverer == thread }, before: deadline) else { return }
        while let report = queued.withLockedValue({ $0.next(for: thread, atExit: true) }) {
            hand(report)
        }
    }

    /// Through the one door for code that is not the library's (`UserCode`); what the handler writes
    /// to observed names is delivered once it returns.
    private static func hand(_ report: DefaultsError) {
        if let current = queued.withLockedValue(waking: false, { $0.handler }) {
            UserCode.run { current(report) }
            UserCode.deliverHeldBack()
        } else {
            FileHandle.standardError.write(Data((report.description + "\n").utf8))
        }
    }
}

/// The reports waiting for the handler, in the order they came.
private struct ReportsQueued {
    /// What receives the reports (`setHandler`); nil: standard error.
    var handler: (@Sendable (DefaultsError) -> Void)?
    var reports: [DefaultsError] = []
    var isScheduled = false
    /// The thread handing reports over now; nil between two hand-overs.
    var deliverer: ObjectIdentifier?

    /// The next report for `thread` to hand over, nil when none is left (or another thread hands over:
    /// the exit-time hand-over took the queue). At exit, this thread takes the queue and keeps it.
    mutating func next(for thread: ObjectIdentifier, atExit: Bool = false) -> DefaultsError? {
        guard deliverer == nil || deliverer == thread else { return nil }
        guard !reports.isEmpty else {
            if !atExit {
                isScheduled = false
                deliverer = nil
            }
            return nil
        }
        deliverer = thread
        return reports.removeFirst()
    }
}
