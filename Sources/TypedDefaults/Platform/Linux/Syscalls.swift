#if os(Linux)
    import Glibc

    // The bottom of the Linux saver: every system call it makes goes through `retryingInterrupts`, and
    // every failure is an `Errno` with the path and action it concerns (`FileFailure`), mapped to a
    // `DefaultsError` once, where the saver reports (`LinuxSaver.reported(_:)`).

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

    /// Calls `call` again while a signal interrupts it (`EINTR`); its result, or the error number when it
    /// returns -1.
    func retryingInterrupts<Result: FixedWidthInteger>(_ call: () -> Result) throws(Errno) -> Result {
        while true {
            let result = call()
            guard result == -1 else { return result }
            let error = Errno.current
            guard error.code == EINTR else { throw error }
        }
    }

    /// Reads what `descriptor` has into `buffer`, up to its size: the count read, 0 at the end.
    func readSome(_ descriptor: Int32, into buffer: inout [UInt8]) throws(Errno) -> Int {
        try retryingInterrupts { buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) } }
    }

    /// A file operation of the saver that failed or was refused.
    enum FileFailure: Error {
        /// `action` on `path` failed: "cannot create /x/.S.plist.tmp-abc: Permission denied".
        case failed(action: String, path: String, Errno?)
        /// The suite's file is there but the saver will not touch it: a link, a FIFO, a file it cannot read.
        case refused(path: String, reason: String)
        /// The lock could not be had before a deadline (the exit-time save).
        case timedOut(path: String)

        /// `action` on `path` failed with `errno` as it is now.
        static func failed(_ action: String, _ path: String, _ error: Errno) -> FileFailure {
            .failed(action: action, path: path, error)
        }
    }
#endif
