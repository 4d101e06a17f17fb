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

#if canImport(Darwin)

    /// Apple platforms persist `UserDefaults` themselves: no persistence is ever made there.
    final class Persistence: Sendable {
        static func make(domain: String?, defaults: UserDefaults) -> Persistence? { nil }
        /// Whether Foundation can be handed the suite at all: always, on Apple platforms.
        static func suiteFileIsUsable(_ suiteName: String) -> Bool { true }
        func store(_ object: Any?, forKey key: String) {}
        func flush() throws {}
        func discardPending() {}
        func removeFiles() {}
        func applyChanges(to values: inout [String: Any]) {}
    }

#else

    /// Saves the writes the library makes to one `UserDefaults` domain on Linux.
    final class Persistence: @unchecked Sendable {
        // @unchecked: `UserDefaults` is thread-safe but not marked Sendable on Linux; the rest is
        // guarded by locks.
        /// How long after the first of a burst of writes they are saved: far below a second, so that a
        /// process killed a second after a write has saved it, and long enough to gather a burst.
        static let saveDelay: DispatchTimeInterval = .milliseconds(100)

        /// The last change this process made to one name, and whether it is on disk.
        private struct Change {
            var object: Any?
            var isSaved: Bool
        }

        private struct Pending {
            /// Every name written through the library in this process, with its last change, saved or
            /// not: Foundation's `persistentDomain(forName:)` for the standard domain shows only what is
            /// on disk.
            var changes: [String: Change] = [:]
            /// How many of `changes` are not saved: a write looks its name up once.
            var unsavedCount = 0
            var saveScheduled = false
        }

        private let domain: String
        private let defaults: UserDefaults
        /// Where Foundation keeps the domain; nil when the library cannot save it its own way.
        private let file: SuiteFile?
        private let pending = Locked(Pending())
        /// Orders writers: a value and the record that it must be saved change together.
        private let writeOrder = NSLock()
        /// Serializes saves within the process; the file lock serializes them across processes. Also
        /// guards `lastWritten`.
        private let saving = NSLock()
        /// The file as this process last read or wrote it: a save finding it unchanged does not read
        /// and parse it again.
        private var lastWritten: (identity: FileIdentity, contents: [String: Any])?

        private init(domain: String, file: SuiteFile?, defaults: UserDefaults) {
            self.domain = domain
            self.file = file
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
            let name = domain ?? suiteName(of: defaults).map { $0 ?? StorageContext.standardDomain }
            let persistence: Persistence
            if let name {
                persistence = Persistence(domain: name, file: SuiteFile(domain: name), defaults: defaults)
            } else {
                // Foundation's object no longer shows its suite name: say so, once, and let it save.
                persistence = Persistence(domain: "?", file: nil, defaults: defaults)
                ErrorReporting.report(
                    DefaultsError.savedBySynchronize(
                        suite: "?", reason: "the suite name of a UserDefaults made by the caller cannot be read"))
            }
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
                let change = Change(object: object, isSaved: false)
                if state.changes.updateValue(change, forKey: key)?.isSaved ?? true { state.unsavedCount += 1 }
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

        /// Forgets unsaved writes, for a domain that is being removed.
        func discardPending() {
            pending.withLock { state in
                state.changes.removeAll()
                state.unsavedCount = 0
            }
        }

        /// Applies the changes made through the library in this process to `values`, the persistent
        /// domain as Foundation reports it.
        func applyChanges(to values: inout [String: Any]) {
            let changes = pending.withLock { $0.changes }
            for (name, change) in changes {
                values[name] = change.object
            }
        }

        /// Removes the domain's file and its lock file (a symbolic link there is removed, not followed).
        func removeFiles() {
            guard let file else { return }
            saving.lock()
            defer { saving.unlock() }
            lastWritten = nil
            unlink(file.path)
            unlink(file.lockPath)
        }

        /// Saves every pending write now.
        func flush() throws {
            // Reported once the locks are released: a handler may well save again.
            if let notice = try savePending() { ErrorReporting.report(notice) }
        }

        /// Saves every pending write, and returns what the user should hear of although it did not stop
        /// the save.
        private func savePending() throws -> DefaultsError? {
            saving.lock()
            defer { saving.unlock() }
            let changes = pending.withLock { state in
                state.saveScheduled = false
                var changes: [String: Any?] = [:]
                guard state.unsavedCount > 0 else { return changes }
                for (name, change) in state.changes where !change.isSaved {
                    changes[name] = change.object
                    state.changes[name]?.isSaved = true
                }
                state.unsavedCount = 0
                return changes
            }
            guard !changes.isEmpty else { return nil }
            do {
                guard let file else {
                    guard defaults.synchronize() else {
                        throw DefaultsError.saveFailed(suite: domain, reason: "synchronize() failed")
                    }
                    return nil
                }
                return try save(changes, to: file)
            } catch {
                // Keep what failed for the next attempt; a name written since is pending with its newer value.
                pending.withLock { state in
                    for name in changes.keys where state.changes[name]?.isSaved == true {
                        state.changes[name]?.isSaved = false
                        state.unsavedCount += 1
                    }
                }
                throw error
            }
        }

        /// Saves `changes` into `file` under the file lock, and returns the notice of an unreadable file
        /// moved aside.
        private func save(_ changes: [String: Any?], to file: SuiteFile) throws -> DefaultsError? {
            let fail = { (reason: String) in DefaultsError.saveFailed(suite: self.domain, reason: reason) }
            try? FileManager.default.createDirectory(atPath: file.directory, withIntermediateDirectories: true)
            return try withFileLock(at: file.lockPath, fail: fail) {
                file.removeStaleTemporaryFiles(once: &removedStaleTemporaryFiles)
                var contents: [String: Any] = [:]
                var notice: DefaultsError?
                let existing = try ExistingFile(path: file.path, domain: domain)
                if let existing {
                    if let lastWritten, lastWritten.identity == existing.identity {
                        contents = lastWritten.contents
                    } else {
                        let bytes = try existing.readAll(fail: fail)
                        if !bytes.isEmpty {
                            if let parsed = Self.parse(bytes) {
                                contents = parsed
                            } else {
                                notice = try keepUnreadableFile(file.path)
                            }
                        }
                    }
                }
                for (key, object) in changes {
                    contents[key] = object
                }
                let bytes = try Self.encode(contents, fail: fail)
                lastWritten = nil
                let identity = try file.replace(with: bytes, keeping: notice == nil ? existing?.owner : nil, fail: fail)
                lastWritten = identity.map { ($0, contents) }
                return notice
            }
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
        let path: String
        let lockPath: String
        /// The temporary files of this suite start with it; a random suffix follows.
        let temporaryPrefix: String

        /// The files of `domain`, or nil when `domain` is not a plain file name.
        init?(domain: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
            guard SuiteName.isPlainFileName(domain) else { return nil }
            let configHome = environment["XDG_CONFIG_HOME"] ?? ""
            directory = configHome.hasPrefix("/") ? configHome : (environment["HOME"] ?? "") + "/.config"
            path = directory + "/" + domain + ".plist"
            lockPath = directory + "/." + domain + ".plist.lock"
            temporaryPrefix = "." + domain + ".plist.tmp-"
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
            -> FileIdentity?
        {
            let temporaryPath = directory + "/" + temporaryPrefix + Self.randomSuffix()
            let descriptor = open(
                temporaryPath, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, owner?.mode ?? 0o600)
            guard descriptor >= 0 else { throw fail("cannot create \(temporaryPath): \(errnoText())") }
            var written: FileIdentity?
            do {
                defer { close(descriptor) }
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
                written = FileIdentity(descriptor: descriptor)
                guard rename(temporaryPath, path) == 0 else { throw fail("cannot replace \(path): \(errnoText())") }
            } catch {
                unlink(temporaryPath)
                throw error
            }
            // The rename changed the file's status time: take its identity again, by name, and trust it
            // only if it is still the file just written.
            var status = stat()
            guard lstat(path, &status) == 0, let after = FileIdentity(status), after.sameFile(as: written) else {
                return nil
            }
            return after
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

        init?(descriptor: Int32) {
            var status = stat()
            guard fstat(descriptor, &status) == 0 else { return nil }
            self.init(status)
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
    }

    /// The suite's file as it is before a save, opened without following a link and without waiting:
    /// nil when there is none. Anything but a readable regular file makes the save fail, and is left as
    /// it is.
    final class ExistingFile {
        let descriptor: Int32
        let identity: FileIdentity?
        let owner: FileOwner

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
            owner = FileOwner(mode: status.st_mode & 0o7777, user: status.st_uid, group: status.st_gid)
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
