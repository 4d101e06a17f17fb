#if os(Linux)
    import Foundation

    /// What the saver knows of the file and of its own recent saves: owned by `SaveLock`,
    /// and taken `inout` by the code that runs under it (looks at the file, saves).
    struct SaveState {
        /// The one way to make a save state: inside the box that guards it (`SaveLock`'s turn).
        static func boxed(keepingKnownContentsIn pending: PendingWrites) -> Locked<SaveState> {
            Locked(.saving, SaveState(pending: pending))
        }

        private init(pending: PendingWrites) {
            self.pending = pending
        }

        /// Where the contents of the last `known` are kept for `knownObject(of:)`, which must not wait for a
        /// save's file work: beside the unsaved writes it weighs them against.
        private let pending: PendingWrites
        /// What the file held when this process last read or wrote it, and that version, held open
        /// (nil when it is unknown, or there was no file): a save or a look that finds the same version
        /// does not read and parse it again, and what differs from it was saved by someone else. Also
        /// whether Foundation's `synchronize()` wrote that version (`writtenByFoundation`).
        var known: (version: FileVersion?, contents: [ExactText: Any], writtenByFoundation: Bool)? {
            didSet { if let known { pending.keepKnownContents(known.contents) } }
        }
        /// No version is known, and the file holds nothing (it was removed).
        mutating func forgetKnownContents() {
            known = nil
            pending.keepKnownContents([:])
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

    // Looking at the file: what others saved there, and what Foundation's `synchronize()` wrote over.
    extension SaveState {
        /// How long a save reads an unreadable file again before it moves it aside, and how long it waits
        /// between two reads. Foundation's `synchronize()` rewrites the file in place (truncates it, then
        /// writes XML), which takes milliseconds, but a writer the scheduler stops in between leaves it
        /// empty or half written for longer on a loaded machine, and moving aside a file being written
        /// loses its values. So an empty file or the start of XML gets a second; other bytes, which nobody
        /// is writing, a tenth.
        static let halfWrittenPatience: TimeInterval = 0.1
        static let foundationWritePatience: TimeInterval = 1
        static let halfWrittenWait: TimeInterval = 0.01
        /// How many times a save reads the file again when Foundation wrote into it while the save was
        /// making the new one.
        static let rereadsForPlainSaves = 5

        /// How long after saving a value this process puts it back when a file Foundation's
        /// `synchronize()` wrote drops or changes it (see `look`).
        static let clobberWindow: TimeInterval = 1

        /// What a look at the file found.
        struct FileState {
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
            /// The file is one no reader may be handed (`BinaryPropertyList.isRefusedOutright`), not one being written.
            var refusedOutright = false

            /// The names whose value differs from what the file held when this process last looked.
            var changedElsewhere: [ExactText: Any?] {
                guard let previous else { return [:] }
                var changed: [ExactText: Any?] = [:]
                var kept = 0
                for (name, object) in contents {
                    let old = previous[name]
                    if old != nil { kept += 1 }
                    if !puttingBack.contains(name), !propertyListsEqual(object, old, by: .exact) {
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
        mutating func look(at file: SuiteFile, of domain: String, movingAsideUnreadable: Bool) throws -> FileState {
            var existing = try FileVersion.open(file.path)
            var state = FileState(contents: [:], owner: existing?.owner)
            if let known = known, let version = known.version, version.identity == existing?.identity {
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
                writtenOver = PropertyListDocument.suiteContents(bytes)
            }
            var writtenByFoundation = false
            if existing != nil {
                let read = try readPatiently(file, &existing, waiting: movingAsideUnreadable)
                writtenByFoundation = read.writtenByFoundation
                state.owner = existing?.owner ?? state.owner
                if let parsed = read.parsed {
                    state.contents = parsed
                } else if existing != nil {
                    state.refusedOutright = read.refusedOutright
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

        /// Reads and parses the file `existing` holds. Foundation's `synchronize()` rewrites the file in
        /// place, without the lock: an empty or unreadable file may be one it is writing now, never read as
        /// "no values". With `waiting` (a save), the file is opened and read again for a while before it is
        /// given up on; `existing` is then the version last read (nil: the file is gone).
        func readPatiently(_ file: SuiteFile, _ existing: inout FileVersion?, waiting: Bool) throws -> (
            parsed: [ExactText: Any]?, writtenByFoundation: Bool, refusedOutright: Bool
        ) {
            let started = Date()
            var result: (parsed: [ExactText: Any]?, writtenByFoundation: Bool, refusedOutright: Bool) = (
                nil, false, false
            )
            while let current = existing {
                let bytes = try current.readAll(path: file.path)
                let (parsed, refused) = bytes.isEmpty ? (nil, false) : PropertyListDocument.suiteContentsJudging(bytes)
                result = (parsed, !bytes.starts(with: Array("bplist".utf8)), refused)
                // A file refused outright is complete: waiting would not make it readable.
                guard result.parsed == nil, waiting, !refused else { break }
                let beingWritten = bytes.isEmpty || bytes.first == UInt8(ascii: "<")
                let patience = beingWritten ? Self.foundationWritePatience : Self.halfWrittenPatience
                guard Date().timeIntervalSince(started) < patience else { break }
                Thread.sleep(forTimeInterval: Self.halfWrittenWait)
                existing = try FileVersion.open(file.path)
            }
            return result
        }

        /// What the suite's last plain save holds, if it is not the version this process last looked at.
        mutating func newPlainSave(_ file: SuiteFile) -> [ExactText: Any]? {
            guard let version = try? FileVersion.open(file.plainSavePath) else {
                plainSaveSeen = nil
                return nil
            }
            guard version.identity != plainSaveSeen else { return nil }
            plainSaveSeen = version.identity
            return (try? version.readAll(path: file.plainSavePath)).flatMap(PropertyListDocument.suiteContents)
        }

        /// Foundation's `synchronize()` in another process reads the file, adds its own changes and
        /// rewrites it in place, without the lock: a save made in between is dropped from the file. So a
        /// value this process saved in the last `clobberWindow` and still knew there (`state.previous`),
        /// which what Foundation `wrote` drops or changes, is not taken as a change: the next save writes
        /// it again, if the file still holds what Foundation wrote there (a later change by anyone
        /// stands). Among concurrent writes, the library's win; a change the plain API makes to a name
        /// after that window is taken as usual.
        mutating func putBackWhatSynchronizeWroteOver(
            _ wrote: [ExactText: Any], _ state: inout FileState
        ) {
            let cutoff = Date(timeIntervalSinceNow: -Self.clobberWindow)
            for (name, saved) in recentlySaved
            where saved.at > cutoff && propertyListsEqual(state.previous?[name], saved.object, by: .exact)
                && !propertyListsEqual(wrote[name], saved.object, by: .exact)
                && propertyListsEqual(state.contents[name], wrote[name], by: .exact)
            {
                putBacks[name] = (wrote[name], saved.object)
                state.puttingBack.insert(name)
            }
        }

        /// Drops saves older than `clobberWindow` from `recentlySaved`, at most once a window.
        mutating func forgetOldSaves(_ now: Date) {
            guard now.timeIntervalSince(forgotOldSavesAt) >= Self.clobberWindow else { return }
            forgotOldSavesAt = now
            let cutoff = now.addingTimeInterval(-Self.clobberWindow)
            recentlySaved = recentlySaved.filter { $0.value.at > cutoff }
        }
    }

    // Saving: this process's pending writes into the suite's file, under its lock.
    extension SaveState {
        /// What a save did: the notice it gives, the writes it saved, and what its looks at the file found,
        /// from which the caller works out what others had saved meanwhile and brings it into memory.
        struct Saved {
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

        /// Saves every pending write into `file`, whose lock this process holds (`locked`), and says what
        /// others saved there meanwhile: the one locked save. The keys declared since the last save
        /// (`manifest`) are written first, beside the file.
        ///
        /// With `atExit`, waits for the pending writes' lock only until then.
        mutating func save(
            _ pending: PendingWrites, manifest declared: ManifestKeys? = nil, to file: SuiteFile, of domain: String,
            atExit deadline: Date? = nil, _ locked: borrowing FileLockHeld
        ) throws -> Saved {
            if let declared { Self.writeManifest(declared, beside: file, of: domain, locked) }
            guard let changes = pending.take(before: deadline) else {
                throw DefaultsError.saveFailed(suite: domain, reason: "the pending writes stayed locked at exit")
            }
            guard !changes.isEmpty || !putBacks.isEmpty else { return Saved() }
            do {
                if !removedStaleTemporaryFiles {
                    removedStaleTemporaryFiles = true
                    file.removeStaleTemporaryFiles(locked)
                }
                var looks: [FileState] = []
                var notice: DefaultsError?
                var rereads = 0
                while true {
                    var state = try look(at: file, of: domain, movingAsideUnreadable: true)
                    looks.append(state)
                    notice = notice ?? state.notice
                    let restored = merge(changes, into: &state, putBacks: putBacks)
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
                pending.restore(changes)
                throw error
            }
        }

        /// Puts into `state` what this save writes: first this process's values that Foundation's
        /// `synchronize()` wrote over, where the file still holds what it wrote (saved again, under the
        /// lock, so that a change another process made since is never undone), then `changes`. Returns
        /// the values put back.
        func merge(
            _ changes: [ExactText: Any?], into state: inout FileState,
            putBacks: [ExactText: (found: Any?, restore: Any?)]
        ) -> [ExactText: Any?] {
            var restored: [ExactText: Any?] = [:]
            for (name, putBack) in putBacks where propertyListsEqual(state.contents[name], putBack.found, by: .exact) {
                state.contents[name] = putBack.restore
                restored.updateValue(putBack.restore, forKey: name)
            }
            for (name, object) in changes {
                state.contents[name] = object
                Self.removeOtherForms(of: name, from: &state.contents)
            }
            return restored
        }

        /// Removes from `contents` every other form of `name` (composed or decomposed: Swift's equal, other
        /// bytes). Foundation keeps one form of a name in memory, and a `set` or removal of one replaces the
        /// others there; the file follows, so that what a name reads in this process is what the next
        /// launch reads. Only a name with a non-ASCII character has other forms.
        static func removeOtherForms(of name: ExactText, from contents: inout [ExactText: Any]) {
            guard !isASCII(name.text) else { return }
            for other in contents.keys where other.text == name.text && other != name {
                contents[other] = nil
            }
        }

        /// Adds `declared` to the manifest beside `file`, replacing it atomically when that changes what it
        /// records (a manifest that cannot be read is replaced: it is derived, the apps declare it again).
        /// A failure is reported, and the keys are written again at the next declaration.
        static func writeManifest(
            _ declared: ManifestKeys, beside file: SuiteFile, of domain: String, _ locked: borrowing FileLockHeld
        ) {
            var recorded: ManifestKeys?
            if case .keys(let keys) = KeyManifest.contents(at: file.manifestPath) { recorded = keys }
            let merged = ManifestKeys.merged(declared, into: recorded ?? ManifestKeys())
            guard merged != recorded else { return }
            do {
                _ = try file.replace(with: KeyManifest.encode(merged), keeping: nil, at: file.manifestPath)
            } catch {
                ErrorReporting.report(FileFailure.reported(error, suite: domain))
            }
        }

        static func encode(_ contents: [ExactText: Any]) throws -> [UInt8] {
            do {
                return try PropertyListDocument.encoded(contents, format: .binary)
            } catch {
                throw FileFailure.failed(action: "cannot encode the values (\(error)) of", path: "the suite", nil)
            }
        }
    }
#endif
