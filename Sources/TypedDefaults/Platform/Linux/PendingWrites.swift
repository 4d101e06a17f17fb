#if os(Linux)
    import Foundation

    /// This process's writes to one domain that are not in its file yet: recorded under the write order
    /// (so records change in the order values do), taken by a save, given back when a save fails; and
    /// what other processes saved on its way into memory (`SavedChangeInbox`'s queue), which is weighed
    /// against them. Owns its lock, a leaf: taken under any other and taking nothing.
    final class PendingWrites: WriteRecord, @unchecked Sendable {
        // @unchecked: the state holds property-list objects (`Any`), reached only under `state`'s lock.
        struct State {
            /// The names this process wrote and has not saved yet, with their last object (nil: removed).
            /// One form of a name at most: a write of one form replaces the others' pending writes, as it
            /// replaces them in Foundation's memory and, at the save, in the file.
            /// All but the last write recorded (`last`): `settle()` before reading it whole.
            private(set) var changes: [ExactText: Any?] = [:]
            /// The last write recorded, not in `changes` yet: a name written again straight after (a
            /// counter, a slider) costs a comparison of names instead of a hash and a dictionary update,
            /// about 700 instructions of a typed write (the gated path).
            /// With whether its name is ASCII: another ASCII name is the same name when Swift's `==` says
            /// so, a test of a few instructions where walking both names' bytes cost ~280 a write.
            private var last: (name: ExactText, object: Any?, isASCII: Bool)?
            /// The writes a save has taken and not finished with: neither pending nor known to be in the
            /// file. A value another process saved must not be brought in over them meanwhile.
            var inFlight: [ExactText: Any?] = [:]
            var saveScheduled = false
            /// Whose save the first write of a burst schedules (`schedulesSaves(of:)`).
            weak var saver: LinuxSaver?
            /// What looks at the file found that others saved, not in memory yet (`SavedChangeInbox`).
            var inbox = SavedChangeInbox.Queue()
            /// What the file held when this process last read or wrote it (`SaveState.known`'s contents).
            var knownContents: [ExactText: Any]?

            /// Whether no write is pending.
            var isEmpty: Bool { last == nil && changes.isEmpty }

            /// This process's last unsaved write of `name`, pending or being saved.
            func write(of name: ExactText) -> Any?? {
                if let last, last.name == name { return .some(last.object) }
                return changes[name] ?? inFlight[name]
            }

            /// Records a write of `name`, with its forms as the write found them (ASCII, or the other forms
            /// it replaced).
            mutating func record(_ object: Any?, for name: String, forms: NameForms) {
                // Through `last?`: binding `last` would copy its object (~230 instructions).
                let sameAsLast =
                    switch forms {
                    case .ascii: last?.isASCII == true && last?.name.text == name
                    case .replacing(let others): others.isEmpty && last?.name == ExactText(name)
                    }
                if sameAsLast {
                    last?.object = object
                    return
                }
                settle()
                var isASCII = true
                if case .replacing(let others) = forms {
                    isASCII = false
                    for other in others { changes[ExactText(other)] = nil }
                }
                last = (ExactText(name), object, isASCII)
            }

            /// Puts the last write into `changes`.
            mutating func settle() {
                if let last { changes[last.name] = .some(last.object) }
                last = nil
            }

            /// Takes every pending write, as `changes`, and leaves none.
            mutating func takeChanges() -> [ExactText: Any?] {
                settle()
                defer { changes = [:] }
                return changes
            }

            /// Makes `object` pending for `name` again, after a save that failed.
            mutating func restore(_ object: Any?, for name: ExactText) {
                settle()
                changes.updateValue(object, forKey: name)
            }

            /// Forgets every pending write.
            mutating func forget() {
                last = nil
                changes.removeAll()
            }
        }

        private let state = Locked(State())

        /// Keeps `contents` as what the file holds (`SaveState.known`).
        func keepKnownContents(_ contents: [ExactText: Any]) {
            state.withLockedValue { $0.knownContents = contents }
        }

        /// What `name` holds for this process without waiting for a save: its unsaved write, else what the
        /// file held when this process last read or wrote it; one look, under one lock.
        func knownObject(of name: ExactText) -> KnownObject {
            state.withLockedValue { state in
                if let write = state.write(of: name) { return write.map(KnownObject.stored) ?? .absent }
                guard let contents = state.knownContents else { return .unknown }
                return contents[name].map(KnownObject.stored) ?? .absent
            }
        }

        /// `body` with the inbox's queue (`SavedChangeInbox`), under the lock.
        func withInbox<Result>(_ body: (inout SavedChangeInbox.Queue) -> Result) -> Result {
            state.withLockedValue { body(&$0.inbox) }
        }

        /// The first write of each burst schedules `saver`'s save (`LinuxSaver.saveDelay` later).
        func schedulesSaves(of saver: LinuxSaver) {
            state.withLockedValue { $0.saver = saver }
        }

        /// Records a write of `name` (nil: removed), whose other forms (composed, decomposed) it replaces,
        /// and schedules a save unless one is.
        func record(_ object: Any?, forName name: String, forms: NameForms, _ held: borrowing WriteOrderHeld) {
            let saver = state.withLockedValue { state -> LinuxSaver? in
                state.record(object, for: name, forms: forms)
                guard !state.saveScheduled else { return nil }
                state.saveScheduled = true
                return state.saver
            }
            // The context that writes holds the saver: this is never its last reference.
            if let saver { SaveScheduler.shared.schedule(saver, after: LinuxSaver.saveDelay) }
        }

        /// Whether this process wrote `name`, in any form (a write of one replaces the others: see
        /// `otherForms(of:)`), and has not saved it yet.
        func hasUnsavedWrite(forName name: String) -> Bool {
            let others = otherForms(of: name)
            return state.withLockedValue { state in
                state.write(of: ExactText(name)) != nil || others.contains { state.write(of: ExactText($0)) != nil }
            }
        }

        /// Whether no write is pending; nil when the lock cannot be had before `deadline` (at exit).
        func isEmpty(before deadline: Date? = nil) -> Bool? {
            guard let deadline else { return state.withLockedValue { $0.isEmpty } }
            return state.withLockedValue(before: deadline) { $0.isEmpty }
        }

        /// Forgets every unsaved write, pending or being saved.
        func forget(_ held: borrowing WriteOrderHeld) {
            state.withLockedValue {
                $0.forget()
                $0.inFlight.removeAll()
            }
        }

        /// Takes the pending writes, to be saved (they are in flight until `saved()` or `restore`); nil only
        /// when `deadline` (the exit-time save's) passes before their lock is free.
        func take(before deadline: Date? = nil) -> [ExactText: Any?]? {
            // Not `lock(before: .distantFuture)` without a deadline: corelibs' NSLock traps on a date that far.
            guard let deadline else { return state.withLockedValue(Self.take) }
            return state.withLockedValue(before: deadline, Self.take)
        }

        private static func take(_ state: inout State) -> [ExactText: Any?] {
            state.saveScheduled = false
            let changes = state.takeChanges()
            state.inFlight.merge(changes) { _, newer in newer }
            return changes
        }

        /// The writes a save took are in the file: no longer in flight.
        func saved() {
            state.withLockedValue { $0.inFlight = [:] }
        }

        /// Keeps what failed to save for the next attempt; a name written since is pending with its newer
        /// value.
        func restore(_ changes: [ExactText: Any?]) {
            let forms = changes.keys.map { (name: $0, others: otherForms(of: $0.text)) }
            state.withLockedValue { state in
                state.inFlight = [:]
                state.settle()
                for (name, others) in forms
                where state.changes[name] == nil && !others.contains(where: { state.changes[ExactText($0)] != nil }) {
                    state.restore(changes[name]!, for: name)
                }
            }
        }
    }
#endif
