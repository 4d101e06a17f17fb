#if os(Linux)
    import Foundation

    /// The keys this process bound in a suite, as its key manifest records them (`KeyManifest`), and
    /// whether the manifest may not hold them yet. The next save writes it (`LinuxSaver.savePending`, the
    /// exit-time save), under the suite's file lock; a bind only records, off the write path.
    ///
    /// Bounded by the app's declarations, for an app that makes a key per item (`"score-\(id)"`) and the
    /// processes that write a suite at once: a process writes the manifest at most once a second (and at
    /// exit); a `UserDefaultKeyFamily` is one entry, whatever members it has; a manifest records at most
    /// `KeyManifest.namesPerDeclaration` names of one declaration, over every launch (a key made by a helper
    /// function has the helper's declaration); and past `KeyManifest.maximumKeys` names, a name of a
    /// declaration the manifest has none of replaces one of the declaration with the most. So launches
    /// never fill it, and a key declared on its own is always recorded. (Measured: twelve processes
    /// writing a new name 500 times a second each, a name per write, lost thousands of claimed writes with
    /// a manifest of every name.)
    final class DeclaredKeys: Sendable {
        /// The shortest time between two writes of the manifest by one process.
        static let writeInterval: TimeInterval = 1

        private struct State {
            var keys = ManifestKeys()
            /// Names recorded per declaration, by its place as the manifest writes it (`declaredAt`), so that
            /// this count and the manifest's are of one thing.
            var namesBySite: [String: Int] = [:]
            var due = false
            var lastWritten: Date?
            /// A save is scheduled for when the manifest may be written again: one, not one per save.
            var laterScheduled = false
        }
        private let state = Locked(State())

        /// Whether a name of a key made at `declaration` may be recorded: the declaration has given fewer
        /// than `KeyManifest.namesPerDeclaration` in this process (counted here). A family's members are one
        /// entry: not counted.
        func admits(_ declaration: KeyDeclaration) -> Bool {
            guard declaration.familyPrefix == nil else { return true }
            let site = declaration.description
            return state.withLockedValue { state in
                let count = state.namesBySite[site, default: 0]
                guard count < KeyManifest.namesPerDeclaration else { return false }
                state.namesBySite[site] = count + 1
                return true
            }
        }

        /// Records `key`; true when a save must now be scheduled for the manifest (none was due).
        func declare(_ key: DeclaredKey) -> Bool {
            state.withLockedValue { state in
                guard !state.keys.holds(key) else { return false }
                state.keys.record(key)
                defer { state.due = true }
                return !state.due
            }
        }

        /// What a save does with the manifest now.
        enum Due {
            /// Nothing was declared since the last write.
            case nothing
            /// Write these keys (every key declared here).
            case write(ManifestKeys)
            /// Keys are due, but the last write was less than `writeInterval` ago: a save after this long
            /// (given once until the manifest is written: every save meanwhile gets `.nothing`).
            case later(TimeInterval)
        }

        /// Every key declared here, when the manifest is due and may be written now (`atExit`: whenever it
        /// is due); it is not due again until another key is.
        func takeDue(atExit: Bool = false, now: Date = Date()) -> Due {
            state.withLockedValue { state in
                guard state.due else { return .nothing }
                if !atExit, let last = state.lastWritten, now.timeIntervalSince(last) < Self.writeInterval {
                    guard !state.laterScheduled else { return .nothing }
                    state.laterScheduled = true
                    return .later(Self.writeInterval - now.timeIntervalSince(last))
                }
                state.due = false
                state.laterScheduled = false
                state.lastWritten = now
                return .write(state.keys)
            }
        }
    }

    extension LinuxSaver {
        /// Records `key` for the suite's manifest, written by the next save.
        func declare(from declaration: KeyDeclaration, _ key: () -> DeclaredKey) {
            // The key is made through the door for code that is not the library's, under no lock but a
            // step's turns (a first use inside `modify`'s transform; checked in debug builds): its
            // default's description may be the app's code.
            guard file != nil, declarations.admits(declaration),
                declarations.declare(UserCode.runUnmarked(insideStep: true, key))
            else {
                return
            }
            SaveScheduler.shared.schedule(self, after: Self.saveDelay)
        }
    }
#endif
