#if os(Linux)
    import Glibc

    // The bottom of the Linux saver: every system call it makes is one function of `System`, which
    // retries `EINTR` and gives a failure as an `Errno`; the saver's files turn it into a `FileFailure`
    // with the path and action it concerns, mapped to a `DefaultsError` once, where the saver reports
    // (`LinuxSaver.reported(_:)`). `SystemCallFaults` makes a call fail in-process, for the tests.

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
    }

    /// The system calls of the saver, each once.
    enum System {
        static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws(Errno) -> Int32 {
            let descriptor = try call(.open, path) { _ in Glibc.open(path, flags, mode) }
            SystemCallFaults.opened(descriptor, path)
            return descriptor
        }

        static func close(_ descriptor: Int32) {
            SystemCallFaults.closed(descriptor)
            _ = Glibc.close(descriptor)
        }

        /// Reads what `descriptor` has into `buffer`, up to its size: the count read, 0 at the end.
        static func read(_ descriptor: Int32, into buffer: inout [UInt8]) throws(Errno) -> Int {
            try call(.read, descriptor: descriptor) { limit in
                buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, min($0.count, limit)) }
            }
        }

        /// Writes what it can of `bytes`: the count written.
        static func write(_ descriptor: Int32, _ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
            try call(.write, descriptor: descriptor) { limit in
                bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, min($0.count, limit)) }
            }
        }

        static func seekToStart(_ descriptor: Int32) throws(Errno) {
            _ = try call(.seek, descriptor: descriptor) { _ in lseek(descriptor, 0, SEEK_SET) }
        }

        static func status(of descriptor: Int32) throws(Errno) -> stat {
            var status = stat()
            _ = try call(.status, descriptor: descriptor) { _ in fstat(descriptor, &status) }
            return status
        }

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

        static func lock(_ descriptor: Int32, _ operation: Int32) throws(Errno) {
            _ = try call(.lock, descriptor: descriptor) { _ in flock(descriptor, operation) }
        }

        static func setMode(_ descriptor: Int32, _ mode: mode_t) throws(Errno) {
            _ = try call(.setMode, descriptor: descriptor) { _ in fchmod(descriptor, mode) }
        }

        static func setOwner(_ descriptor: Int32, user: uid_t, group: gid_t) throws(Errno) {
            _ = try call(.setOwner, descriptor: descriptor) { _ in fchown(descriptor, user, group) }
        }

        static func makeFileWatcher() throws(Errno) -> Int32 {
            try call(.watch, nil) { _ in inotify_init1(Int32(IN_CLOEXEC)) }
        }

        static func watch(_ directory: String, with watcher: Int32, events: UInt32) throws(Errno) -> Int32 {
            try call(.watch, directory) { _ in inotify_add_watch(watcher, directory, events) }
        }

        /// Runs `body` (given how many bytes it may move: all but under a short-transfer fault) until
        /// no signal interrupts it; its result, or the error number when it returns -1. A fault the tests
        /// set for the call and path takes the place of the call.
        private static func call<Result: FixedWidthInteger>(
            _ kind: SystemCall, _ path: String?, descriptor: Int32? = nil, _ body: (Int) -> Result
        ) throws(Errno) -> Result {
            while true {
                let result: Result
                switch SystemCallFaults.take(kind, path: path, descriptor: descriptor) {
                case .error(let code)?:
                    errno = code
                    result = -1
                case .shortTransfer?:
                    result = body(1)
                case nil:
                    result = body(Int.max)
                }
                guard result == -1 else { return result }
                let error = Errno.current
                guard error.code == EINTR else { throw error }
            }
        }

        private static func call<Result: FixedWidthInteger>(
            _ kind: SystemCall, descriptor: Int32, _ body: (Int) -> Result
        ) throws(Errno) -> Result {
            try call(kind, nil, descriptor: descriptor, body)
        }
    }
#endif
