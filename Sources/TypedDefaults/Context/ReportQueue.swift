import Foundation

/// Reports of a change made by other means that came while the storage's write order was taken: each
/// name is read again once on the library's report queue, however many reports come meanwhile.
final class ReportQueue: Sendable {
    /// The names waiting to be read again.
    private let waiting = Locked<Set<String>>([])
    /// One queue for the process: reports are read again in the order they came, and `ErrorReporting`
    /// hands its reports to the handler here too.
    static let queue = DispatchQueue(label: "TypedDefaults.externalChanges")

    /// Runs `readAgain` for `name` on the report queue, unless it waits there already.
    func readAgainLater(_ name: String, _ readAgain: @escaping @Sendable () -> Void) {
        guard waiting.withLockedValue({ $0.insert(name).inserted }) else { return }
        Self.queue.async { [self] in
            // Taken off first: a report that comes while this one is read is read again after it.
            waiting.withLockedValue { _ = $0.remove(name) }
            readAgain()
        }
    }
}
