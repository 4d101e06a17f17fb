#if os(Linux)
    import Foundation

    // Linux (swift-corelibs-foundation): a value is written to disk only by `synchronize()`, which
    // rewrites the whole file as an XML property list (dates lose their fractional seconds) and races
    // with other processes doing the same. So the library records each write it makes and saves them
    // itself: a short while after a burst of writes, at `flush()`, and when the process exits. Saving
    // takes a file lock shared with other processes, reads the file (unless it is unchanged since this
    // process last read or wrote it), applies only this process's changes, and replaces the file
    // atomically with a binary property list, which keeps dates exact and Foundation reads as before. It
    // never follows a symbolic link, never opens anything but a regular file, and never replaces a file
    // it could not read.
    //
    // Foundation on Linux also reads a suite's file once and never again, so the saver watches the file
    // (`SuiteWatcher`) once a key of the suite is used, and brings values another process saved (or a
    // hand edit) into this process through the context's commit path, which tells observers, unless
    // this process has an unsaved write of its own for that name.
    //
    // Lock order: `LockRank` (Locked.swift) writes it and checks it in debug builds; `pending` and
    // `queued` are leaves, taken under any of those and taking nothing. The process-wide maps (the suite map, the watcher's and the exit saver's lists) are
    // taken alone, never across file I/O, a save or a user callback; observers are told only once every
    // lock is released.

    /// Saves the writes the library makes to one `UserDefaults` domain on Linux.
    final class LinuxSaver: DomainSaver, @unchecked Sendable {
        // @unchecked: `UserDefaults` is thread-safe but not marked Sendable on Linux; every other field is
        // a `let`, and the mutable state lives in the lock-owning types they hold.

        /// How long after the first of a burst of writes they are saved: far below a second, so that a
        /// process killed a second after a write has saved it, and long enough to gather a burst.
        static let saveDelay: TimeInterval = 0.1

        /// The domain's name, as errors name it.
        let domain: String
        let defaults: UserDefaults
        /// The name under which Foundation lists the domain's values as this process holds them; nil when
        /// the library cannot save the domain its own way.
        let listedDomain: String?
        /// Where Foundation keeps the domain; nil when the library cannot save it its own way.
        let file: SuiteFile?
        /// This process's writes not in the file yet.
        let pending = PendingWrites()
        /// The saver's turn at the file, and what it knows of the file.
        let saves = SaveLock()
        /// What others saved, on its way into memory.
        let inbox: SavedChangeInbox
        /// Whether the domain is ready (`prepare`). Taken before any other lock of the saver's (the
        /// context prepares its domain before it takes a lock of its own), and held while preparing.
        let status = ConditionLocked(Status())
        let declarations = DeclaredKeys()

        private init(domain: String, file: SuiteFile?, listedDomain: String?, defaults: UserDefaults) {
            self.domain = domain
            self.file = file
            self.listedDomain = listedDomain
            self.defaults = defaults
            inbox = SavedChangeInbox(unsavedWritesIn: pending)
        }

        /// Where `prepare` is (the domain is watched and read once, by the first caller), and whether a
        /// look the watcher could not make now is scheduled.
        struct Status {
            enum Preparation { case notStarted, preparing, done }
            var preparation = Preparation.notStarted
            var looksAgain = false
        }

        deinit {
            // Only the saver of a `UserDefaults` whose suite name cannot be read is ever freed: save what
            // it wrote.
            do {
                try flush()
            } catch {
                ErrorReporting.report(error)
            }
        }

        /// A saver for `defaults`, whose domain is `domain` (nil: the library cannot tell, and lets
        /// Foundation's `synchronize()` save it, saying so once).
        static func make(domain: DefaultsDomain, defaults: UserDefaults) -> LinuxSaver {
            let saver: LinuxSaver
            switch domain {
            case .standard, .suite:
                let name = domain.name
                saver = LinuxSaver(
                    domain: name, file: SuiteFile(domain: name),
                    listedDomain: domain == .standard ? CorelibsInternals.standardDomainListing : name,
                    defaults: defaults)
            case .unknown:
                saver = LinuxSaver(domain: "?", file: nil, listedDomain: nil, defaults: defaults)
                ErrorReporting.report(
                    DefaultsError.savedBySynchronize(
                        suite: "?", reason: "the suite name of a UserDefaults made by the caller cannot be read"))
            }
            // What the file holds is read before Foundation reads it, so that anything saved after this
            // look, which Foundation may or may not have read, is brought in later; a look after
            // Foundation's read would take a value Foundation never saw for one it has.
            saver.lookOnce()
            ExitSaver.shared.add(saver)
            return saver
        }

        // MARK: Writes

        func recordWrite(_ object: Any?, forName name: String, forms: NameForms, _ held: borrowing WriteOrderHeld) {
            if pending.record(object, forName: name, forms: forms) {
                SaveScheduler.shared.schedule(self, after: Self.saveDelay)
            }
        }

        func forgetUnsavedWrites(_ held: borrowing WriteOrderHeld) {
            pending.forget()
        }

        func knownObject(forName name: String) -> KnownObject {
            guard file != nil, isASCII(name) else { return .unknown }
            let text = ExactText(name)
            if let write = pending.write(of: text) {
                return write.map(KnownObject.stored) ?? .absent
            }
            guard let contents = saves.knownContents else { return .unknown }
            return contents[text].map(KnownObject.stored) ?? .absent
        }

        func storedValues() -> [String: Any]? {
            listedDomain.map { defaults.persistentDomain(forName: $0) ?? [:] }
        }

        /// Removes the file under the file lock (the lock file stays: see `withFileLock`). Not through
        /// Foundation's `removePersistentDomain(forName:)`: it calls `synchronize()`, and a
        /// `synchronize()` of any suite rewrites every domain this process changed, the library's too, as
        /// XML, from a copy of memory taken without the library's lock, which can put older values back.
        func removeFile() {
            guard let file else {
                defaults.removePersistentDomain(forName: domain)
                return
            }
            saves.withSaving { save in
                save.known = nil
                do {
                    try saves.withFileLock(file, in: &save) { _, _ in file.removeFile() }
                    save.forgetKnownContents()
                } catch {
                    ErrorReporting.report(FileFailure.reported(error, suite: domain))
                }
            }
        }

        /// Watches the file and makes Foundation read it, once, with `receiver` where what others save
        /// goes. Every caller waits until that is done: a read racing with Foundation's first read sees an
        /// empty domain.
        func prepare(receivingIn receiver: any SavedChangeReceiver) {
            // The first caller prepares with no lock held (inotify, Foundation's read of the file); the
            // others wait until it is done.
            let preparesHere = status.withLockedValue(waking: false) { status in
                guard status.preparation == .notStarted else { return false }
                status.preparation = .preparing
                return true
            }
            guard preparesHere else { return status.wait { $0.preparation == .done } }
            inbox.receive(in: receiver)
            if let file, let refused = SuiteWatcher.shared.watch(self, file: file) {
                ErrorReporting.report(DefaultsError.notWatched(suite: domain, reason: refused))
            }
            CorelibsInternals.loadDomain(of: defaults)
            status.withLockedValue { $0.preparation = .done }
        }

        /// Takes what the file holds as the version this process knows. Called before Foundation reads the
        /// file: one that no reader may be handed (`BinaryPropertyList.isRefusedOutright`: a set, an expansion far beyond its
        /// size, a cycle) is moved aside now, under the suite's lock, and reported, so that Foundation's
        /// first read finds none instead of crashing or building gigabytes.
        func lookOnce() {
            guard let file else { return }
            let notice: DefaultsError? = saves.withSaving { save in
                guard let state = try? save.look(at: file, of: domain, movingAsideUnreadable: false),
                    state.refusedOutright
                else {
                    return nil
                }
                do {
                    return try saves.withFileLock(file, in: &save) { save, _ in
                        try save.look(at: file, of: domain, movingAsideUnreadable: true).notice
                    }
                } catch {
                    return FileFailure.reported(error, suite: domain)
                }
            }
            if let notice { ErrorReporting.report(notice) }
        }

        /// Seconds the watcher waits before it looks at a changed file, in a process started with
        /// `TYPED_DEFAULTS_TEST_WATCHER_DELAY`: a test hook, so that a test can change memory by other
        /// means (`synchronize()`) before the watcher brings the same save in. Zero otherwise.
        static let watcherDelayForTests =
            ProcessInfo.processInfo.environment["TYPED_DEFAULTS_TEST_WATCHER_DELAY"].flatMap(TimeInterval.init) ?? 0

        /// How soon a change the watcher saw while the suite's save turn was taken is looked at again.
        static let lookAgainDelay: TimeInterval = 0.05

        /// Called by the watcher when the file may have changed: brings in what someone else saved.
        func fileMayHaveChanged() {
            guard let file else { return }
            if Self.watcherDelayForTests > 0 { Thread.sleep(forTimeInterval: Self.watcherDelayForTests) }
            // Tried, never waited for: the watcher serves every suite, and this one's save may wait for
            // another process's file lock. Looked at again a moment later, until the turn is free.
            let looked = saves.withSavingIfFree { save in
                if let state = try? save.look(at: file, of: domain, movingAsideUnreadable: false) {
                    queueBringIn(state.changedElsewhere, in: &save)
                }
                return !save.putBacks.isEmpty
            }
            guard let mustPutBack = looked else {
                // One look again at a time, however many changes the watcher sees meanwhile (many
                // processes saving at once: one retry per change flooded the process with looks).
                let schedules = status.withLockedValue(waking: false) { status in
                    defer { status.looksAgain = true }
                    return !status.looksAgain
                }
                if schedules {
                    DispatchQueue.global().asyncAfter(deadline: .now() + Self.lookAgainDelay) { [weak self] in
                        guard let self else { return }
                        status.withLockedValue(waking: false) { $0.looksAgain = false }
                        fileMayHaveChanged()
                    }
                }
                return
            }
            inbox.bringInQueued().deliver()
            if mustPutBack { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
        }

        // MARK: Saving: the save's turn, the file lock, then `SaveState`'s look and save

        func flush() throws {
            let notice = try saves.withSaving { try savePending(in: &$0) }
            // Brought in once `saving` is released: this process's next save, and other processes' saves,
            // never wait for its memory.
            inbox.bringInQueued().deliver()
            if let notice { ErrorReporting.report(notice) }
        }

        /// Saves every pending write, and the keys declared since the last save.
        func savePending(in save: inout SaveState) throws -> DefaultsError? {
            guard let file else {
                guard let changes = pending.take(), !changes.isEmpty else { return nil }
                guard defaults.synchronize() else {
                    pending.restore(changes)
                    throw DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed")
                }
                return nil
            }
            var declared: ManifestKeys?
            switch declarations.takeDue() {
            case .nothing: break
            case .write(let keys): declared = keys
            case .later(let wait): SaveScheduler.shared.schedule(self, after: wait)
            }
            guard pending.isEmpty() == false || !save.putBacks.isEmpty || declared != nil else { return nil }
            do {
                let saved = try saves.withFileLock(file, in: &save) { save, locked in
                    try saveLocked(declared, to: file, in: &save, locked)
                }
                queueBringIn(saved.changedElsewhere, saving: saved.changes, in: &save)
                return saved.notice
            } catch {
                // Another process holds the file's lock (one stopped mid-save holds it for good): the
                // writes stay pending, and the save is tried again.
                if case FileFailure.timedOut = error { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
                throw FileFailure.reported(error, suite: domain)
            }
        }

        /// Writes the manifest of `declared`, if any, then saves the pending writes: the one locked save.
        private func saveLocked(
            _ declared: ManifestKeys?, to file: SuiteFile, atExit deadline: Date? = nil,
            in save: inout SaveState, _ locked: borrowing FileLockHeld
        ) throws -> SaveState.Saved {
            if let declared { writeManifest(declared, beside: file, locked) }
            return try save.save(pending, to: file, of: domain, atExit: deadline, locked)
        }

        func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
            guard let file else { return try body() }
            var notice: DefaultsError?
            let result = try saves.withSaving { save in
                do {
                    return try saves.withFileLock(file, in: &save) { save, locked in
                        let state = try save.look(at: file, of: domain, movingAsideUnreadable: true)
                        notice = state.notice
                        // The body reads what others saved: it is in memory before the body runs. The
                        // changes are numbered on the step's thread: the step announces them when it
                        // ends, once every lock is released, whichever way it ends.
                        queueBringIn(state.changedElsewhere, in: &save)
                        let unannounced = inbox.bringInQueued()
                        assert(unannounced.isEmpty, "a change numbered in a step is the step's to announce")
                        let result = try body()
                        let saved = try saveLocked(nil, to: file, in: &save, locked)
                        queueBringIn(saved.changedElsewhere, saving: saved.changes, in: &save)
                        notice = notice ?? saved.notice
                        return result
                    }
                } catch let error as FileFailure {
                    throw FileFailure.reported(error, suite: domain)
                }
            }
            inbox.bringInQueued().deliver()
            if let notice { ErrorReporting.report(notice) }
            return result
        }

        // MARK: Exit

        /// How long the exit-time save waits for a lock held elsewhere before it gives up.
        static let exitWait: TimeInterval = 2

        /// Saves what it can at exit, and never waits forever: `exit()` may be called with this saver's
        /// locks held by the exiting thread (inside `modify`'s transform, or from a signal handler that
        /// interrupted a write or a save). Values others saved are not brought into memory: the process
        /// is ending. What it cannot save is reported.
        func saveAtExit() {
            guard let file else {
                if (try? flush()) == nil {
                    ErrorReporting.report(
                        DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed at exit"))
                }
                return
            }
            let deadline = Date(timeIntervalSinceNow: Self.exitWait)
            // `exit()` inside `modify`'s transform or from a signal handler that interrupted a save: this
            // thread holds the save's turn, and maybe the file lock; nothing else in the process can.
            let refused = saves.withSavingAtExit(before: deadline) { turn, save in
                // Unknown (the pending writes stayed locked): tried, and the save reports it.
                var declared: ManifestKeys?
                if case .write(let keys) = declarations.takeDue(atExit: true) { declared = keys }
                guard pending.isEmpty(before: deadline) != true || !save.putBacks.isEmpty || declared != nil else {
                    return
                }
                do {
                    let heldHere = if case .heldHere(holdsFileLock: true) = turn { true } else { false }
                    _ = try file.withLockAtExit(before: deadline, heldHere: heldHere) { locked in
                        try saveLocked(declared, to: file, atExit: deadline, in: &save, locked)
                    }
                } catch {
                    ErrorReporting.report(FileFailure.reported(error, suite: domain))
                }
            }
            if let refused { giveUpAtExit(refused) }
        }

        func giveUpAtExit(_ reason: String) {
            ErrorReporting.report(
                DefaultsError.saveFailed(suite: domain, reason: "the exit-time save gave up, because \(reason)"))
        }

        // MARK: What others saved, on its way in (`SavedChangeInbox`)

        /// Queues what a look found that someone else saved (see `SavedChangeInbox.queue`). With `saving`
        /// (a save's writes, now in the file), the save is done with them: they stop being in flight.
        func queueBringIn(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:], in save: inout SaveState) {
            inbox.queue(changed, saving: saving, in: &save)
            if !saving.isEmpty { pending.saved() }
        }
    }
#endif
