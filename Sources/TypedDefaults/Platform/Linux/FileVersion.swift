#if os(Linux)
    import Glibc

    /// What identifies one version of a file: a save that finds the same identity knows the contents.
    struct FileIdentity: Equatable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: timespec
        let changed: timespec

        init(_ status: stat) {
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
            size = Int64(status.st_size)
            modified = status.st_mtim
            changed = status.st_ctim
        }

        /// Whether `other` is this very file, whatever was written into it since.
        func sameInode(as other: FileIdentity?) -> Bool {
            guard let other else { return false }
            return device == other.device && inode == other.inode
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

        private init(mode: mode_t, user: uid_t, group: gid_t) {
            self.mode = mode
            self.user = user
            self.group = group
        }

        /// The owner a file root creates in `folder` gets: the folder's, when that is another user (a
        /// run under `sudo -E` in a user's configuration folder must leave files that user can read and
        /// replace, as they were). Nil when this process is not root or root owns the folder.
        static func forNewFile(in folder: String) -> FileOwner? {
            guard geteuid() == 0, let status = try? System.status(folder), status.st_uid != 0 else { return nil }
            return FileOwner(mode: 0o600, user: status.st_uid, group: status.st_gid)
        }
    }

    /// One version of the suite's file, held open.
    ///
    /// Held open, its inode number cannot be given to a new file, so an identity that matches it is that
    /// very version (the status times alone would not tell: they move in steps of a clock tick, several
    /// milliseconds, and saves come faster).
    final class FileVersion {
        let descriptor: FileDescriptor
        let identity: FileIdentity
        let owner: FileOwner

        private init(descriptor: FileDescriptor, status: stat) {
            self.descriptor = descriptor
            identity = FileIdentity(status)
            owner = FileOwner(status)
        }

        /// The file just written through `descriptor`, its identity taken now.
        convenience init(written descriptor: FileDescriptor) {
            self.init(descriptor: descriptor, status: (try? descriptor.status()) ?? stat())
        }

        /// The suite's file at `path` as it is now, opened without following a link and without waiting;
        /// nil when there is none. Anything but a readable regular file is refused and left as it is.
        static func open(_ path: String) throws -> FileVersion? {
            let descriptor: FileDescriptor
            do {
                descriptor = try FileDescriptor.open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
            } catch {
                switch error {
                case .noSuchFile: return nil
                case .symbolicLink:
                    throw FileFailure.refused(
                        path: path, reason: "it is a symbolic link, which the library does not follow")
                default: throw FileFailure.refused(path: path, reason: "it cannot be read: \(error)")
                }
            }
            let status: stat
            do {
                status = try descriptor.status()
            } catch {
                descriptor.close()
                throw FileFailure.refused(path: path, reason: "its status cannot be read: \(error)")
            }
            guard status.st_mode & S_IFMT == S_IFREG else {
                descriptor.close()
                throw FileFailure.refused(path: path, reason: "it is not a regular file")
            }
            return FileVersion(descriptor: descriptor, status: status)
        }

        deinit { descriptor.close() }

        /// Whether someone wrote into this very file since it was opened or written: the library never
        /// does (it replaces the file), Foundation's `synchronize()` rewrites it in place.
        /// (Not the status change time: replacing the file's name changes that too.)
        var rewrittenInPlace: Bool {
            guard let status = try? descriptor.status() else { return false }
            let now = FileIdentity(status)
            return now.size != identity.size || now.modified.tv_sec != identity.modified.tv_sec
                || now.modified.tv_nsec != identity.modified.tv_nsec
        }

        /// The whole file, from its start; at most `limit` bytes.
        func readAll(path: String, limit: Int = .max) throws -> [UInt8] {
            do {
                try descriptor.seekToStart()
            } catch {
                throw FileFailure.failed("cannot read", path, error)
            }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(min(Int(identity.size) + 1, limit))
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while bytes.count < limit {
                let count: Int
                do {
                    count = try descriptor.read(into: &buffer)
                } catch {
                    throw FileFailure.failed("cannot read", path, error)
                }
                if count == 0 { return bytes }
                bytes.append(contentsOf: buffer[0..<min(count, limit - bytes.count)])
            }
            return bytes
        }
    }
#endif
