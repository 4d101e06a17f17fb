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
    // Lock order, the one place it is written: `saving` → the suite's file lock → `bringingIn` → the
    // context's write order → `pending` (and `queued`, taken alone). A lock is only ever taken after the
    // ones before it. The process-wide maps (the suite map, the watcher's and the exit saver's lists) are
    // taken alone, never across file I/O, a save or a user callback; observers are told only once every
    // lock is released.

    /// Saves the writes the library makes to one `UserDefaults` domain on Linux.
    final class LinuxSaver: DomainSaver, @unchecked Sendable {
        // @unchecked: `UserDefaults` is thread-safe but not marked Sendable on Linux; `known` is guarded
        // by `saving`, the rest by their own locks.

        /// How long after the first of a burst of writes they are saved: far below a second, so that a
        /// process killed a second after a write has saved it, and long enough to gather a burst.
        static let saveDelay: TimeInterval = 0.1

        private struct Pending {
            /// The names this process wrote and has not saved yet, with their last object (nil: removed).
            var changes: [ExactText: Any?] = [:]
            var saveScheduled = false
        }

        /// The domain's name, as errors name it.
        let domain: String
        private let defaults: UserDefaults
        /// The name under which Foundation lists the domain's values as this process holds them; nil when
        /// the library cannot save the domain its own way.
        private let listedDomain: String?
        /// Where Foundation keeps the domain; nil when the library cannot save it its own way.
        private let file: SuiteFile?
        private let pending = Locked(Pending())
        /// Serializes saves and looks at the file within the process (the file lock does across
        /// processes), and guards `known`.
        private let saving = NSLock()
        /// The thread that holds `saving`, and whether it holds the file lock too (inside `exclusively`):
        /// what the exit-time save needs to know when `exit()` is called with them held.
        private let holder = Locked<(thread: ObjectIdentifier?, holdsFileLock: Bool)>((nil, false))
        /// What the file held when this process last read or wrote it, and that version, held open (nil
        /// when it is unknown, or there was no file): a save or a look that finds the same version does
        /// not read and parse it again, and what differs from it was saved by someone else.
        /// Also whether Foundation's `synchronize()` wrote that version (`writtenByFoundation`).
        private var known: (version: FileVersion?, contents: [ExactText: Any], writtenByFoundation: Bool)? {
            didSet { if let known { knownContents.withLock { $0 = known.contents } } }
        }
        /// The contents of the last `known` there was, for `knownObject(forName:)`, which must not wait
        /// for a save's file work (`known` is guarded by `saving`).
        private let knownContents = Locked<[ExactText: Any]?>(nil)
        private var removedStaleTemporaryFiles = false
        private let receiver = Locked<WeakReceiver>(WeakReceiver())
        private let preparing = NSLock()
        /// Guarded by `preparing`.
        private var isPrepared = false

        private struct WeakReceiver {
            weak var receiver: (any SavedChangeReceiver)?
        }

        private init(domain: String, file: SuiteFile?, listedDomain: String?, defaults: UserDefaults) {
            self.domain = domain
            self.file = file
            self.listedDomain = listedDomain
            self.defaults = defaults
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

        func attach(to receiver: any SavedChangeReceiver) {
            self.receiver.withLock { $0.receiver = receiver }
        }

        // MARK: Writes

        func recordWrite(_ object: Any?, forName name: String) {
            let mustSchedule = pending.withLock { state -> Bool in
                state.changes.updateValue(object, forKey: ExactText(name))
                defer { state.saveScheduled = true }
                return !state.saveScheduled
            }
            if mustSchedule { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
        }

        func hasUnsavedWrite(forName name: String) -> Bool {
            // Any form of the name: a write of one replaces the others (see `otherForms`).
            let others = otherForms(of: name)
            return pending.withLock { state in
                state.changes[ExactText(name)] != nil || others.contains { state.changes[ExactText($0)] != nil }
            }
        }

        func forgetUnsavedWrites() {
            pending.withLock { $0.changes.removeAll() }
        }

        func knownObject(forName name: String) -> KnownObject {
            guard file != nil, isASCII(name) else { return .unknown }
            let text = ExactText(name)
            if let write = pending.withLock({ $0.changes[text] }) {
                return write.map(KnownObject.stored) ?? .absent
            }
            guard let contents = knownContents.withLock({ $0 }) else { return .unknown }
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
            withSaving {
                known = nil
                do {
                    try withFileLock(file) { file.removeFile() }
                    knownContents.withLock { $0 = [:] }
                } catch {
                    ErrorReporting.report(reported(error))
                }
            }
        }

        // MARK: Saving

        func flush() throws {
            let notice = try withSaving { try savePending() }
            // Brought in once `saving` is released: this process's next save, and other processes' saves,
            // never wait for its memory.
            bringInQueued()
            if let notice { ErrorReporting.report(notice) }
        }

        /// Saves every pending write. Called with `saving` held.
        private func savePending() throws -> DefaultsError? {
            guard let file else {
                guard let changes = takePending(), !changes.isEmpty else { return nil }
                guard defaults.synchronize() else {
                    restorePending(changes)
                    throw DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed")
                }
                return nil
            }
            guard pending.withLock({ !$0.changes.isEmpty }) || !putBacks.isEmpty else { return nil }
            do {
                let saved = try withFileLock(file) { try savePendingLocked(to: file) }
                queueBringIn(saved.changedElsewhere, saving: saved.changes)
                return saved.notice
            } catch {
                throw reported(error)
            }
        }

        /// What a save did: the notice it gives, the writes it saved, and what its looks at the file found,
        /// from which the caller works out what others had saved meanwhile and brings it into memory.
        private struct Saved {
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

        /// Saves every pending write into `file`, whose lock this process holds, and says what others saved
        /// there meanwhile. Called with `saving` held.
        ///
        /// With `atExit`, waits for the pending writes' lock only until then.
        private func savePendingLocked(to file: SuiteFile, atExit deadline: Date? = nil) throws -> Saved {
            guard let changes = takePending(before: deadline) else {
                throw DefaultsError.saveFailed(suite: domain, reason: "the pending writes stayed locked at exit")
            }
            guard !changes.isEmpty || !putBacks.isEmpty else { return Saved() }
            do {
                if !removedStaleTemporaryFiles {
                    removedStaleTemporaryFiles = true
                    file.removeStaleTemporaryFiles()
                }
                var looks: [FileState] = []
                var notice: DefaultsError?
                var rereads = 0
                while true {
                    var state = try look(at: file, movingAsideUnreadable: true)
                    looks.append(state)
                    notice = notice ?? state.notice
                    // This process's values that Foundation's `synchronize()` wrote over, where the file
                    // still holds what it wrote: saved again, under the lock, so that a change another
                    // process made since is never undone. This process's own later writes come after them.
                    var restored: [ExactText: Any?] = [:]
                    for (name, putBack) in putBacks where sameStoredObject(state.contents[name], putBack.found) {
                        state.contents[name] = putBack.restore
                        restored.updateValue(putBack.restore, forKey: name)
                    }
                    for (name, object) in changes {
                        state.contents[name] = object
                        Self.removeOtherForms(of: name, from: &state.contents)
                    }
                    let bytes = try Self.encode(state.contents)
                    let looked = known
                    known = nil
                    // The file this save replaces stays readable to the processes that have not read it.
                    if state.writtenByFoundation { file.keepAsPlainSave() }
                    // Foundation may write into the file while this save reads it and makes the new one:
                    // then it is read again (a few times; a writer that never stops gets the last word).
                    let base = rereads < Self.rereadsForPlainSaves ? state.read : nil
                    guard
                        case .replaced(let version) = try file.replace(
                            with: bytes, keeping: state.owner, unlessRewritten: base)
                    else {
                        known = looked
                        rereads += 1
                        continue
                    }
                    known = (version, state.contents, false)
                    putBacks.removeAll()
                    let now = Date()
                    for (name, object) in restored.merging(changes, uniquingKeysWith: { $1 }) {
                        recentlySaved[name] = (object, now)
                    }
                    forgetOldSaves(now)
                    return Saved(notice: notice, changes: changes, looks: looks)
                }
            } catch {
                restorePending(changes)
                throw error
            }
        }

        func otherForms(of name: String) -> [String] {
            guard !isASCII(name) else { return [] }
            var forms: [String] = []
            for form in [name.precomposedStringWithCanonicalMapping, name.decomposedStringWithCanonicalMapping]
            where !form.utf8.elementsEqual(name.utf8) && !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
                forms.append(form)
            }
            return forms
        }

        /// Removes from `contents` every other form of `name` (composed or decomposed: Swift's equal, other
        /// bytes). Foundation keeps one form of a name in memory, and a `set` or removal of one replaces the
        /// others there; the file follows, so that what a name reads in this process is what the next
        /// launch reads. Only a name with a non-ASCII character has other forms.
        private static func removeOtherForms(of name: ExactText, from contents: inout [ExactText: Any]) {
            guard !isASCII(name.text) else { return }
            for other in contents.keys where other.text == name.text && other != name {
                contents[other] = nil
            }
        }

        /// Keeps what failed to save for the next attempt; a name written since is pending with its newer
        /// value.
        private func restorePending(_ changes: [ExactText: Any?]) {
            pending.withLock { state in
                for (name, object) in changes where state.changes[name] == nil {
                    state.changes.updateValue(object, forKey: name)
                }
            }
        }

        /// Takes the pending writes, to be saved; nil only when `deadline` (the exit-time save's) passes
        /// before their lock is free.
        private func takePending(before deadline: Date? = nil) -> [ExactText: Any?]? {
            // Not `lock(before: .distantFuture)` without a deadline: corelibs' NSLock traps on a date that far.
            guard let deadline else { return pending.withLock(Self.take) }
            return pending.withLock(before: deadline, Self.take)
        }

        private static func take(_ state: inout Pending) -> [ExactText: Any?] {
            state.saveScheduled = false
            defer { state.changes = [:] }
            return state.changes
        }

        /// The error a failure of the saver's file work is reported as.
        private func reported(_ error: any Error) -> DefaultsError {
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

        // MARK: Other processes' saves

        /// How long a save reads an unreadable file again before it moves it aside, and how long it waits
        /// between two reads. Foundation's `synchronize()` rewrites the file in place (truncates it, then
        /// writes XML), which takes milliseconds, but a writer the scheduler stops in between leaves it
        /// empty or half written for longer: on a loaded machine a tenth of a second was not enough, and
        /// moving aside the file it was writing lost values (seen here). So an empty file or the start of
        /// XML gets a second; other bytes, which nobody is writing, a tenth.
        static let halfWrittenPatience: TimeInterval = 0.1
        static let foundationWritePatience: TimeInterval = 1
        static let halfWrittenWait: TimeInterval = 0.01
        /// How many times a save reads the file again when Foundation wrote into it while the save was
        /// making the new one.
        static let rereadsForPlainSaves = 5

        /// How long after saving a value this process puts it back when a file Foundation's
        /// `synchronize()` wrote drops or changes it (see `look`).
        static let clobberWindow: TimeInterval = 1

        /// What this process saved in the last `clobberWindow` (and maybe a little longer), by name.
        /// Guarded by `saving`.
        private var recentlySaved: [ExactText: (object: Any?, at: Date)] = [:]
        private var forgotOldSavesAt = Date.distantPast
        /// The version of the suite's last plain save (`SuiteFile.plainSavePath`) this process has looked at.
        /// Guarded by `saving`.
        private var plainSaveSeen: FileIdentity?
        /// Values of `recentlySaved` that Foundation wrote over, to be saved again by the next save if the
        /// file still holds what Foundation wrote (`found`). Guarded by `saving`.
        private var putBacks: [ExactText: (found: Any?, restore: Any?)] = [:]

        /// What a look at the file found.
        private struct FileState {
            var contents: [ExactText: Any]
            /// What the file held when this process last looked, when this look read something else.
            var previous: [ExactText: Any]?
            /// Names whose value this process puts back (see `putBackWhatSynchronizeWroteOver`): not changes.
            var puttingBack: Set<ExactText> = []
            var owner: FileOwner?
            var notice: DefaultsError?
            /// The file is one Foundation's `synchronize()` wrote (not a binary property list).
            var writtenByFoundation = false
            /// The version `contents` were read from; nil when there was no file, or it was unreadable.
            var read: FileVersion?

            /// The names whose value differs from what the file held when this process last looked.
            var changedElsewhere: [ExactText: Any?] {
                guard let previous else { return [:] }
                var changed: [ExactText: Any?] = [:]
                var kept = 0
                for (name, object) in contents {
                    let old = previous[name]
                    if old != nil { kept += 1 }
                    if !puttingBack.contains(name), !sameStoredObject(object, old) {
                        changed.updateValue(object, forKey: name)
                    }
                }
                // Removed names, unless every name known is still there (the usual case).
                if kept < previous.count {
                    for name in previous.keys where contents[name] == nil && !puttingBack.contains(name) {
                        changed.updateValue(nil, forKey: name)
                    }
                }
                return changed
            }
        }

        /// Reads the file, unless it is the version this process last read or wrote, and works out which
        /// names someone else changed there. A file that is not a property list is moved aside when
        /// `movingAsideUnreadable` (a save), else left to a later look (it may be half written by hand).
        /// Called with `saving` held.
        private func look(at file: SuiteFile, movingAsideUnreadable: Bool) throws -> FileState {
            var existing = try FileVersion.open(file.path)
            var state = FileState(contents: [:], owner: existing?.owner)
            if let known, let version = known.version, version.identity == existing?.identity {
                state.contents = known.contents
                state.writtenByFoundation = known.writtenByFoundation
                state.read = version
                return state
            }
            // Foundation's `synchronize()` may have written into the version this process knew, which
            // someone has replaced since: what it wrote is read through that version, held open.
            var writtenOver: [ExactText: Any]?
            if let version = known?.version, !version.identity.sameInode(as: existing?.identity),
                version.rewrittenInPlace, let bytes = try? version.readAll(path: file.path)
            {
                writtenOver = Self.parse(bytes)
            }
            var writtenByFoundation = false
            if existing != nil {
                // Foundation's `synchronize()` rewrites the file in place, without the lock: an empty or
                // unreadable file may be one it is writing now. Never read as "no values"; a save looks
                // again for a while before it gives up on the file.
                var parsed: [ExactText: Any]?
                let started = Date()
                while let current = existing {
                    state.owner = current.owner
                    let bytes = try current.readAll(path: file.path)
                    parsed = bytes.isEmpty ? nil : Self.parse(bytes)
                    writtenByFoundation = !bytes.starts(with: Array("bplist".utf8))
                    guard parsed == nil, movingAsideUnreadable else { break }
                    let beingWritten = bytes.isEmpty || bytes.first == UInt8(ascii: "<")
                    let patience = beingWritten ? Self.foundationWritePatience : Self.halfWrittenPatience
                    guard Date().timeIntervalSince(started) < patience else { break }
                    Thread.sleep(forTimeInterval: Self.halfWrittenWait)
                    existing = try FileVersion.open(file.path)
                }
                if let parsed {
                    state.contents = parsed
                } else if existing != nil {
                    // A save keeps the bytes aside; either way this process goes on from what it last saw.
                    if movingAsideUnreadable {
                        state.notice = .unreadableFileKept(suite: domain, path: try file.moveAside())
                        state.owner = nil
                    }
                    state.contents = known?.contents ?? [:]
                    return state
                }
            }
            state.writtenByFoundation = writtenByFoundation
            // A file Foundation wrote that another process's save has replaced since this process last
            // looked: read after the suite's file, since that save keeps it before it replaces the file.
            let plainSave = newPlainSave(file)
            state.previous = known?.contents
            known = (existing, state.contents, writtenByFoundation)
            state.read = existing
            for wrote in [writtenOver, plainSave, writtenByFoundation ? state.contents : nil].compactMap({ $0 }) {
                putBackWhatSynchronizeWroteOver(wrote, &state)
            }
            return state
        }

        /// What the suite's last plain save holds, if it is not the version this process last looked at.
        /// Called with `saving` held.
        private func newPlainSave(_ file: SuiteFile) -> [ExactText: Any]? {
            guard let version = try? FileVersion.open(file.plainSavePath) else {
                plainSaveSeen = nil
                return nil
            }
            guard version.identity != plainSaveSeen else { return nil }
            plainSaveSeen = version.identity
            return (try? version.readAll(path: file.plainSavePath)).flatMap(Self.parse)
        }

        /// Foundation's `synchronize()` in another process reads the file, adds its own changes and
        /// rewrites it in place, without the lock: a save made in between is dropped from the file. So a
        /// value this process saved in the last `clobberWindow` and still knew there (`state.previous`),
        /// which what Foundation `wrote` drops or changes, is not taken as a change: the next save writes
        /// it again, if the file still holds what Foundation wrote there (a later change by anyone
        /// stands). Among concurrent writes, the library's win; a change the plain API makes to a name
        /// after that window is taken as usual. Called with `saving` held.
        private func putBackWhatSynchronizeWroteOver(_ wrote: [ExactText: Any], _ state: inout FileState) {
            let cutoff = Date(timeIntervalSinceNow: -Self.clobberWindow)
            for (name, saved) in recentlySaved
            where saved.at > cutoff && sameStoredObject(state.previous?[name], saved.object)
                && !sameStoredObject(wrote[name], saved.object)
                && sameStoredObject(state.contents[name], wrote[name])
            {
                putBacks[name] = (wrote[name], saved.object)
                state.puttingBack.insert(name)
            }
        }

        /// Drops saves older than `clobberWindow` from `recentlySaved`, at most once a window.
        private func forgetOldSaves(_ now: Date) {
            guard now.timeIntervalSince(forgotOldSavesAt) >= Self.clobberWindow else { return }
            forgotOldSavesAt = now
            let cutoff = now.addingTimeInterval(-Self.clobberWindow)
            recentlySaved = recentlySaved.filter { $0.value.at > cutoff }
        }

        /// What looks at the file found that others saved, in the order of the looks, not yet in memory:
        /// each change with whether this process saved its own value over it in the same save.
        private let queued = Locked<[ExactText: (object: Any?, savedOver: Bool)]>([:])
        /// Brings queued changes into memory one batch at a time, in the order they were queued.
        private let bringingIn = NSLock()

        /// Queues what a look found that someone else saved, but for the names this process saved over it
        /// (`saving`). Called with `saving` held, so that queued changes keep the order of the looks; a
        /// later change of a name replaces an earlier one.
        private func queueBringIn(_ changed: [ExactText: Any?], saving: [ExactText: Any?] = [:]) {
            guard !changed.isEmpty else { return }
            queued.withLock { queue in
                for (name, object) in changed {
                    // Saved over by any form of the name (see `otherForms`).
                    let savedOver =
                        saving[name] != nil || otherForms(of: name.text).contains { saving[ExactText($0)] != nil }
                    queue[name] = (object, savedOver)
                }
            }
        }

        /// Puts what others saved into this process, through the context's commit path, except names this
        /// process saved over it or has written and not saved yet: its own last write wins until it is
        /// saved. Then tells observers, with no lock held. Foundation's `set` of a name costs more the more
        /// names this process has set since it started (corelibs keeps them in a list it searches), so a
        /// large change takes a while: it is done outside `saving`, and never holds up a save.
        private func bringInQueued() {
            announce(applyQueued())
        }

        /// Tells observers of `commits`. Called with no lock held: an observer may well write and save.
        private func announce(_ commits: [Commit]) {
            guard !commits.isEmpty else { return }
            receiver.withLock { $0.receiver }?.announce(commits)
        }

        /// Brings the queued changes into memory and returns what observers must hear.
        private func applyQueued() -> [Commit] {
            guard let receiver = receiver.withLock({ $0.receiver }) else {
                queued.withLock { $0.removeAll() }
                return []
            }
            return bringingIn.withLock {
                let batch = queued.withLock { queue in
                    defer { queue.removeAll() }
                    return queue
                }
                guard !batch.isEmpty else { return [Commit]() }
                return receiver.applySavedElsewhere(batch.map { ($0.key.text, $0.value.object) }) { name in
                    batch[ExactText(name)]?.savedOver == true || hasUnsavedWrite(forName: name)
                }
            }
        }

        /// Watches the file and makes Foundation read it, once. Every caller waits until that is done:
        /// a read racing with Foundation's first read sees an empty domain.
        func prepareForFirstUse() {
            preparing.lock()
            defer { preparing.unlock() }
            guard !isPrepared else { return }
            if let file, let refused = SuiteWatcher.shared.watch(self, file: file) {
                ErrorReporting.report(DefaultsError.notWatched(suite: domain, reason: refused))
            }
            CorelibsInternals.loadDomain(of: defaults)
            isPrepared = true
        }

        /// Takes what the file holds as the version this process knows.
        private func lookOnce() {
            guard let file else { return }
            withSaving { _ = try? look(at: file, movingAsideUnreadable: false) }
        }

        /// Called by the watcher when the file may have changed: brings in what someone else saved.
        func fileMayHaveChanged() {
            guard let file else { return }
            let mustPutBack = withSaving {
                if let state = try? look(at: file, movingAsideUnreadable: false) {
                    queueBringIn(state.changedElsewhere)
                }
                return !putBacks.isEmpty
            }
            bringInQueued()
            if mustPutBack { SaveScheduler.shared.schedule(self, after: Self.saveDelay) }
        }

        func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
            guard let file else { return try body() }
            var notice: DefaultsError?
            var commits: [Commit] = []
            let result = try withSaving {
                do {
                    return try withFileLock(file) {
                        let state = try look(at: file, movingAsideUnreadable: true)
                        notice = state.notice
                        // The body reads what others saved: it is in memory before the body runs.
                        queueBringIn(state.changedElsewhere)
                        commits = applyQueued()
                        let result = try body()
                        let saved = try savePendingLocked(to: file)
                        queueBringIn(saved.changedElsewhere, saving: saved.changes)
                        notice = notice ?? saved.notice
                        return result
                    }
                } catch let error as FileFailure {
                    throw reported(error)
                }
            }
            announce(commits)
            bringInQueued()
            if let notice { ErrorReporting.report(notice) }
            return result
        }

        /// `body` holding `saving`, with this thread recorded as its holder: the one way `saving` is taken
        /// (but at exit), so that the exit-time save knows when the exiting thread holds it.
        private func withSaving<Result>(_ body: () throws -> Result) rethrows -> Result {
            saving.lock()
            holder.withLock { $0.thread = ObjectIdentifier(Thread.current) }
            defer {
                holder.withLock { $0 = (nil, false) }
                saving.unlock()
            }
            return try body()
        }

        /// `body` holding the suite's file lock, recorded for the exit-time save. Called with `saving` held.
        private func withFileLock<Result>(_ file: SuiteFile, _ body: () throws -> Result) throws -> Result {
            try file.withLock {
                holder.withLock { $0.holdsFileLock = true }
                defer { holder.withLock { $0.holdsFileLock = false } }
                return try body()
            }
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
            let this = ObjectIdentifier(Thread.current)
            guard let held = holder.withLock(before: deadline, { $0 }) else {
                return giveUpAtExit("its bookkeeping stayed locked")
            }
            // `exit()` inside `modify`'s transform or from a signal handler that interrupted a save: this
            // thread holds `saving`, and maybe the file lock; nothing else in the process can.
            let holdsSaving = held.thread == this
            if !holdsSaving {
                guard saving.lock(before: deadline) else {
                    return giveUpAtExit("another thread's save held the suite for \(Int(Self.exitWait)) s")
                }
            }
            defer { if !holdsSaving { saving.unlock() } }
            guard pending.withLock(before: deadline, { !$0.changes.isEmpty }) ?? true || !putBacks.isEmpty else {
                return
            }
            do {
                if holdsSaving && held.holdsFileLock {
                    _ = try savePendingLocked(to: file, atExit: deadline)
                } else {
                    _ = try file.withLock(before: deadline) { try savePendingLocked(to: file, atExit: deadline) }
                }
            } catch {
                ErrorReporting.report(reported(error))
            }
        }

        private func giveUpAtExit(_ reason: String) {
            ErrorReporting.report(
                DefaultsError.saveFailed(suite: domain, reason: "the exit-time save gave up, because \(reason)"))
        }

        // MARK: The file's format

        /// The dictionary in a suite's file: the library's own reader for the binary files it writes, and
        /// Foundation's for anything else (an XML file from `synchronize()`, kinds the reader leaves).
        /// Names are kept by their bytes (``ExactText``): a file may hold two forms of one text that Swift
        /// takes for equal, and Foundation keeps both.
        private static func parse(_ bytes: [UInt8]) -> [ExactText: Any]? {
            if let dictionary = BinaryPropertyList.decode(bytes) { return dictionary }
            // Foundation's parser crashes on a set and reads a domain with a UID as empty: such a file is
            // one the library cannot read.
            if BinaryPropertyList.holdsSetOrUID(bytes) { return nil }
            guard let parsed = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil),
                let dictionary = parsed as? [String: Any]
            else { return nil }
            // Foundation's objects (NSNumber, ...) are left to Foundation's slow encoder, save after save:
            // take them through its binary form once, which the library's reader turns into Swift values.
            if let binary = try? PropertyListSerialization.data(fromPropertyList: parsed, format: .binary, options: 0),
                let dictionary = BinaryPropertyList.decode([UInt8](binary))
            {
                return dictionary
            }
            return Dictionary(uniqueKeysWithValues: dictionary.map { (ExactText($0), $1) })
        }

        private static func encode(_ contents: [ExactText: Any]) throws -> [UInt8] {
            if let bytes = BinaryPropertyList.encode(contents) { return bytes }
            let named = NSMutableDictionary()
            for (name, object) in contents { named[NSString(string: name.text)] = object }
            do {
                return [UInt8](
                    try PropertyListSerialization.data(fromPropertyList: named, format: .binary, options: 0))
            } catch {
                throw FileFailure.failed(action: "cannot encode the values (\(error)) of", path: "the suite", nil)
            }
        }
    }
#endif
