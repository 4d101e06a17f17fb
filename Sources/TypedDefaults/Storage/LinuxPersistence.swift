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
// shared with other processes, reads the file, applies only this process's changes, and replaces the
// file atomically with a binary property list, which keeps dates exact and Foundation reads as before.

#if canImport(Darwin)

    /// Apple platforms persist `UserDefaults` themselves: no persistence is ever made there.
    final class Persistence: Sendable {
        static func make(domain: String?, defaults: UserDefaults) -> Persistence? { nil }
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
            var locationChecked = false
            var usesSynchronize = false  // Foundation keeps the file somewhere else: let it save
        }

        private let domain: String?
        private let defaults: UserDefaults
        /// `$XDG_CONFIG_HOME/<domain>.plist`, else `~/.config/<domain>.plist`: where Foundation keeps the
        /// domain on Linux. Worked out once rather than on every save: it reads the environment and the
        /// password database (about 40 µs here).
        private let fileURL: URL?
        private let pending = Locked(Pending())
        /// Orders writers: a value and the record that it must be saved change together.
        private let writeOrder = NSLock()
        /// Serializes saves within the process; the file lock serializes them across processes.
        private let saving = NSLock()

        private init(domain: String?, defaults: UserDefaults) {
            self.domain = domain
            self.defaults = defaults
            fileURL = domain.map { domain in
                let configHome = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"]
                let directory =
                    configHome.flatMap { $0.hasPrefix("/") ? $0 : nil } ?? NSHomeDirectory() + "/.config"
                return URL(fileURLWithPath: directory).appendingPathComponent(domain + ".plist")
            }
        }

        deinit {
            // The last store over a `UserDefaults` made by the caller is gone: save what it wrote.
            do {
                try flush()
            } catch {
                ErrorReporting.report(error)
            }
        }

        /// A persistence for `defaults`; `domain` is its suite name, or nil when the library cannot know
        /// it (a `UserDefaults` made by the caller), in which case saving falls back to `synchronize()`.
        static func make(domain: String?, defaults: UserDefaults) -> Persistence? {
            let persistence = Persistence(domain: domain, defaults: defaults)
            ExitSaver.shared.add(persistence)
            return persistence
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
                let wasSaved = state.changes.updateValue(Change(object: object, isSaved: false), forKey: key)?.isSaved
                if wasSaved ?? true { state.unsavedCount += 1 }
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

        /// Removes the domain's file and its lock file.
        func removeFiles() {
            guard let fileURL else { return }
            saving.lock()
            defer { saving.unlock() }
            try? FileManager.default.removeItem(at: fileURL)
            try? FileManager.default.removeItem(at: lockURL(for: fileURL))
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
            let (batch, changes, usesSynchronize) = pending.withLock { state in
                state.saveScheduled = false
                var changes: [String: Any?] = [:]
                guard state.unsavedCount > 0 else { return ([String](), changes, state.usesSynchronize) }
                for (name, change) in state.changes where !change.isSaved {
                    changes[name] = change.object
                    state.changes[name]?.isSaved = true
                }
                state.unsavedCount = 0
                return (Array(changes.keys), changes, state.usesSynchronize)
            }
            guard !changes.isEmpty else { return nil }
            do {
                if usesSynchronize || fileURL == nil {
                    try synchronize()
                    return nil
                }
                return try save(changes)
            } catch {
                // Keep what failed for the next attempt; a name written since is pending with its newer value.
                pending.withLock { state in
                    for name in batch where state.changes[name]?.isSaved == true {
                        state.changes[name]?.isSaved = false
                        state.unsavedCount += 1
                    }
                }
                throw error
            }
        }

        /// Lets Foundation save, for a domain whose file the library does not write itself.
        private func synchronize() throws {
            guard defaults.synchronize() else {
                throw DefaultsError.saveFailed(suite: domain ?? "?", reason: "synchronize() failed")
            }
        }

        private func lockURL(for fileURL: URL) -> URL {
            fileURL.deletingLastPathComponent().appendingPathComponent("." + fileURL.lastPathComponent + ".lock")
        }

        /// Saves `changes` into the file, and returns the notice of an unreadable file moved aside.
        private func save(_ changes: [String: Any?]) throws -> DefaultsError? {
            guard let fileURL else { return nil }
            let suite = domain ?? "?"
            let manager = FileManager.default
            try? manager.createDirectory(at: fileURL.deletingLastPathComponent(), withIntermediateDirectories: true)

            let lockDescriptor = open(lockURL(for: fileURL).path, O_CREAT | O_RDWR | O_CLOEXEC, 0o600)
            guard lockDescriptor >= 0 else {
                throw DefaultsError.saveFailed(suite: suite, reason: "cannot open lock file: \(errnoText())")
            }
            defer { close(lockDescriptor) }
            guard flock(lockDescriptor, LOCK_EX) == 0 else {
                throw DefaultsError.saveFailed(suite: suite, reason: "cannot lock: \(errnoText())")
            }
            defer { flock(lockDescriptor, LOCK_UN) }

            if try !confirmLocation(fileURL) {
                try synchronize()
                return nil
            }

            var contents: [String: Any] = [:]
            var notice: DefaultsError?
            if let data = manager.contents(atPath: fileURL.path), !data.isEmpty {
                if let existing = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
                {
                    contents = existing
                } else {
                    notice = try keepUnreadableFile(fileURL, suite: suite)
                }
            }
            for (key, object) in changes {
                contents[key] = object
            }
            let data: Data
            do {
                data = try PropertyListSerialization.data(fromPropertyList: contents, format: .binary, options: 0)
            } catch {
                throw DefaultsError.saveFailed(suite: suite, reason: "cannot encode: \(error)")
            }
            try replaceFile(at: fileURL, with: data, suite: suite)
            return notice
        }

        /// Moves a file that is not a property-list dictionary aside, so that saving does not overwrite
        /// bytes it cannot read: they may be a user's values that another tool can recover. Throws, and
        /// so saves nothing, when the file cannot be moved; returns the notice to report.
        private func keepUnreadableFile(_ fileURL: URL, suite: String) throws -> DefaultsError {
            let keptPath = fileURL.path + ".unreadable-\(Int(Date().timeIntervalSince1970))"
            guard rename(fileURL.path, keptPath) == 0 else {
                throw DefaultsError.saveFailed(
                    suite: suite,
                    reason: "\(fileURL.path) is not a property list and cannot be moved aside: \(errnoText())")
            }
            return .unreadableFileKept(suite: suite, path: keptPath)
        }

        /// Whether Foundation keeps this domain at `fileURL`. Checked once: when no file is there yet,
        /// `synchronize()` writes Foundation's own, and the file must then appear where expected.
        private func confirmLocation(_ fileURL: URL) throws -> Bool {
            let checked = pending.withLock { state in (state.locationChecked, state.usesSynchronize) }
            if checked.0 { return !checked.1 }
            var found = FileManager.default.fileExists(atPath: fileURL.path)
            if !found {
                try synchronize()
                found = FileManager.default.fileExists(atPath: fileURL.path)
            }
            pending.withLock { state in
                state.locationChecked = true
                state.usesSynchronize = !found
            }
            return found
        }

        /// Writes a temporary file beside the target and renames it over the target, so that a reader or
        /// a crash sees the old file or the new one, never half of one. No `fsync`: the claim is that
        /// values survive the process (exit, a kill), which the page cache guarantees; surviving a power
        /// cut would cost a disk flush per save (measured: it doubles a save), and Foundation's own
        /// `synchronize()` does not flush either.
        private func replaceFile(at fileURL: URL, with data: Data, suite: String) throws {
            let temporaryPath = fileURL.path + ".tmp-\(getpid())"
            let descriptor = open(temporaryPath, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else {
                throw DefaultsError.saveFailed(suite: suite, reason: "cannot write \(temporaryPath): \(errnoText())")
            }
            let written = data.withUnsafeBytes { bytes in write(descriptor, bytes.baseAddress, bytes.count) }
            close(descriptor)
            guard written == data.count, rename(temporaryPath, fileURL.path) == 0 else {
                let reason = errnoText()
                unlink(temporaryPath)
                throw DefaultsError.saveFailed(suite: suite, reason: "cannot replace \(fileURL.path): \(reason)")
            }
        }

        private func errnoText() -> String { String(cString: strerror(errno)) }
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
