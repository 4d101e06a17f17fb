import Foundation

/// Reports of a change made by other means: each that came while a write order was taken is read again
/// once on the library's report queue, however many reports come meanwhile; and the report of a write's
/// own `set` (its echo) is told apart.
final class ReportQueue: Sendable {
    private let state = Locked(State())

    struct State {
        /// The names waiting to be read again.
        var waiting: Set<String> = []
        /// The thread storing a value while a name is watched, with the name it stores: a report from
        /// inside that `set` (key-value observing reports every `set`, on the writing thread) of that name
        /// is the write's own echo; of another name, it is that name's change.
        var writing: (thread: ObjectIdentifier, name: String)?
    }
    /// One queue for the process: reports are read again in the order they came, and `ErrorReporting`
    /// hands its reports to the handler here too.
    static let queue = DispatchQueue(label: "TypedDefaults.externalChanges")

    /// Runs `readAgain` for `name` on the report queue, unless it waits there already.
    func readAgainLater(_ name: String, _ readAgain: @escaping @Sendable () -> Void) {
        guard state.withLockedValue({ $0.waiting.insert(name).inserted }) else { return }
        Self.queue.async { [self] in
            // Taken off first: a report that comes while this one is read is read again after it.
            state.withLockedValue { _ = $0.waiting.remove(name) }
            readAgain()
        }
    }

    /// `body`, the `set` of `name`, marked as this thread's write of it.
    func writing<Result>(_ name: String, _ body: () throws -> Result) rethrows -> Result {
        state.withLockedValue { $0.writing = (ObjectIdentifier(Thread.current), name) }
        defer { state.withLockedValue { $0.writing = nil } }
        return try body()
    }

    /// Whether a report of `name` now, on this thread, is the echo of this thread's own write of it.
    func isEcho(of name: String) -> Bool {
        guard let writing = state.withLockedValue({ $0.writing }) else { return false }
        return writing.thread == ObjectIdentifier(Thread.current) && writing.name == name
    }
}
