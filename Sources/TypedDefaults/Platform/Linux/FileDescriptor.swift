#if os(Linux)
    import Glibc

    /// An open file of the saver's (swift-system's `FileDescriptor` shape): the calls on an open file,
    /// each once, through `System.call`'s retry loop.
    struct FileDescriptor: Hashable, Sendable {
        let rawValue: Int32

        /// Opens `path` with `flags` (and `mode`, for a file it creates).
        static func open(_ path: String, _ flags: Int32, _ mode: mode_t = 0) throws(Errno) -> FileDescriptor {
            let descriptor = FileDescriptor(
                rawValue: try System.call(.open, path) { _ in Glibc.open(path, flags, mode) })
            #if DEBUG
                SystemCallFaults.opened(descriptor.rawValue, path)
            #endif
            return descriptor
        }

        func close() {
            #if DEBUG
                SystemCallFaults.closed(rawValue)
            #endif
            _ = Glibc.close(rawValue)
        }

        /// Reads what the file has into `buffer`, up to its size: the count read, 0 at the end.
        func read(into buffer: inout [UInt8]) throws(Errno) -> Int {
            try System.call(.read, nil, descriptor: self) { limit in
                buffer.withUnsafeMutableBytes { Glibc.read(rawValue, $0.baseAddress, min($0.count, limit)) }
            }
        }

        /// Writes what it can of `bytes`: the count written.
        func write(_ bytes: ArraySlice<UInt8>) throws(Errno) -> Int {
            try System.call(.write, nil, descriptor: self) { limit in
                bytes.withUnsafeBytes { Glibc.write(rawValue, $0.baseAddress, min($0.count, limit)) }
            }
        }

        func seekToStart() throws(Errno) {
            _ = try System.call(.seek, nil, descriptor: self) { _ in lseek(rawValue, 0, SEEK_SET) }
        }

        func status() throws(Errno) -> stat {
            var status = stat()
            _ = try System.call(.status, nil, descriptor: self) { _ in fstat(rawValue, &status) }
            return status
        }

        /// `flock` with `operation` (`LOCK_EX`, `LOCK_UN`, with `LOCK_NB` or not).
        func lock(_ operation: Int32) throws(Errno) {
            _ = try System.call(.lock, nil, descriptor: self) { _ in flock(rawValue, operation) }
        }

        func setMode(_ mode: mode_t) throws(Errno) {
            _ = try System.call(.setMode, nil, descriptor: self) { _ in fchmod(rawValue, mode) }
        }

        func setOwner(user: uid_t, group: gid_t) throws(Errno) {
            _ = try System.call(.setOwner, nil, descriptor: self) { _ in fchown(rawValue, user, group) }
        }
    }
#endif
