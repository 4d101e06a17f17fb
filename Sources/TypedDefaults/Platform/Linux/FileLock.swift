#if os(Linux)
    import Glibc
    import Foundation

    /// Runs `body` holding an exclusive lock on the suite's lock file, shared with every process that
    /// saves the suite.
    ///
    /// The lock file is never removed, not even with the suite: a process that locked the old file and
    /// one that created a new one would both hold "the" lock. Root creates it for the owner of `folder`
    /// (a run under `sudo -E` in a user's folder must not leave a lock that user cannot open). It is
    /// opened read-only when it cannot be opened for writing (`flock` needs no more), and replaced when
    /// it cannot be opened at all (see `replaceLockFileNobodyHereCanOpen`); never through a link, and it
    /// must be a regular file. With `deadline`, gives up with `FileFailure.timedOut` when the lock cannot
    /// be had by then.
    func withFileLock<Result>(
        at path: String, in folder: String, before deadline: Date? = nil, _ body: () throws -> Result
    ) throws -> Result {
        let descriptor: FileDescriptor
        do {
            descriptor = try openLockFile(path, in: folder)
        } catch {
            throw FileFailure.failed("cannot open the lock file", path, error)
        }
        defer { descriptor.close() }
        guard let status = try? descriptor.status(), status.st_mode & S_IFMT == S_IFREG else {
            throw FileFailure.refused(path: path, reason: "the lock file is not a regular file")
        }
        try lock(descriptor, path: path, before: deadline)
        defer { try? descriptor.lock(LOCK_UN) }
        return try body()
    }

    private func lock(_ descriptor: FileDescriptor, path: String, before deadline: Date?) throws {
        do throws(Errno) {
            try descriptor.lock(deadline == nil ? LOCK_EX : LOCK_EX | LOCK_NB)
            return
        } catch {
            guard error.code == EWOULDBLOCK else { throw FileFailure.failed("cannot lock", path, error) }
        }
        // Only a try with a deadline says EWOULDBLOCK.
        try waitInTheKernelsQueue(descriptor, path: path, before: deadline ?? .distantFuture)
    }

    /// The lock is held elsewhere: waits for it in the kernel's queue, as a blocking `flock` does, on a
    /// thread of its own, and gives up at `deadline`. In the queue the lock is handed over as soon as it
    /// is released; a try every millisecond lost it, again and again, to the processes waiting there
    /// (16 writers into one suite lost about ten times the writes). The thread waits on a duplicate of
    /// the descriptor (one open file, one lock); given up, it releases the lock as soon as it gets it.
    private func waitInTheKernelsQueue(_ descriptor: FileDescriptor, path: String, before deadline: Date) throws {
        let duplicate = dup(descriptor.rawValue)
        guard duplicate >= 0 else { throw FileFailure.failed("cannot lock", path, Errno.current) }
        let wait = ConditionLocked(LockWait())
        let waiter = Thread {
            var result: Int32
            repeat { result = flock(duplicate, LOCK_EX) } while result != 0 && errno == EINTR
            let failure = result == 0 ? nil : errno
            let abandoned = wait.withLockedValue { wait in
                wait.isDone = true
                wait.failure = failure
                return wait.isAbandoned
            }
            if abandoned, failure == nil { _ = flock(duplicate, LOCK_UN) }
            // The lock, when it is kept, stays with the open file the caller's descriptor refers to.
            _ = close(duplicate)
        }
        waiter.name = "TypedDefaults lock wait"
        waiter.start()
        wait.wait(until: { $0.isDone }, before: deadline)
        let outcome = wait.withLockedValue { wait -> LockWait in
            if !wait.isDone { wait.isAbandoned = true }
            return wait
        }
        guard outcome.isDone else { throw FileFailure.timedOut(path: path) }
        if let failure = outcome.failure { throw FileFailure.failed("cannot lock", path, Errno(code: failure)) }
    }

    /// A wait for a file lock on another thread: done (with the failure, if `flock` failed), or given up.
    private struct LockWait {
        var isDone = false
        var failure: Int32?
        var isAbandoned = false
    }

    private let lockFileFlags = O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC

    private func openLockFile(_ path: String, in folder: String) throws(Errno) -> FileDescriptor {
        var replaced = false
        while true {
            do throws(Errno) {
                return try FileDescriptor.open(path, O_RDWR | lockFileFlags)
            } catch  where error.code == ENOENT {
                do throws(Errno) {
                    let descriptor = try FileDescriptor.open(path, O_CREAT | O_EXCL | O_RDWR | lockFileFlags, 0o600)
                    if let owner = FileOwner.forNewFile(in: folder) {
                        try? descriptor.setOwner(user: owner.user, group: owner.group)
                    }
                    return descriptor
                } catch  where error.code == EEXIST {
                    // Another process made it first: open that one.
                }
            } catch  where error.code == EACCES {
                do throws(Errno) {
                    return try FileDescriptor.open(path, O_RDONLY | lockFileFlags)
                } catch  where error.code == EACCES && !replaced {
                    try replaceLockFileNobodyHereCanOpen(path, in: folder)
                    replaced = true
                }
            }
        }
    }

    /// Replaces a lock file this process can open neither for writing nor for reading (left by root with
    /// mode 0600 by an older version, or by hand), which would otherwise stop every save of the suite.
    /// The processes that replace it take turns on a lock of the folder, and each looks again under it:
    /// a lock file another one just put there is used, not replaced. The one case left is a process of
    /// the old file's owner holding it at that moment: for that one save, it and this process do not
    /// exclude each other.
    private func replaceLockFileNobodyHereCanOpen(_ path: String, in folder: String) throws(Errno) {
        let folderDescriptor = try FileDescriptor.open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { folderDescriptor.close() }
        try folderDescriptor.lock(LOCK_EX)
        defer { try? folderDescriptor.lock(LOCK_UN) }
        do throws(Errno) {
            try FileDescriptor.open(path, O_RDONLY | lockFileFlags).close()
            return
        } catch  where error.code == EACCES {}
        let newPath = path + "-new-" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try FileDescriptor.open(newPath, O_CREAT | O_EXCL | O_RDWR | lockFileFlags, 0o600).close()
        do {
            try System.rename(newPath, to: path)
        } catch {
            System.unlink(newPath)
            throw error
        }
    }
#endif
