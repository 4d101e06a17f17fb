import Foundation

// The one place where platforms differ.
//
// Apple platforms: the system's preferences daemon persists every `UserDefaults` write, keeps full date
// precision and merges writers from several processes. Nothing to do.
//
// Linux (swift-corelibs-foundation): a value is written to disk only by `synchronize()`, which rewrites
// the whole file as an XML property list (dates lose their fractional seconds) and races with other
// processes doing the same. So the library records each write it makes and saves them itself: a short
// while after a burst of writes, at `flush()`, and when the process exits. Saving takes a file lock
// shared with other processes, reads the file (unless it is unchanged since this process last read or
// wrote it), applies only this process's changes, and replaces the file atomically with a binary
// property list, which keeps dates exact and Foundation reads as before. It never follows a symbolic
// link, never opens anything but a regular file, and never replaces a file it could not read.
//
// Foundation on Linux also reads a suite's file once and never again, so the library watches the
// file (inotify) once a key of the suite is used, and brings values another process saved (or a hand
// edit) into this process's `UserDefaults`, telling observers, unless this process has an unsaved
// write of its own for that name.

/// A name whose value changed in the suite's file through another process's save or a hand edit, with
/// the objects this process's `UserDefaults` held before and holds now.
struct SavedChange {
    let name: String
    let oldObject: Any?
    let newObject: Any?
}

#if canImport(Darwin)

    /// Apple platforms persist `UserDefaults` themselves: no persistence is ever made there.
    final class Persistence: Sendable {
        static func make(domain: String?, defaults: UserDefaults) -> Persistence? { nil }
        /// Whether Foundation can be handed the suite at all: always, on Apple platforms.
        static func suiteFileIsUsable(_ suiteName: String) -> Bool { true }
        func store(_ object: Any?, forKey key: String) {}
        func flush() throws {}
        func removeDomain() {}
        func storedValues() -> [String: Any]? { nil }
        func watch() {}
        func loadOnce() {}
        func onChangesSaved(elsewhere handler: @escaping @Sendable ([SavedChange]) -> Void) {}
        func exclusively<Result>(_ body: () throws -> Result) throws -> Result { try body() }
    }

