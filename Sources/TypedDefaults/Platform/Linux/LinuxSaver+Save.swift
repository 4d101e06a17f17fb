#if os(Linux)
    import Foundation

    // Saving: this process's pending writes into the suite's file, under its lock.
    extension LinuxSaver {
        // MARK: Saving

        func flush() throws {
            let notice = try saves.withSaving { try savePending(in: &$0) }
            // Brought in once `saving` is released: this process's next save, and other processes' saves,
            // never wait for its memory.
            bringInQueuedAndDeliver()
            if let notice { ErrorReporting.report(notice) }
        }

        /// Saves every pending write.
        func savePending(in save: inout SaveState) throws -> DefaultsError? {
            guard let file else {
                guard let changes = pending.take(), !changes.isEmpty else { return nil }
                guard defaults.synchronize() else {
                    pending.restore(changes)
                    throw DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed")
                }
                return nil
            }
            var declared: [String: DeclaredKey]?
            switch declarations.takeDue() {
            case .nothing: break
            case .write(let keys): declared = keys
            case .later(let wait): SaveScheduler.shared.schedule(self, after: wait)
            }
            guard pending.isEmpty() == false || !save.putBacks.isEmpty || declared != nil else { return nil }
            do {
                let saved = try saves.withFileLock(file, in: &save) { save, locked in
                    if let declared { writeManifest(declared, beside: file, locked) }
                    return try savePendingLocked(to: file, in: &save, locked)
                }
                queueBringIn(saved.changedElsewhere, saving: saved.changes, in: &save)
                return saved.notice
            } catch {
                // Another process holds the file's lock (one stopped mid-save holds it for good): the
                // writes stay pending, and the save is tried again.
                if case FileFailure.timedOut = error { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
                throw reported(error)
            }
        }

        /// What a save did: the notice it gives, the writes it saved, and what its looks at the file found,
        /// from which the caller works out what others had saved meanwhile and brings it into memory.
        struct Saved {
            var notice: DefaultsError?
            var changes: [ExactText: Any?] = [:]
            var looks: [FileState] = []

            /// What others had saved meanwhile, look after look. Worked out by the caller once the file
            /// lock is released: comparing every value of a big suite is work no other process must wait
            /// for.
            var changedElsewhere: [ExactText: Any?] {
                looks.reduce(into: [:]) { changed, look in changed.merge(look.changedElsewhere) { _, later in later } }
            }
        }

        /// Saves every pending write into `file`, whose lock this process holds (`locked`), and says what
        /// others saved there meanwhile.
        ///
        /// With `atExit`, waits for the pending writes' lock only until then.
        func savePendingLocked(
            to file: SuiteFile, atExit deadline: Date? = nil, in save: inout SaveState, _ locked: borrowing FileLockHeld
        ) throws -> Saved {
            guard let changes = pending.take(before: deadline) else {
                throw DefaultsError.saveFailed(suite: domain, reason: "the pending writes stayed locked at exit")
            }
            guard !changes.isEmpty || !save.putBacks.isEmpty else { return Saved() }
            do {
                if !save.removedStaleTemporaryFiles {
                    save.removedStaleTemporaryFiles = true
                    file.removeStaleTemporaryFiles(locked)
                }
                var looks: [FileState] = []
                var notice: DefaultsError?
                var rereads = 0
                while true {
                    var state = try look(at: file, movingAsideUnreadable: true, in: &save)
                    looks.append(state)
                    notice = notice ?? state.notice
                    let restored = merge(changes, into: &state, putBacks: save.putBacks)
                    let bytes = try Self.encode(state.contents)
                    let looked = save.known
                    save.known = nil
                    // The file this save replaces stays readable to the processes that have not read it.
                    if state.writtenByFoundation { file.keepAsPlainSave() }
                    // Foundation may write into the file while this save reads it and makes the new one:
                    // then it is read again (a few times; a writer that never stops gets the last word).
                    let base = rereads < Self.rereadsForPlainSaves ? state.read : nil
                    guard
                        case .replaced(let version) = try file.replace(
                            with: bytes, keeping: state.owner, unlessRewritten: base)
                    else {
                        save.known = looked
                        rereads += 1
                        continue
                    }
                    save.known = (version, state.contents, false)
                    save.putBacks.removeAll()
                    let now = Date()
                    for (name, object) in restored.merging(changes, uniquingKeysWith: { $1 }) {
                        save.recentlySaved[name] = (object, now)
                    }
                    forgetOldSaves(now, in: &save)
                    return Saved(notice: notice, changes: changes, looks: looks)
                }
            } catch {
                pending.restore(changes)
                throw error
            }
        }

        /// Puts into `state` what this save writes: first this process's values that Foundation's
        /// `synchronize()` wrote over, where the file still holds what it wrote (saved again, under the
        /// lock, so that a change another process made since is never undone), then `changes`. Returns
        /// the values put back.
        func merge(
            _ changes: [ExactText: Any?], into state: inout FileState,
            putBacks: [ExactText: (found: Any?, restore: Any?)]
        ) -> [ExactText: Any?] {
            var restored: [ExactText: Any?] = [:]
            for (name, putBack) in putBacks where propertyListsEqual(state.contents[name], putBack.found, by: .exact) {
                state.contents[name] = putBack.restore
                restored.updateValue(putBack.restore, forKey: name)
            }
            for (name, object) in changes {
                state.contents[name] = object
                Self.removeOtherForms(of: name, from: &state.contents)
            }
            return restored
        }

        /// Removes from `contents` every other form of `name` (composed or decomposed: Swift's equal, other
        /// bytes). Foundation keeps one form of a name in memory, and a `set` or removal of one replaces the
        /// others there; the file follows, so that what a name reads in this process is what the next
        /// launch reads. Only a name with a non-ASCII character has other forms.
        static func removeOtherForms(of name: ExactText, from contents: inout [ExactText: Any]) {
            guard !isASCII(name.text) else { return }
            for other in contents.keys where other.text == name.text && other != name {
                contents[other] = nil
            }
        }

        /// The error a failure of the saver's file work is reported as.
        func reported(_ error: any Error) -> DefaultsError {
            switch error {
            case let error as DefaultsError: return error
            case FileFailure.failed(let action, let path, let errno?):
                return .saveFailed(suite: domain, reason: "\(action) \(path): \(errno)")
            case FileFailure.failed(let action, let path, nil):
                return .saveFailed(suite: domain, reason: "\(action) \(path)")
            case FileFailure.refused(let path, let reason):
                return .fileRefused(suite: domain, path: path, reason: reason)
            case FileFailure.timedOut(let path):
                return .saveFailed(suite: domain, reason: "\(path) stayed locked by another process")
            default:
                return .saveFailed(suite: domain, reason: "\(error)")
            }
        }

        func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
            guard let file else { return try body() }
            var notice: DefaultsError?
            let result = try saves.withSaving { save in
                do {
                    return try saves.withFileLock(file, in: &save) { save, locked in
                        let state = try look(at: file, movingAsideUnreadable: true, in: &save)
                        notice = state.notice
                        // The body reads what others saved: it is in memory before the body runs. The
                        // changes are numbered on the step's thread: the step announces them when it
                        // ends, once every lock is released, whichever way it ends.
                        queueBringIn(state.changedElsewhere, in: &save)
                        let unannounced = bringInQueued()
                        assert(unannounced.isEmpty, "a change numbered in a step is the step's to announce")
                        let result = try body()
                        let saved = try savePendingLocked(to: file, in: &save, locked)
                        queueBringIn(saved.changedElsewhere, saving: saved.changes, in: &save)
                        notice = notice ?? saved.notice
                        return result
                    }
                } catch let error as FileFailure {
                    throw reported(error)
                }
            }
            bringInQueuedAndDeliver()
            if let notice { ErrorReporting.report(notice) }
            return result
        }
    }
#endif
