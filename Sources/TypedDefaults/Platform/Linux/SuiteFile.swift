#if os(Linux)
    import Foundation

    /// Where Foundation keeps a domain on Linux, by its own rules (swift-corelibs-foundation 6.3.1):
    /// `$XDG_CONFIG_HOME/<domain>.plist` when the variable is an absolute path, else
    /// `$HOME/.config/<domain>.plist`, where an unset or empty `HOME` gives `/.config` and a relative one
    /// is taken from the working directory. Not `NSHomeDirectory()`, which reads the password file.
    ///
    /// Resolved once, when the saver is made: a later `chdir` does not move the suite.
    struct SuiteFile: Sendable {
        let directory: String
        /// The file's name in `directory`: `<domain>.plist`.
        let fileName: String
        let path: String
        /// Beside the file, and never removed: two processes must always lock the same file.
        let lockPath: String
        /// The temporary files of this suite start with it; a random suffix follows.
        let temporaryPrefix: String
        /// Beside the file: the last file Foundation's `synchronize()` wrote that a library save then
        /// replaced, kept so that every library process can see what it dropped (see `LinuxSaver.look`).
        let plainSavePath: String
        /// Beside the file: the keys apps declared for the suite (`KeyManifest`), kept when the suite is
        /// deleted (the apps still declare them).
        let manifestPath: String

        /// The files of `domain`, or nil when `domain` is not a plain file name.
        init?(domain: String, environment: [String: String] = ProcessInfo.processInfo.environment) {
            guard SuiteName.isPlainFileName(domain) else { return nil }
            let directory = Self.directory(environment: environment)
            self.directory = directory
            fileName = domain + ".plist"
            path = directory + "/" + fileName
            lockPath = directory + "/." + domain + ".plist.lock"
            temporaryPrefix = "." + domain + ".plist.tmp-"
            plainSavePath = directory + "/." + domain + ".plist.plain-save"
            manifestPath = directory + "/." + domain + ".plist.keys.json"
        }

        /// The folder Foundation keeps every domain in, by the rules above.
        static func directory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
            let configHome = environment["XDG_CONFIG_HOME"] ?? ""
            let directory = configHome.hasPrefix("/") ? configHome : (environment["HOME"] ?? "") + "/.config"
            return directory.hasPrefix("/") ? directory : FileManager.default.currentDirectoryPath + "/" + directory
        }

        /// Creates the folder, as Foundation does at its first save.
        func createDirectory() {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        }

        /// Runs `body` holding the suite's file lock (see `withFileLock`), creating the folder first;
        /// `body` gets the proof of it, for the work that needs the lock.
        func withLock<Result>(before deadline: Date? = nil, _ body: (borrowing FileLockHeld) throws -> Result) throws
            -> Result
        {
            createDirectory()
            return try withFileLock(at: lockPath, in: directory, before: deadline) { try body(FileLockHeld()) }
        }
    }

    extension Locked.Unsafe where State == SaveState {
        /// The proof of `file`'s lock for the exit-time save on a thread that holds the lock further up its
        /// stack, inside the turn this view reaches past, and will never return there (`exit()` inside a
        /// save): through the one way past a lock (`Locked.unsafe`), never made elsewhere.
        func withFileLockAssumedHeld<Result>(
            _ file: SuiteFile, _ body: (borrowing FileLockHeld) throws -> Result
        ) rethrows -> Result {
            try body(FileLockHeld())
        }
    }

    /// Proof that this process holds a suite's file lock (`SuiteFile.withLock`): the work that must run
    /// under it (a save's reads and replace, removing stale temporary files) takes one. Not copyable, so
    /// it cannot outlive the lock; made only in this file.
    struct FileLockHeld: ~Copyable {
        fileprivate init() {}
    }
#endif