#else

    /// Saves the writes the library makes to one `UserDefaults` domain on Linux.
    final class Persistence: @unchecked Sendable {
        // @unchecked: `UserDefaults` is thread-safe but not marked Sendable on Linux; the rest is
        // guarded by locks.
        /// How long after the first of a burst of writes they are saved: far below a second, so that a
        /// process killed a second after a write has saved it, and long enough to gather a burst.
        static let saveDelay: DispatchTimeInterval = .milliseconds(100)

        private struct Pending {
            /// The names this process wrote through the library and has not saved yet, with their last
            /// object (nil: removed).
            var changes: [String: Any?] = [:]
            var saveScheduled = false
            /// Whether the file is watched for other processes' saves.
            var isWatched = false
        }

        /// What a look at the file found.
        private struct FileState {
            var contents: [String: Any]
            /// The names whose value differs from what the file held when this process last looked.
            var changedElsewhere: [String: Any?]
            var owner: FileOwner?
            var notice: DefaultsError?
        }

        private let domain: String
        private let defaults: UserDefaults
        /// The name under which Foundation lists the domain's values as this process holds them, saved or
        /// not; nil when the library cannot save the domain its own way.
        private let listedDomain: String?
        /// Where Foundation keeps the domain; nil when the library cannot save it its own way.
        private let file: SuiteFile?
        private let pending = Locked(Pending())
        /// Orders writers, and the values other processes saved: a value and the record that it must be
        /// saved change together.
        private let writeOrder = NSLock()
        /// Serializes saves and looks at the file within the process; the file lock serializes saves
        /// across processes. Also guards `known`.
        private let saving = NSLock()
        /// What the file held when this process last read or wrote it, and that version, held open (nil
        /// when it is unknown, or there was no file): a save or a look that finds the same version does
        /// not read and parse it again, and what differs from it was saved by someone else.
        private var known: (version: ExistingFile?, contents: [String: Any])?
        /// Who hears of values saved elsewhere: the storage's observers.
        private let changeHandler = Locked<(@Sendable ([SavedChange]) -> Void)?>(nil)

        private init(domain: String, file: SuiteFile?, listedDomain: String?, defaults: UserDefaults) {
            self.domain = domain
            self.file = file
            self.listedDomain = listedDomain
            self.defaults = defaults
        }

        deinit {
            // The last store over a `UserDefaults` made by the caller is gone: save what it wrote.
            do {
                try flush()
            } catch {
                ErrorReporting.report(error)
            }
        }

        /// A persistence for `defaults`; `domain` is its suite name, or nil for a `UserDefaults` made by
        /// the caller, whose suite name is then read from Foundation's object.
        static func make(domain: String?, defaults: UserDefaults) -> Persistence? {
            let suite = domain.map { .some($0) } ?? suiteName(of: defaults)
            let persistence: Persistence
            if let suite {
                let name = suite ?? StorageContext.standardDomain
                // swift-corelibs-foundation lists the standard domain's values, saved or not, under the
                // name of `kCFPreferencesCurrentApplication`; under the process name it lists only the file.
                let isStandard = defaults === UserDefaults.standard || suite == nil
                persistence = Persistence(
                    domain: name, file: SuiteFile(domain: name),
                    listedDomain: isStandard ? "kCFPreferencesCurrentApplication" : name, defaults: defaults)
            } else {
                // Foundation's object no longer shows its suite name: say so, once, and let it save.
                persistence = Persistence(domain: "?", file: nil, listedDomain: nil, defaults: defaults)
                ErrorReporting.report(
                    DefaultsError.savedBySynchronize(
                        suite: "?", reason: "the suite name of a UserDefaults made by the caller cannot be read"))
            }
            // What the file holds is read before Foundation reads it, so that anything saved after this
            // look, which Foundation may or may not have read, is brought in later; a look after
            // Foundation's read would take a value Foundation never saw for one it has.
            persistence.lookOnce()
            ExitSaver.shared.add(persistence)
            return persistence
        }

        /// The suite name of a `UserDefaults`, read from swift-corelibs-foundation's stored property
        /// `suite` (nil for the standard domain); nil when that property is not there.
        private static func suiteName(of defaults: UserDefaults) -> String?? {
            for child in Mirror(reflecting: defaults).children where child.label == "suite" {
                if let suite = child.value as? String? { return .some(suite) }
            }
            return nil
        }

        /// The domain's values as this process holds them, written through the library or not, saved or
        /// not; nil when Foundation cannot list them.
        func storedValues() -> [String: Any]? {
            listedDomain.map { defaults.persistentDomain(forName: $0) ?? [:] }
        }

        /// Whether Foundation can be handed suite `suiteName`: not when its file, or what a link there
        /// leads to, is a FIFO, a socket or a device, where Foundation's first read would wait forever or
        /// never end. Anything else (a link, a directory, a file that cannot be read) is the save's to
        /// refuse and report.
        static func suiteFileIsUsable(_ suiteName: String) -> Bool {
            guard let file = SuiteFile(domain: suiteName) else { return false }
            var status = stat()
            guard stat(file.path, &status) == 0 else { return true }
            let kind = status.st_mode & S_IFMT
            return kind == S_IFREG || kind == S_IFDIR
        }

        /// Stores `object` under `key` (`nil` removes it) and records the change to be saved. Writers take
        /// `writeOrder` around both, so the records change in the order the values do and the file ends
        /// with the value memory ends with. The saver never takes `writeOrder`: holding `pending` across
        /// Foundation's `set` (about 10 µs) made the saver wait on every write and each write pay to
        /// wake it (measured: a futex wake per write, writes 15 % slower).
        func store(_ object: Any?, forKey key: String) {
            writeOrder.lock()
            defer { writeOrder.unlock() }
            if let object {
                defaults.set(object, forKey: key)
            } else {
                defaults.removeObject(forKey: key)
            }
            let mustSchedule = pending.withLock { state -> Bool in
                state.changes.updateValue(object, forKey: key)
                defer { state.saveScheduled = true }
                return !state.saveScheduled
            }
            if mustSchedule {
                DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + Self.saveDelay) { [self] in
                    do {
                        try flush()
                    } catch {
                        ErrorReporting.report(error)
                    }
                }
            }
        }

        /// Removes every value of the domain from memory, forgets its unsaved writes, and removes its file
        /// and lock file (a symbolic link there is removed, not followed). Not through Foundation's
        /// `removePersistentDomain(forName:)`: it calls `synchronize()`, and a `synchronize()` of any suite
        /// rewrites every domain this process changed, the library's too, as XML, from a copy of memory
        /// taken without the library's lock (measured), which can put older values back on disk.
        func removeDomain() {
            guard listedDomain != nil else {
                defaults.removePersistentDomain(forName: domain)
                return
            }
            writeOrder.lock()
            pending.withLock { $0.changes.removeAll() }
            for name in (storedValues() ?? [:]).keys {
                defaults.removeObject(forKey: name)
            }
            writeOrder.unlock()
            guard let file else { return }
            saving.lock()
            defer { saving.unlock() }
            known = nil
            unlink(file.path)
            unlink(file.lockPath)
        }

        /// Saves every pending write now.
        func flush() throws {
            saving.lock()
            var saved: (notice: DefaultsError?, elsewhere: [SavedChange]) = (nil, [])
            do {
                defer { saving.unlock() }
                saved = try savePending()
            }
            // Told once the locks are released: an observer or a handler may well save again.
            deliver(saved.elsewhere)
            if let notice = saved.notice { ErrorReporting.report(notice) }
        }

        /// Saves every pending write. Called with `saving` held.
        private func savePending() throws -> (notice: DefaultsError?, elsewhere: [SavedChange]) {
            guard let file else {
                let changes = takePending()
                guard !changes.isEmpty else { return (nil, []) }
                guard defaults.synchronize() else {
                    restorePending(changes)
                    throw fail("synchronize() failed")
                }
                return (nil, [])
            }
            guard pending.withLock({ !$0.changes.isEmpty }) else { return (nil, []) }
            return try file.withLock(fail: fail) { try savePendingLocked(to: file) }
        }

        /// Saves every pending write into `file`, whose lock this process holds, and brings in what others
        /// saved there meanwhile. Called with `saving` held.
        private func savePendingLocked(to file: SuiteFile) throws -> (notice: DefaultsError?, elsewhere: [SavedChange])
        {
            let changes = takePending()
            guard !changes.isEmpty else { return (nil, []) }
            do {
                file.removeStaleTemporaryFiles(once: &removedStaleTemporaryFiles)
                var state = try look(at: file, movingAsideUnreadable: true)
                let elsewhere = bringIn(state.changedElsewhere, except: changes)
                for (key, object) in changes {
                    state.contents[key] = object
                }
                let bytes = try Self.encode(state.contents, fail: fail)
                known = nil
                let version = try file.replace(with: bytes, keeping: state.owner, fail: fail)
                known = (version, state.contents)
                return (state.notice, elsewhere)
            } catch {
                restorePending(changes)
                throw error
            }
        }

        /// Keeps what failed to save for the next attempt; a name written since is pending with its newer
        /// value.
        private func restorePending(_ changes: [String: Any?]) {
            pending.withLock { state in
                for (name, object) in changes where state.changes[name] == nil {
                    state.changes.updateValue(object, forKey: name)
                }
            }
        }

        /// Takes the pending writes, to be saved.
        private func takePending() -> [String: Any?] {
            pending.withLock { state in
                state.saveScheduled = false
                defer { state.changes = [:] }
                return state.changes
            }
        }

        private func fail(_ reason: String) -> DefaultsError {
            DefaultsError.saveFailed(suite: domain, reason: reason)
        }

        /// Reads the file, unless it is the version this process last read or wrote, and works out which
        /// names someone else changed there. A file that is not a property list is moved aside when
        /// `movingAsideUnreadable` (a save), else left to a later look (it may be half written by hand).
        /// Called with `saving` held.
        private func look(at file: SuiteFile, movingAsideUnreadable: Bool) throws -> FileState {
            let existing = try ExistingFile(path: file.path, domain: domain)
            var state = FileState(contents: [:], changedElsewhere: [:], owner: existing?.owner)
            if let known, let identity = known.version?.identity, identity == existing?.identity {
                state.contents = known.contents
                return state
            }
            if let existing {
                let bytes = try existing.readAll(fail: fail)
                if !bytes.isEmpty {
                    if let parsed = Self.parse(bytes) {
                        state.contents = parsed
                    } else {
                        // A save keeps the bytes aside; either way this process goes on from what it
                        // last saw.
                        if movingAsideUnreadable {
                            state.notice = try keepUnreadableFile(file.path)
                            state.owner = nil
                        }
                        state.contents = known?.contents ?? [:]
                        return state
                    }
                }
            }
            if let known {
                for (name, object) in state.contents where !propertyListsEqual(object, known.contents[name]) {
                    state.changedElsewhere.updateValue(object, forKey: name)
                }
                for name in known.contents.keys where state.contents[name] == nil {
                    state.changedElsewhere.updateValue(nil, forKey: name)
                }
            }
            known = (state.notice == nil ? existing : nil, state.contents)
            return state
        }

        /// Puts values someone else saved into this process's `UserDefaults`, except for names this
        /// process has written and not saved yet (or is saving now, `saving`): its own last write wins
        /// until it is saved. Returns what observers must hear.
        private func bringIn(_ changed: [String: Any?], except saving: [String: Any?] = [:]) -> [SavedChange] {
            guard !changed.isEmpty else { return [] }
            writeOrder.lock()
            defer { writeOrder.unlock() }
            let unsaved = pending.withLock { $0.changes }
            let held = storedValues() ?? [:]
            var brought: [SavedChange] = []
            for (name, object) in changed where saving[name] == nil && unsaved[name] == nil {
                // Already so here (Foundation read it, or this process wrote it): nothing to bring in.
                if propertyListsEqual(held[name], object) { continue }
                let oldObject = defaults.object(forKey: name)
                if let object {
                    defaults.set(object, forKey: name)
                } else {
                    defaults.removeObject(forKey: name)
                }
                brought.append(SavedChange(name: name, oldObject: oldObject, newObject: defaults.object(forKey: name)))
            }
            return brought
        }

        private func deliver(_ changes: [SavedChange]) {
            guard !changes.isEmpty, let handler = changeHandler.withLock({ $0 }) else { return }
            handler(changes)
        }

        /// Sets who hears of values saved elsewhere.
        func onChangesSaved(elsewhere handler: @escaping @Sendable ([SavedChange]) -> Void) {
            changeHandler.withLock { $0 = handler }
        }

        /// Makes Foundation read the domain's file, once, before any read through a key: Foundation reads
        /// it at the first read, and reads racing with that first one see an empty domain (measured: four
        /// threads reading a saved suite at once, one run in six gave three of them the default). Called
        /// at the first use of each key, so a read through a key that is already bound comes after it.
        /// Not when the store is made: a first read before the keys' defaults are registered made every
        /// later read of the suite 15 % slower (measured: two suites, 10,000 registered keys).
        func loadOnce() {
            loading.lock()
            defer { loading.unlock() }
            guard !isLoaded else { return }
            isLoaded = true
            _ = defaults.object(forKey: "TypedDefaults.load")
        }
        private let loading = NSLock()
        private var isLoaded = false

        /// Starts watching the file for other processes' saves, once.
        func watch() {
            let isNew = pending.withLock { state in
                defer { state.isWatched = true }
                return !state.isWatched
            }
            guard let file, isNew else { return }
            SuiteWatcher.shared.watch(self, file: file)
        }

        /// Takes what the file holds as the version this process knows.
        private func lookOnce() {
            guard let file else { return }
            saving.lock()
            defer { saving.unlock() }
            _ = try? look(at: file, movingAsideUnreadable: false)
        }

        /// Called by the watcher when the file may have changed: brings in what someone else saved.
        func fileMayHaveChanged() {
            guard let file else { return }
            saving.lock()
            var changes: [SavedChange] = []
            do {
                defer { saving.unlock() }
                if let state = try? look(at: file, movingAsideUnreadable: false) {
                    changes = bringIn(state.changedElsewhere)
                }
            }
            deliver(changes)
        }

        /// Runs `body` so that no other `exclusively` of this domain runs meanwhile, in this process or, under
        /// the file lock, in any other: first brings in what others saved, then runs `body`, then saves
        /// what it wrote before the lock is released.
        func exclusively<Result>(_ body: () throws -> Result) throws -> Result {
            guard let file else { return try body() }
            saving.lock()
            var elsewhere: [SavedChange] = []
            var notice: DefaultsError?
            let result: Result
            do {
                defer { saving.unlock() }
                result = try file.withLock(fail: fail) {
                    let state = try look(at: file, movingAsideUnreadable: true)
                    notice = state.notice
                    elsewhere = bringIn(state.changedElsewhere)
                    let result = try body()
                    let saved = try savePendingLocked(to: file)
                    elsewhere += saved.elsewhere
                    notice = notice ?? saved.notice
                    return result
                }
            }
            deliver(elsewhere)
            if let notice { ErrorReporting.report(notice) }
            return result
        }

        private var removedStaleTemporaryFiles = false

        /// The dictionary in a suite's file: the library's own reader for the binary files it writes, and
        /// Foundation's for anything else (an XML file from `synchronize()`, kinds the reader leaves).
        private static func parse(_ bytes: [UInt8]) -> [String: Any]? {
            if let dictionary = BinaryPropertyList.decode(bytes) { return dictionary }
            guard
                let parsed = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
                    as? [String: Any]
            else { return nil }
            // Foundation's objects (NSNumber, ...) are left to Foundation's slow encoder, save after save:
            // take them through its binary form once, which the library's reader turns into Swift values.
            if let binary = try? PropertyListSerialization.data(fromPropertyList: parsed, format: .binary, options: 0),
                let dictionary = BinaryPropertyList.decode([UInt8](binary))
            {
                return dictionary
            }
            return parsed
        }

        private static func encode(_ contents: [String: Any], fail: (String) -> DefaultsError) throws -> [UInt8] {
            if let bytes = BinaryPropertyList.encode(contents) { return bytes }
            do {
                return [UInt8](
                    try PropertyListSerialization.data(fromPropertyList: contents, format: .binary, options: 0))
            } catch {
                throw fail("cannot encode: \(error)")
            }
        }

        /// Moves a file that is not a property-list dictionary aside, so that saving does not overwrite
        /// bytes it cannot read: they may be a user's values that another tool can recover. Throws, and
        /// so saves nothing, when the file cannot be moved; returns the notice to report.
        private func keepUnreadableFile(_ path: String) throws -> DefaultsError {
            let keptPath = path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
            guard rename(path, keptPath) == 0 else {
                throw DefaultsError.saveFailed(
                    suite: domain, reason: "\(path) is not a property list and cannot be moved aside: \(errnoText())")
            }
            return .unreadableFileKept(suite: domain, path: keptPath)
        }
    }

    // MARK: The suite's files

    /// Where Foundation keeps a domain on Linux, by its own rules (measured with swift-corelibs-foundation
    /// 6.3.1): `$XDG_CONFIG_HOME/<domain>.plist` when the variable is an absolute path, else
    /// `$HOME/.config/<domain>.plist`, where an unset or empty `HOME` gives `/.config` and a relative one
    /// is taken from the working directory. Not `NSHomeDirectory()`, which reads the password file.
    struct SuiteFile {
        let directory: String
        /// The file's name in `directory`: `<domain>.plist`.
        let fileName: String
        let path: String
        let lockPath: String
        /// The temporary files of this suite start with it; a random suffix follows.
        let temporaryPrefix: String

        /// The files of `domain`, or nil when `domain` is not a plain file name.
        init?(domain: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
            guard SuiteName.isPlainFileName(domain) else { return nil }
            let configHome = environment["XDG_CONFIG_HOME"] ?? ""
            directory = configHome.hasPrefix("/") ? configHome : (environment["HOME"] ?? "") + "/.config"
            fileName = domain + ".plist"
            path = directory + "/" + fileName
            lockPath = directory + "/." + domain + ".plist.lock"
            temporaryPrefix = "." + domain + ".plist.tmp-"
        }

        /// Runs `body` holding the suite's file lock (see `withFileLock`), creating the folder first, as
        /// Foundation does at its first save.
        func withLock<Result>(fail: (String) -> DefaultsError, _ body: () throws -> Result) throws -> Result {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return try withFileLock(at: lockPath, fail: fail, body)
        }

        /// Removes temporary files left by a save that was killed, once per process. Called under the
        /// file lock: no other save is writing one then.
        func removeStaleTemporaryFiles(once done: inout Bool) {
            guard !done else { return }
            done = true
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for name in names where name.hasPrefix(temporaryPrefix) {
                unlink(directory + "/" + name)
            }
        }

        /// Writes `data` to a new temporary file beside the target and renames it over the target, so
        /// that a reader or a crash sees the old file or the new one, never half of one. The temporary
        /// file has a name nobody can predict and is created, never opened: a link planted there makes
        /// the save fail rather than write through it. It takes the mode and owner of the file it
        /// replaces. Returns the new file's identity, or nil when it cannot be known for certain.
        ///
        /// No `fsync`: the claim is that values survive the process (exit, a kill), which the page cache
        /// guarantees; surviving a power cut would cost a disk flush per save (measured: it doubles a
        /// save), and Foundation's own `synchronize()` does not flush either.
        func replace(with bytes: [UInt8], keeping owner: FileOwner?, fail: (String) -> DefaultsError) throws
            -> ExistingFile?
        {
            let temporaryPath = directory + "/" + temporaryPrefix + Self.randomSuffix()
            let descriptor = open(
                temporaryPath, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, owner?.mode ?? 0o600)
            guard descriptor >= 0 else { throw fail("cannot create \(temporaryPath): \(errnoText())") }
            do {
                if let owner {
                    guard fchmod(descriptor, owner.mode) == 0 else {
                        throw fail("cannot keep the file's mode: \(errnoText())")
                    }
                    if owner.user != geteuid() || owner.group != getegid() {
                        guard fchown(descriptor, owner.user, owner.group) == 0 else {
                            throw fail(
                                "\(path) belongs to user \(owner.user), and it cannot be kept so: \(errnoText())")
                        }
                    }
                }
                try writeAll(bytes, to: descriptor, path: temporaryPath, fail: fail)
                guard rename(temporaryPath, path) == 0 else { throw fail("cannot replace \(path): \(errnoText())") }
            } catch {
                close(descriptor)
                unlink(temporaryPath)
                throw error
            }
            // Kept open, so that no other file can take its inode number while this process recognizes
            // the version by it; trusted only if the name still leads to it.
            let written = ExistingFile(written: descriptor)
            var status = stat()
            guard lstat(path, &status) == 0, let after = FileIdentity(status), after.sameFile(as: written.identity)
            else { return nil }
            return written
        }

        private func writeAll(_ bytes: [UInt8], to descriptor: Int32, path: String, fail: (String) -> DefaultsError)
            throws
        {
            var offset = 0
            while offset < bytes.count {
                let count = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw fail("cannot write \(path): \(errnoText())")
                }
                // A write that makes no progress without an error: the disk is full.
                guard count > 0 else { throw fail("cannot write \(path): no space left on the device") }
                offset += count
            }
        }

        private static func randomSuffix() -> String {
            let characters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
            return String((0..<12).map { _ in characters.randomElement()! })
        }
    }

    /// What identifies one version of a file: a save that finds the same identity knows the contents.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec
        let changed: timespec

        init?(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        func sameFile(as other: FileIdentity?) -> Bool {
            guard let other else { return false }
            return device == other.device && inode == other.inode && size == other.size
        }

        static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
            lhs.sameFile(as: rhs) && lhs.modified.tv_sec == rhs.modified.tv_sec
                && lhs.modified.tv_nsec == rhs.modified.tv_nsec && lhs.changed.tv_sec == rhs.changed.tv_sec
                && lhs.changed.tv_nsec == rhs.changed.tv_nsec
        }
    }

    /// The mode and owner a replaced file keeps.
    struct FileOwner {
        let mode: mode_t
        let user: uid_t
        let group: gid_t

        init(_ status: stat) {
            mode = status.st_mode & 0o7777
            user = status.st_uid
            group = status.st_gid
        }
    }

    /// The suite's file as it is before a save, opened without following a link and without waiting:
    /// nil when there is none. Anything but a readable regular file makes the save fail, and is left as
    /// it is.
    ///
    /// Also a version of the file this process knows: held open, its inode number cannot be given to a new
    /// file, so an identity that matches it is that very version (the status times alone would not
    /// tell: they move in steps of a clock tick, several milliseconds, and saves come faster).
    final class ExistingFile {
        let descriptor: Int32
        let identity: FileIdentity?
        let owner: FileOwner

        /// The file just written through `descriptor`, its identity taken after the rename.
        init(written descriptor: Int32) {
            self.descriptor = descriptor
            var status = stat()
            fstat(descriptor, &status)
            identity = FileIdentity(status)
            owner = FileOwner(status)
        }

        init?(path: String, domain: String) throws {
            let fail = { (reason: String) in DefaultsError.fileRefused(suite: domain, path: path, reason: reason) }
            let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            guard descriptor >= 0 else {
                switch errno {
                case ENOENT: return nil
                case ELOOP: throw fail("it is a symbolic link, which the library does not follow")
                default: throw fail("it cannot be read: \(errnoText())")
                }
            }
            var status = stat()
            guard fstat(descriptor, &status) == 0 else {
                let reason = errnoText()
                close(descriptor)
                throw fail("its status cannot be read: \(reason)")
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                close(descriptor)
                throw fail("it is not a regular file")
            }
            self.descriptor = descriptor
            identity = FileIdentity(status)
            owner = FileOwner(status)
        }

        deinit { close(descriptor) }

        func readAll(fail: (String) -> DefaultsError) throws -> [UInt8] {
            var bytes: [UInt8] = []
            bytes.reserveCapacity(Int(identity?.size ?? 0) + 1)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    throw fail("cannot read the file: \(errnoText())")
                }
                if count == 0 { return bytes }
                bytes.append(contentsOf: buffer[0..<count])
            }
        }
    }

    /// Runs `body` holding an exclusive lock on the suite's lock file, shared with every process that
    /// saves the suite. The lock file is opened without following a link and must be a regular file.
    func withFileLock<Result>(at path: String, fail: (String) -> DefaultsError, _ body: () throws -> Result) throws
        -> Result
    {
        let descriptor = open(path, O_CREAT | O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw fail("cannot open the lock file \(path): \(errnoText())") }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw fail("the lock file \(path) is not a regular file")
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw fail("cannot lock \(path): \(errnoText())") }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    private func errnoText() -> String { String(cString: strerror(errno)) }

    /// Tells each watched domain when its file may have changed: one inotify descriptor and one thread for
    /// the process, a watch per folder. The file is replaced by a rename on every save, so the folder is
    /// watched, not the file.
    final class SuiteWatcher: @unchecked Sendable {
        // @unchecked: `descriptor` is set once; the rest is guarded by `state`.
        private struct Entry {
            weak var persistence: Persistence?
        }

        private struct State {
            /// Watch descriptor → file name → the domains kept in that file.
            var files: [Int32: [String: [Entry]]] = [:]
        }

        static let shared = SuiteWatcher()
        private let descriptor: Int32
        private let state = Locked(State())

        private init() {
            descriptor = inotify_init1(Int32(IN_CLOEXEC))
            guard descriptor >= 0 else { return }
            let thread = Thread { [self] in run() }
            thread.name = "TypedDefaults file watcher"
            thread.start()
        }

        /// Watches `file` for `persistence`; false when the system refuses (no inotify, too many watches).
        @discardableResult
        func watch(_ persistence: Persistence, file: SuiteFile) -> Bool {
            guard descriptor >= 0 else { return false }
            // Foundation creates the folder at its first save; it must be there to be watched.
            try? FileManager.default.createDirectory(atPath: file.directory, withIntermediateDirectories: true)
            let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)
            let watch = inotify_add_watch(descriptor, file.directory, events)
            guard watch >= 0 else { return false }
            state.withLock { state in
                state.files[watch, default: [:]][file.fileName, default: []].append(Entry(persistence: persistence))
            }
            return true
        }

        private func run() {
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                var changed: [Persistence] = []
                var offset = 0
                // Each event: watch descriptor, mask, cookie, name length, then the name, NUL-padded.
                while offset + 16 <= count {
                    let (watch, mask, length) = buffer.withUnsafeBytes { bytes in
                        (
                            bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                            bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                            Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                        )
                    }
                    let name = String(
                        decoding: buffer[(offset + 16)..<min(offset + 16 + length, count)].prefix { $0 != 0 },
                        as: UTF8.self)
                    offset += 16 + length
                    changed += state.withLock { state in
                        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                            // Events were lost: every domain looks again.
                            return state.files.values.flatMap { $0.values.joined() }.compactMap(\.persistence)
                        }
                        if mask & UInt32(IN_IGNORED) != 0 {
                            state.files[watch] = nil
                            return []
                        }
                        return state.files[watch]?[name]?.compactMap(\.persistence) ?? []
                    }
                }
                var seen = Set<ObjectIdentifier>()
                for persistence in changed where seen.insert(ObjectIdentifier(persistence)).inserted {
                    persistence.fileMayHaveChanged()
                }
            }
        }
    }

    /// Saves every domain's pending writes when the process exits normally (`exit()` or return from main).
    /// Weak: a persistence whose storage nobody uses any more saves from its `deinit` and is freed.
    final class ExitSaver: Sendable {
        private struct Entry {
            weak var persistence: Persistence?
        }

        static let shared = ExitSaver()
        private let persistences = Locked<[Entry]>([])

        private init() {
            atexit { ExitSaver.shared.saveAll() }
        }

        func add(_ persistence: Persistence) {
            persistences.withLock { entries in
                entries.removeAll { $0.persistence == nil }
                entries.append(Entry(persistence: persistence))
            }
        }

        func saveAll() {
            for persistence in persistences.withLock({ $0.compactMap(\.persistence) }) {
                do {
                    try persistence.flush()
                } catch {
                    ErrorReporting.report(error)
                }
            }
        }
    }

#endif
