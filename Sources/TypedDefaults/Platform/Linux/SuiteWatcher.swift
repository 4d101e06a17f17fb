#if os(Linux)
    import Foundation

    /// Tells each watched saver when its file may have changed: one inotify descriptor and one thread for
    /// the process, a watch per folder. The file is replaced by a rename on every save, so the folder is
    /// watched, not the file.
    ///
    /// A folder that is removed (and so stops being watched) is created again and watched again at once,
    /// and its savers look at their files: a folder removed and made again by hand, or by a tool, does
    /// not end the watch.
    final class SuiteWatcher: @unchecked Sendable {
        // @unchecked: `watcher` is set once; the rest is guarded by `state`.
        private struct Entry {
            weak var saver: LinuxSaver?
            let file: SuiteFile
        }

        /// Watch descriptor → file name → the savers kept in that file. Taken alone, never across a
        /// system call or a saver's work.
        private let state = Locked<[Int32: [String: [Entry]]]>([:])
        /// The inotify instance, or why there is none.
        private let watcher: Result<FileDescriptor, Errno>

        static let shared = SuiteWatcher()

        private init() {
            do {
                watcher = .success(try System.makeFileWatcher())
            } catch {
                watcher = .failure(error)
                return
            }
            let thread = Thread { [self] in run() }
            thread.name = "TypedDefaults file watcher"
            thread.start()
        }

        private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE)

        /// Watches `file` for `saver`; the reason when the system refuses, named by its cause: no inotify
        /// instance or watch left, or a folder that is missing, not a folder, or not accessible.
        func watch(_ saver: LinuxSaver, file: SuiteFile) -> String? {
            if case .failure(let error) = watcher { return "no inotify instance is left (\(error))" }
            do {
                try add([Entry(saver: saver, file: file)], directory: file.directory)
                return nil
            } catch {
                return Self.reason(error, directory: file.directory)
            }
        }

        /// Why `directory` cannot be watched, from `inotify_add_watch`'s error.
        static func reason(_ error: Errno, directory: String) -> String {
            switch error.code {
            case ENOSPC, EMFILE: "no inotify watch is left (\(error))"
            case ENOENT: "its folder \(directory) does not exist and cannot be made (\(error))"
            case ENOTDIR: "its folder \(directory) is not a folder: a part of that path is a file (\(error))"
            case EACCES, EPERM: "its folder \(directory) is not accessible to this user (\(error))"
            default: "its folder \(directory) cannot be watched (\(error))"
            }
        }

        /// Watches `directory` for `entries`, creating it first: Foundation creates it only at its first save.
        private func add(_ entries: [Entry], directory: String) throws(Errno) {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let watch = try System.watch(directory, with: watcher.get(), events: Self.events)
            state.withLockedValue { files in
                for entry in entries where entry.saver != nil {
                    files[watch, default: [:]][entry.file.fileName, default: []].append(entry)
                }
            }
        }

        private func run() {
            guard case .success(let descriptor) = watcher else { return }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                guard let count = try? descriptor.read(into: &buffer) else { return }
                var unwatched: [[Entry]] = []
                var changed = savers(changedBy: buffer[..<count], unwatched: &unwatched)
                changed += watchAgain(unwatched)
                var seen = Set<ObjectIdentifier>()
                for saver in changed where seen.insert(ObjectIdentifier(saver)).inserted {
                    saver.fileMayHaveChanged()
                }
            }
        }

        /// The savers whose files the events in `events` concern; the entries of folders no longer watched
        /// go to `unwatched`.
        private func savers(changedBy events: ArraySlice<UInt8>, unwatched: inout [[Entry]]) -> [LinuxSaver] {
            var changed: [LinuxSaver] = []
            var offset = events.startIndex
            // Each event: watch descriptor, mask, cookie, name length, then the name, NUL-padded.
            while offset + 16 <= events.endIndex {
                let (watch, mask, length) = events.withUnsafeBytes { bytes in
                    let start = offset - events.startIndex
                    return (
                        bytes.loadUnaligned(fromByteOffset: start, as: Int32.self),
                        bytes.loadUnaligned(fromByteOffset: start + 4, as: UInt32.self),
                        Int(bytes.loadUnaligned(fromByteOffset: start + 12, as: UInt32.self))
                    )
                }
                let name = String(
                    decoding: events[(offset + 16)..<min(offset + 16 + length, events.endIndex)].prefix { $0 != 0 },
                    as: UTF8.self)
                offset += 16 + length
                changed += state.withLockedValue { files in
                    if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                        // Events were lost: every saver looks again.
                        return files.values.flatMap { $0.values.joined() }.compactMap(\.saver)
                    }
                    if mask & UInt32(IN_IGNORED) != 0 {
                        // The folder is gone (or unmounted): watched again by the caller.
                        if let entries = files.removeValue(forKey: watch) {
                            unwatched.append(Array(entries.values.joined()))
                        }
                        return []
                    }
                    // Savers released since are forgotten here.
                    files[watch]?[name]?.removeAll { $0.saver == nil }
                    return files[watch]?[name]?.compactMap(\.saver) ?? []
                }
            }
            return changed
        }

        /// Watches the folders of `unwatched` again (each was removed, or made anew); their savers look at
        /// their files. A folder that cannot be watched again is reported.
        private func watchAgain(_ unwatched: [[Entry]]) -> [LinuxSaver] {
            var changed: [LinuxSaver] = []
            for entries in unwatched {
                let live = entries.filter { $0.saver != nil }
                guard let directory = live.first?.file.directory else { continue }
                if (try? add(live, directory: directory)) != nil {
                    changed += live.compactMap(\.saver)
                } else {
                    ErrorReporting.report(
                        DefaultsError.saveFailed(
                            suite: live.first?.saver?.domain ?? "?",
                            reason: "\(directory) was removed and cannot be watched again; "
                                + "other processes' saves are seen at this process's next save"))
                }
            }
            return changed
        }
    }
#endif
