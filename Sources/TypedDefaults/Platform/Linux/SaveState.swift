#if os(Linux)
    import Foundation

    /// What the saver knows of the file and of its own recent saves: owned by `SaveLock`,
    /// and taken `inout` by the code that runs under it (looks at the file, saves).
    struct SaveState {
        /// The one way to make a save state: inside the box that guards it (`SaveLock`'s turn).
        static func boxed(knownContents: Locked<[ExactText: Any]?>) -> RankedLocked<SaveState> {
            RankedLocked(.saving, SaveState(knownContents: knownContents))
        }

        private init(knownContents: Locked<[ExactText: Any]?>) {
            self.knownContents = knownContents
        }

        /// Where the contents of the last `known` are kept for `knownObject(forName:)`, which must not
        /// wait for a save's file work.
        let knownContents: Locked<[ExactText: Any]?>
        /// What the file held when this process last read or wrote it, and that version, held open
        /// (nil when it is unknown, or there was no file): a save or a look that finds the same version
        /// does not read and parse it again, and what differs from it was saved by someone else. Also
        /// whether Foundation's `synchronize()` wrote that version (`writtenByFoundation`).
        var known: (version: FileVersion?, contents: [ExactText: Any], writtenByFoundation: Bool)? {
            didSet { if let known { knownContents.withLockedValue { $0 = known.contents } } }
        }
        /// No version is known, and the file holds nothing (it was removed).
        mutating func forgetKnownContents() {
            known = nil
            knownContents.withLockedValue { $0 = [:] }
        }
        var removedStaleTemporaryFiles = false
        /// What this process saved in the last `clobberWindow` (and maybe a little longer), by name.
        var recentlySaved: [ExactText: (object: Any?, at: Date)] = [:]
        var forgotOldSavesAt = Date.distantPast
        /// The version of the suite's last plain save (`SuiteFile.plainSavePath`) this process has
        /// looked at.
        var plainSaveSeen: FileIdentity?
        /// Values of `recentlySaved` that Foundation wrote over, to be saved again by the next save if
        /// the file still holds what Foundation wrote (`found`).
        var putBacks: [ExactText: (found: Any?, restore: Any?)] = [:]
    }
#endif
