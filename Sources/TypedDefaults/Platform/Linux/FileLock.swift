#if os(Linux)
    import Glibc

    /// Runs `body` holding an exclusive lock on the suite's lock file, shared with every process that
    /// saves the suite.
    ///
    /// The lock file is never removed, not even with the suite: a process that locked the old file and
    /// one that created a new one would both hold "the" lock. It is opened read-only when it cannot be
    /// opened for writing (`flock` needs no more; a lock file left by `sudo -E` belongs to root), without
    /// following a link, and must be a regular file.
    func withFileLock<Result>(at path: String, _ body: () throws -> Result) throws -> Result {
        let descriptor: Int32
        do {
            descriptor = try openLockFile(path)
        } catch {
            throw FileFailure.failed("cannot open the lock file", path, error)
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileFailure.refused(path: path, reason: "the lock file is not a regular file")
        }
        do {
            _ = try retryingInterrupts { flock(descriptor, LOCK_EX) }
        } catch {
            throw FileFailure.failed("cannot lock", path, error)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    private func openLockFile(_ path: String) throws(Errno) -> Int32 {
        let flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        do {
            return try retryingInterrupts { open(path, O_CREAT | O_RDWR | flags, 0o600) }
        } catch  where error.code == EACCES {
            return try retryingInterrupts { open(path, O_RDONLY | flags) }
        }
    }
#endif
