#if os(Linux)
    import Foundation

    // Looking at the file: what others saved there, and what Foundation's `synchronize()` wrote over.
    extension LinuxSaver {
        // MARK: Other processes' saves

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
        func look(at file: SuiteFile, movingAsideUnreadable: Bool, in save: inout SaveState) throws -> FileState {
            var existing = try FileVersion.open(file.path)
            var state = FileState(contents: [:], owner: existing?.owner)
            if let known = save.known, let version = known.version, version.identity == existing?.identity {
                state.contents = known.contents
                state.writtenByFoundation = known.writtenByFoundation
                state.read = version
                return state
            }
            // Foundation's `synchronize()` may have written into the version this process knew, which
            // someone has replaced since: what it wrote is read through that version, held open.
            var writtenOver: [ExactText: Any]?
            if let version = save.known?.version, !version.identity.sameInode(as: existing?.identity),
                version.rewrittenInPlace, let bytes = try? version.readAll(path: file.path)
            {
                writtenOver = Self.parse(bytes)
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
                    state.contents = save.known?.contents ?? [:]
                    return state
                }
            }
            state.writtenByFoundation = writtenByFoundation
            // A file Foundation wrote that another process's save has replaced since this process last
            // looked: read after the suite's file, since that save keeps it before it replaces the file.
            let plainSave = newPlainSave(file, in: &save)
            state.previous = save.known?.contents
            save.known = (existing, state.contents, writtenByFoundation)
            state.read = existing
            for wrote in [writtenOver, plainSave, writtenByFoundation ? state.contents : nil].compactMap({ $0 }) {
                putBackWhatSynchronizeWroteOver(wrote, &state, in: &save)
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
                let (parsed, refused) = bytes.isEmpty ? (nil, false) : Self.parseJudging(bytes)
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
        func newPlainSave(_ file: SuiteFile, in save: inout SaveState) -> [ExactText: Any]? {
            guard let version = try? FileVersion.open(file.plainSavePath) else {
                save.plainSaveSeen = nil
                return nil
            }
            guard version.identity != save.plainSaveSeen else { return nil }
            save.plainSaveSeen = version.identity
            return (try? version.readAll(path: file.plainSavePath)).flatMap(Self.parse)
        }

        /// Foundation's `synchronize()` in another process reads the file, adds its own changes and
        /// rewrites it in place, without the lock: a save made in between is dropped from the file. So a
        /// value this process saved in the last `clobberWindow` and still knew there (`state.previous`),
        /// which what Foundation `wrote` drops or changes, is not taken as a change: the next save writes
        /// it again, if the file still holds what Foundation wrote there (a later change by anyone
        /// stands). Among concurrent writes, the library's win; a change the plain API makes to a name
        /// after that window is taken as usual.
        func putBackWhatSynchronizeWroteOver(
            _ wrote: [ExactText: Any], _ state: inout FileState, in save: inout SaveState
        ) {
            let cutoff = Date(timeIntervalSinceNow: -Self.clobberWindow)
            for (name, saved) in save.recentlySaved
            where saved.at > cutoff && propertyListsEqual(state.previous?[name], saved.object, by: .exact)
                && !propertyListsEqual(wrote[name], saved.object, by: .exact)
                && propertyListsEqual(state.contents[name], wrote[name], by: .exact)
            {
                save.putBacks[name] = (wrote[name], saved.object)
                state.puttingBack.insert(name)
            }
        }

        /// Drops saves older than `clobberWindow` from `recentlySaved`, at most once a window.
        func forgetOldSaves(_ now: Date, in save: inout SaveState) {
            guard now.timeIntervalSince(save.forgotOldSavesAt) >= Self.clobberWindow else { return }
            save.forgotOldSavesAt = now
            let cutoff = now.addingTimeInterval(-Self.clobberWindow)
            save.recentlySaved = save.recentlySaved.filter { $0.value.at > cutoff }
        }
    }
#endif
