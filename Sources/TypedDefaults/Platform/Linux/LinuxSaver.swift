#if os(Linux)
    import Foundation

    // Linux (swift-corelibs-foundation) writes a value to disk only in `synchronize()`, which rewrites the
    // whole file as XML and races with other processes; and reads a suite's file once. So the library
    // saves its own writes (after a burst, at `flush()`, at exit: under the suite's file lock, merged
    // into what the file holds, replaced atomically) and watches the file (`SuiteWatcher`), bringing
    // what others saved in through the context's commit path. What it promises: Linux.md; how: the
    // types below, each owning its state (CONTRIBUTING.md).

    /// Saves the writes the library makes to one `UserDefaults` domain on Linux.
    final class LinuxSaver: DomainSaver, @unchecked Sendable {
        // @unchecked: `UserDefaults` is thread-safe but not Sendable on Linux; the rest is `let`s of lock owners.

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
        let saves: SaveLock
        /// What others saved, on its way into memory.
        let inbox: SavedChangeInbox
        /// Whether the domain is ready (`prepare`): the first caller prepares it, with the box released;
        /// the others wait on it. A leaf, as every box without a rank (checked in debug builds).
        let status = ConditionLocked(Status())
        let declarations = DeclaredKeys()

        private init(domain: String, file: SuiteFile?, listedDomain: String?, defaults: UserDefaults) {
            self.domain = domain
            self.file = file
            self.listedDomain = listedDomain
            self.defaults = defaults
            inbox = SavedChangeInbox(unsavedWritesIn: pending)
            saves = SaveLock(keepingKnownContentsIn: pending)
            pending.schedulesSaves(of: self)
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
            if let file = saver.file, let notice = saver.saves.lookOnce(at: file, of: saver.domain) {
                ErrorReporting.report(notice)
            }
            ExitSaver.shared.add(saver)
            return saver
        }

        // MARK: Writes

        var writes: any WriteRecord { pending }

        func knownObject(forName name: String) -> KnownObject {
            file == nil || !isASCII(name) ? .unknown : pending.knownObject(of: ExactText(name))
        }

        func storedValues() -> [String: Any]? {
            listedDomain.map { defaults.persistentDomain(forName: $0) ?? [:] }
        }

        /// Removes the file (`SaveLock.removeFile`).
        func removeFile() {
            guard let file else {
                defaults.removePersistentDomain(forName: domain)
                return
            }
            saves.removeFile(file, of: domain)
        }

        /// Watches the file and makes Foundation read it, once, with `receiver` where what others save
        /// goes. Every caller waits until that is done: a read racing with Foundation's first read sees an
        /// empty domain.
        func prepare(receivingIn receiver: any SavedChangeReceiver) {
            // The first caller prepares under no lock but a step's turns (checked); the others wait for it.
            LockOrder.checkNoLockHeld(insideStep: true)
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
            guard let mustPutBack = saves.lookIfFree(at: file, of: domain, into: inbox) else {
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
                return try saves.save(pending, manifest: declared, to: file, of: domain, into: inbox, in: &save)
            } catch {
                // Another process holds the file's lock (one stopped mid-save holds it for good): the
                // writes stay pending, and the save is tried again.
                if case FileFailure.timedOut = error { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
                throw FileFailure.reported(error, suite: domain)
            }
        }

        func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
            guard let file else { return try body() }
            var notice: DefaultsError?
            let result = try saves.withSaving { save in
                do {
                    return try saves.exclusively(
                        pending, to: file, of: domain, into: inbox, in: &save, notice: &notice, body)
                } catch let error as FileFailure {
                    throw FileFailure.reported(error, suite: domain)
                }
            }
            inbox.bringInQueued().deliver()
            if let notice { ErrorReporting.report(notice) }
            return result
        }

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
            saves.saveAtExit(pending, to: file, of: domain, before: Date(timeIntervalSinceNow: Self.exitWait)) {
                if case .write(let keys) = declarations.takeDue(atExit: true) { return keys }
                return nil
            }
        }
    }
#endif
