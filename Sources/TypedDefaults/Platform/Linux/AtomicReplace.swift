#if os(Linux)
    import Foundation

    extension SuiteFile {
        /// Writes `bytes` to a new temporary file beside the target and renames it over the target, so
        /// that a reader or a crash sees the old file or the new one, never half of one. The temporary
        /// file has a name nobody can predict and is created, never opened: a link planted there makes
        /// the save fail rather than write through it. It takes the mode and owner of the file it
        /// replaces; a new file root makes in another user's folder is that user's. Returns the new
        /// version, or nil when it cannot be known for certain.
        ///
        /// When `base`, the version the bytes were made from, has been written into in place meanwhile
        /// (Foundation's `synchronize()`, which takes no lock), nothing is replaced and the result is
        /// `.baseRewritten`: replacing it would drop what Foundation just saved.
        ///
        /// No `fsync`: the claim is that values survive the process (exit, a kill), which the page cache
        /// guarantees; surviving a power cut would cost a disk flush per save, and Foundation's own
        /// `synchronize()` does not flush either.
        ///
        /// `target`: another file of the suite to replace so (its key manifest); the suite's file if nil.
        func replace(
            with bytes: [UInt8], keeping existingOwner: FileOwner?, unlessRewritten base: FileVersion? = nil,
            at target: String? = nil
        ) throws -> Replaced {
            let path = target ?? path
            let owner = existingOwner ?? FileOwner.forNewFile(in: directory)
            let temporaryPath = directory + "/" + temporaryPrefix + randomSuffix(count: 12)
            let descriptor: FileDescriptor
            do {
                descriptor = try FileDescriptor.open(
                    temporaryPath, O_CREAT | O_EXCL | O_NOFOLLOW | O_WRONLY | O_CLOEXEC, owner?.mode ?? 0o600)
            } catch {
                throw FileFailure.failed("cannot create", temporaryPath, error)
            }
            do {
                if let owner { try keep(owner, of: descriptor) }
                try writeAll(bytes, to: descriptor, path: temporaryPath)
                if let base, base.rewrittenInPlace {
                    descriptor.close()
                    System.unlink(temporaryPath)
                    return .baseRewritten
                }
                do {
                    try System.rename(temporaryPath, to: path)
                } catch {
                    throw FileFailure.failed("cannot replace", path, error)
                }
            } catch {
                descriptor.close()
                System.unlink(temporaryPath)
                throw error
            }
            // Kept open, and trusted only if the name still leads to it.
            let written = FileVersion(written: descriptor)
            guard let status = try? System.linkStatus(path), FileIdentity(status).sameFile(as: written.identity)
            else { return .replaced(nil) }
            return .replaced(written)
        }

        enum Replaced {
            /// The file was replaced; its new version, if it is certain.
            case replaced(FileVersion?)
            /// Nothing was replaced: the file the bytes were made from was written into meanwhile.
            case baseRewritten
        }

        /// Gives the new file the mode and owner of the one it replaces.
        private func keep(_ owner: FileOwner, of descriptor: FileDescriptor) throws {
            do {
                try descriptor.setMode(owner.mode)
            } catch {
                throw FileFailure.failed("cannot keep the mode of", path, error)
            }
            guard owner.user != geteuid() || owner.group != getegid() else { return }
            do {
                try descriptor.setOwner(user: owner.user, group: owner.group)
            } catch {
                throw FileFailure.failed("cannot keep the owner (user \(owner.user)) of", path, error)
            }
        }

        private func writeAll(_ bytes: [UInt8], to descriptor: FileDescriptor, path: String) throws {
            var offset = 0
            while offset < bytes.count {
                let count: Int
                do {
                    count = try descriptor.write(bytes[offset...])
                } catch {
                    throw FileFailure.failed("cannot write", path, error)
                }
                // A write that makes no progress without an error: the disk is full.
                guard count > 0 else { throw FileFailure.failed("cannot write", path, Errno(code: ENOSPC)) }
                offset += count
            }
        }

        /// Moves the file, which is not a property list, aside under a name of its own, so that saving
        /// does not overwrite bytes it cannot read: they may be a user's values another tool can recover.
        /// The new name is unique and the move never replaces a file (a hard link, then the old name
        /// removed): two unreadable files in a row are both kept. Returns the new path.
        func moveAside() throws -> String {
            while true {
                // `<suite>.plist.unreadable-xxxxxx` fits a file name for every suite name `SuiteName` allows.
                let keptPath = path + ".unreadable-" + randomSuffix(count: 6)
                do {
                    try System.link(path, to: keptPath)
                } catch {
                    if error == .exists { continue }
                    throw FileFailure.failed("cannot move aside the unreadable", path, error)
                }
                System.unlink(path)
                return keptPath
            }
        }

        /// Removes temporary files left by a save that was killed. Under the file lock (`locked`): no other
        /// save is writing one then.
        func removeStaleTemporaryFiles(_ locked: borrowing FileLockHeld) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            for name in names where name.hasPrefix(temporaryPrefix) {
                System.unlink(directory + "/" + name)
            }
        }

        /// Keeps the file now at `path` (one Foundation wrote, about to be replaced) as `plainSavePath`:
        /// a hard link under a temporary name, renamed over the last one kept (a link planted there is
        /// replaced, not followed). Best effort: without it, only the processes that read that file see
        /// what it dropped.
        func keepAsPlainSave() {
            let temporaryPath = directory + "/" + temporaryPrefix + randomSuffix(count: 12)
            guard (try? System.link(path, to: temporaryPath)) != nil else { return }
            try? System.rename(temporaryPath, to: plainSavePath)
            // Still there when the rename failed, or did nothing: two links to one file (a save that read
            // the same plain save again) are left as they are.
            System.unlink(temporaryPath)
        }

        /// Removes the suite's file and the last plain save kept beside it (a link there is removed, not
        /// followed). The lock file stays.
        func removeFile() {
            System.unlink(path)
            System.unlink(plainSavePath)
        }

        private func randomSuffix(count: Int) -> String {
            let characters = Array("abcdefghijklmnopqrstuvwxyz0123456789")
            return String((0..<count).map { _ in characters.randomElement()! })
        }
    }
#endif
