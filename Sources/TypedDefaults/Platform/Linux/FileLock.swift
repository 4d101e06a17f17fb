#if os(Linux)
    import Glibc
    import Foundation

    /// Runs `body` holding an exclusive lock on the suite's lock file, shared with every process that
    /// saves the suite.
    ///
    /// The lock file is never removed, not even with the suite: a process that locked the old file and
    /// one that created a new one would both hold "the" lock. It is opened read-only when it cannot be
    /// opened for writing (`flock` needs no more; a lock file left by `sudo -E` belongs to root), without
    /// following a link, and must be a regular file. With `deadline`, gives up with
    /// `FileFailure.timedOut` when the lock cannot be had by then.
    func withFileLock<Result>(at path: String, before deadline: Date? = nil, _ body: () throws -> Result) throws
        -> Result
    {
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
        try lock(descriptor, path: path, before: deadline)
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    private func lock(_ descriptor: Int32, path: String, before deadline: Date?) throws {
        let operation = deadline == nil ? LOCK_EX : LOCK_EX | LOCK_NB
        while true {
            do throws(Errno) {
                _ = try retryingInterrupts { flock(descriptor, operation) }
                return
            } catch {
                guard error.code == EWOULDBLOCK, let deadline else {
                    throw FileFailure.failed("cannot lock", path, error)
                }
                guard Date() < deadline else { throw FileFailure.timedOut(path: path) }
                usleep(1_000)
            }
        }
    }

    private func openLockFile(_ path: String) throws(Errno) -> Int32 {
        let flags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
        do throws(Errno) {
            return try retryingInterrupts { open(path, O_CREAT | O_RDWR | flags, 0o600) }
        } catch  where error.code == EACCES {
            return try retryingInterrupts { open(path, O_RDONLY | flags) }
        }
    }
#endif
