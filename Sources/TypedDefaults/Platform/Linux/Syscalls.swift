#if os(Linux)
    import Glibc

    // The bottom of the Linux saver: every system call it makes is one function of `System`, which
    // retries `EINTR` and gives a failure as an `Errno`; the saver's files turn it into a `FileFailure`
    // with the path and action it concerns, mapped to a `DefaultsError` once, where the saver reports
    // (`FileFailure.reported(_:suite:)`). `SystemCallFaults` makes a call fail in-process, for the tests (debug builds only).

    /// A system call of the saver, as the tests' fault injection (`SystemCallFaults`) names it.
    package enum SystemCall: Sendable, Hashable {
        case open, read, write, seek, status, rename, link, unlink, lock, setMode, setOwner, watch
    }

    /// An error number a system call gave.
    struct Errno: Error, Equatable, CustomStringConvertible {
        let code: Int32

        static let noSuchFile = Errno(code: ENOENT)
        static let symbolicLink = Errno(code: ELOOP)
        static let exists = Errno(code: EEXIST)

        /// `errno` now.
        static var current: Errno { Errno(code: errno) }

        /// The system's sentence for the number.
        var description: String { String(cString: strerror(code)) }
    }

    /// A file operation of the saver that failed or was refused.
    enum FileFailure: Error {
        /// `action` on `path` failed: "cannot create /x/.S.plist.tmp-abc: Permission denied".
        case failed(action: String, path: String, Errno?)
        /// The suite's file is there but the saver will not touch it: a link, a FIFO, a file it cannot read.
        case refused(path: String, reason: String)
        /// The lock could not be had before a deadline (the exit-time save).
        case timedOut(path: String)

        /// `action` on `path` failed with `error`.
        static func failed(_ action: String, _ path: String, _ error: Errno) -> FileFailure {
            .failed(action: action, path: path, error)
        }

        /// The error a failure of the saver's file work (`error`, in suite `domain`) is reported as.
        static func reported(_ error: any Error, suite domain: String) -> DefaultsError {
            switch error {
            case let error as DefaultsError: return error
            case FileFailure.failed(let action, let path, let errno?):
                return .saveFailed(suite: domain, reason: "\(action) \(path): \(errno)")
            case FileFailure.failed(let action, let path, nil):
                return .saveFailed(suite: domain, reason: "\(action) \(path)")
            case FileFailure.refused(let path, let reason):
                return .fileRefused(suite: domain, path: path, reason: reason)
            case FileFailure.timedOut(let path):
                return .saveFailed(suite: domain, reason: "\(path) stayed locked by another process")
            default:
                return .saveFailed(suite: domain, reason: "\(error)")
            }
        }
    }

    /// The system calls of the saver on paths, each once; those on an open file are `FileDescriptor`'s.
    enum System {
        /// The status of what `path` names, not following a link there.
        static func linkStatus(_ path: String) throws(Errno) -> stat {
            var status = stat()
            _ = try call(.status, path) { _ in lstat(path, &status) }
            return status
        }

        /// The status of what `path` leads to, following links.
        static func status(_ path: String) throws(Errno) -> stat {
            var status = stat()
            _ = try call(.status, path) { _ in stat(path, &status) }
            return status
        }

        static func rename(_ path: String, to newPath: String) throws(Errno) {
            _ = try call(.rename, path) { _ in Glibc.rename(path, newPath) }
        }

        static func link(_ path: String, to newPath: String) throws(Errno) {
            _ = try call(.link, path) { _ in Glibc.link(path, newPath) }
        }

        /// Removes the name `path`; whether it did (best effort where it is called).
        @discardableResult
        static func unlink(_ path: String) -> Bool {
            (try? call(.unlink, path) { _ in Glibc.unlink(path) }) != nil
        }

        /// A new inotify instance, closed on `exec`.
        static func makeFileWatcher() throws(Errno) -> FileDescriptor {
            FileDescriptor(rawValue: try call(.watch, nil) { _ in inotify_init1(Int32(IN_CLOEXEC)) })
        }

        /// Watches `directory` for `events` with `watcher`: the watch's number.
        static func watch(_ directory: String, with watcher: FileDescriptor, events: UInt32) throws(Errno) -> Int32 {
            try call(.watch, directory) { _ in inotify_add_watch(watcher.rawValue, directory, events) }
        }

        /// The one retry loop: runs `body` (given how many bytes it may move: all but under a short-transfer fault) until
        /// no signal interrupts it; its result, or the error number when it returns -1. A fault the tests
        /// set for the call and path takes the place of the call.
        /// In debug builds (the tests') only: release builds carry no fault injection.
        static func call<Result: FixedWidthInteger>(
            _ kind: SystemCall, _ path: String?, descriptor: FileDescriptor? = nil, _ body: (Int) -> Result
        ) throws(Errno) -> Result {
            while true {
                let result: Result
                #if DEBUG
                    switch SystemCallFaults.take(kind, path: path, descriptor: descriptor?.rawValue) {
                    case .error(let code)?:
                        errno = code
                        result = -1
                    case .shortTransfer?:
                        result = body(1)
                    case nil:
                        result = body(Int.max)
                    }
                #else
                    result = body(Int.max)
                #endif
                guard result == -1 else { return result }
                let error = Errno.current
                guard error.code == EINTR else { throw error }
            }
        }
    }
#endif
