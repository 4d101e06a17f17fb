#if os(Linux)
    import Foundation

    /// The keys this process bound in a suite, as its key manifest records them (`KeyManifest`), and
    /// whether the manifest may not hold them yet. The next save writes it (`LinuxSaver.savePending`, the
    /// exit-time save), under the suite's file lock; a bind only records, off the write path.
    final class DeclaredKeys: Sendable {
        private struct State {
            var keys: [String: DeclaredKey] = [:]
            var due = false
        }
        private let state = Locked(State())

        /// Records `key`; true when a save must now be scheduled for the manifest (none was due).
        func declare(_ key: DeclaredKey) -> Bool {
            state.withLockedValue { state in
                guard state.keys[key.name] != key else { return false }
                state.keys[key.name] = key
                defer { state.due = true }
                return !state.due
            }
        }

        /// Every key declared here, when the manifest is due; it is not due again until another key is.
        func takeDue() -> [String: DeclaredKey]? {
            state.withLockedValue { state in
                guard state.due else { return nil }
                state.due = false
                return state.keys
            }
        }
    }

    extension LinuxSaver {
        /// Records `key` for the suite's manifest, written by the next save.
        func declare(_ key: DeclaredKey) {
            guard file != nil, declarations.declare(key) else { return }
            SaveScheduler.shared.schedule(self, after: Self.saveDelay)
        }

        /// Adds `declared` to the manifest beside `file`, replacing it atomically when that changes what it
        /// records (a manifest that cannot be read is replaced: it is derived, the apps declare it again).
        /// A failure is reported, and the keys are written again at the next declaration.
        func writeManifest(_ declared: [String: DeclaredKey], beside file: SuiteFile, _ locked: borrowing FileLockHeld)
        {
            var recorded: [String: DeclaredKey]?
            if case .keys(let keys) = KeyManifest.contents(at: file.manifestPath) { recorded = keys }
            let merged = (recorded ?? [:]).merging(declared) { _, declared in declared }
            guard merged != recorded else { return }
            do {
                _ = try file.replace(with: KeyManifest.encode(merged), keeping: nil, at: file.manifestPath)
            } catch {
                ErrorReporting.report(reported(error))
            }
        }
    }
#endif
