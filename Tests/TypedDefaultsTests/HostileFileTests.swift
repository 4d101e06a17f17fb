import Foundation
import Testing
import TypedDefaults

// The Linux saver's own files and processes: there is no saver on Apple platforms.
#if os(Linux)

    /// A suite whose configuration folder is a fresh folder of the test's own, as `XDG_CONFIG_HOME`.
    struct ConfigFolder {
        let url: URL
        let suite = uniqueSuiteName()

        var environment: [String: String] { ["XDG_CONFIG_HOME": url.path] }
        var file: URL { url.appendingPathComponent(suite + ".plist") }
        var lockFile: URL { url.appendingPathComponent("." + suite + ".plist.lock") }
        /// The suite's key manifest, which the probe's first use of a key writes.
        var manifest: URL { url.appendingPathComponent("." + suite + ".plist.keys.json") }
        var outside: URL { url.appendingPathComponent("someone-elses-file") }
        static let outsideBytes = Data("someone else's bytes".utf8)

        /// Runs the probe's `command` on the suite in this folder.
        func probe(_ command: String, _ extra: [String] = [], environment extraEnvironment: [String: String] = [:])
            throws
            -> ProbeProcess.Output
        {
            try ProbeProcess.run([command, suite] + extra, environment: environment.merging(extraEnvironment) { $1 })
        }

        /// Writes a file the library must never touch, and returns its URL.
        func plantOutsideFile() throws -> URL {
            try Self.outsideBytes.write(to: outside)
            return outside
        }
    }

    /// Runs `body` with a new configuration folder, removed afterwards. Made where another user can
    /// reach it (some tests run the probe as `nobody`): in the temporary folder when every folder above it
    /// lets others pass, else in `/tmp` (a private `TMPDIR`, mode 0700, keeps them out).
    func withConfigFolder(_ body: (ConfigFolder) throws -> Void) throws {
        let base = [FileManager.default.temporaryDirectory, URL(fileURLWithPath: "/tmp")].first(where: othersCanReach)
        let folder = (base ?? FileManager.default.temporaryDirectory).appendingPathComponent("typed-defaults-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(ConfigFolder(url: folder))
    }

    /// Whether every folder from the root down to `folder` lets other users pass (its x bit for others).
    private func othersCanReach(_ folder: URL) -> Bool {
        var path = folder.resolvingSymlinksInPath().path
        while true {
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IXOTH != 0 else { return false }
            if path == "/" || path.isEmpty { return true }
            path = (path as NSString).deletingLastPathComponent
        }
    }

    @Suite("Hostile files and suite names are refused, and nothing is lost or written outside")
    struct HostileFileTests {
        @Test func aSymbolicLinkAtTheSuiteFileIsNeitherFollowedNorReplaced() throws {
            try withConfigFolder { folder in
                let outside = try folder.plantOutsideFile()
                try FileManager.default.createSymbolicLink(at: folder.file, withDestinationURL: outside)
                let result = try folder.probe("flush")
                #expect(result.status == 1)
                #expect(result.standardOutput.contains("symbolic link"), "\(result.standardOutput)")
                #expect(try Data(contentsOf: outside) == ConfigFolder.outsideBytes)
                #expect(try FileManager.default.destinationOfSymbolicLink(atPath: folder.file.path) == outside.path)
            }
        }

        @Test func aDanglingSymbolicLinkAtTheSuiteFileCreatesNothing() throws {
            try withConfigFolder { folder in
                let target = folder.url.appendingPathComponent("made-through-a-link")
                try FileManager.default.createSymbolicLink(at: folder.file, withDestinationURL: target)
                let result = try folder.probe("flush")
                #expect(result.status == 1 && result.standardOutput.contains("symbolic link"))
                #expect(!FileManager.default.fileExists(atPath: target.path))
            }
        }

        @Test func aSymbolicLinkAtTheLockFileIsNotFollowed() throws {
            try withConfigFolder { folder in
                let outside = try folder.plantOutsideFile()
                try FileManager.default.createSymbolicLink(at: folder.lockFile, withDestinationURL: outside)
                let result = try folder.probe("flush")
                #expect(result.status == 1 && result.standardOutput.contains("lock file"), "\(result.standardOutput)")
                #expect(try Data(contentsOf: outside) == ConfigFolder.outsideBytes)
            }
        }

        @Test func linksPlantedAtTemporaryNamesAreNeverWrittenThrough() throws {
            try withConfigFolder { folder in
                let outside = try folder.plantOutsideFile()
                // The old predictable name, and names with the library's temporary prefix.
                for name in [
                    "\(folder.suite).plist.tmp-1", ".\(folder.suite).plist.tmp-a", ".\(folder.suite).plist.tmp-",
                ] {
                    try FileManager.default.createSymbolicLink(
                        at: folder.url.appendingPathComponent(name), withDestinationURL: outside)
                }
                let result = try folder.probe("flush")
                #expect(result.lines == ["flushed"], "\(result.standardError)")
                #expect(try Data(contentsOf: outside) == ConfigFolder.outsideBytes)
                #expect(propertyList(at: folder.file)?["count"] as? Int == 1)
            }
        }

        @Test func aTemporaryFileLeftByAKilledSaveIsRemoved() throws {
            try withConfigFolder { folder in
                let stale = folder.url.appendingPathComponent(".\(folder.suite).plist.tmp-left0behind")
                try Data("half".utf8).write(to: stale)
                #expect(try folder.probe("flush").lines == ["flushed"])
                #expect(!FileManager.default.fileExists(atPath: stale.path))
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter {
                    $0.contains(".tmp-")
                }
                #expect(left.isEmpty)
            }
        }

        @Test func aFIFOAtTheSuiteFileRefusesTheStoreInsteadOfHanging() throws {
            try withConfigFolder { folder in
                #expect(mkfifo(folder.file.path, 0o600) == 0)
                let result = try folder.probe("flush")
                #expect(result.status == 3 && result.lines == ["no store"])
            }
        }

        @Test func aDirectoryAtTheSuiteFileIsLeftAsItIs() throws {
            try withConfigFolder { folder in
                try FileManager.default.createDirectory(at: folder.file, withIntermediateDirectories: false)
                let result = try folder.probe("flush")
                #expect(result.status == 1 && result.standardOutput.contains("not a regular file"))
                var isDirectory: ObjCBool = false
                #expect(FileManager.default.fileExists(atPath: folder.file.path, isDirectory: &isDirectory))
                #expect(isDirectory.boolValue)
            }
        }

        @Test func aFileThisUserCannotReadIsNeverReplaced() throws {
            try withConfigFolder { folder in
                let original = try PropertyListSerialization.data(
                    fromPropertyList: ["other": 1], format: .binary, options: 0)
                try original.write(to: folder.file)
                var environment: [String: String] = [:]
                if getuid() == 0 {
                    // Root reads every file: run the probe as `nobody`, in a folder it owns, on a file it may
                    // not read.
                    #expect(chown(folder.url.path, 65_534, 65_534) == 0)
                    #expect(chmod(folder.file.path, 0o600) == 0)
                    environment["PROBE_USER_ID"] = "65534"
                } else {
                    #expect(chmod(folder.file.path, 0o000) == 0)
                }
                let result = try folder.probe("flush", environment: environment)
                #expect(result.status == 1, "\(result.standardOutput) \(result.standardError)")
                #expect(result.standardOutput.contains("cannot be read"), "\(result.standardOutput)")
                #expect(chmod(folder.file.path, 0o600) == 0)
                #expect(try Data(contentsOf: folder.file) == original)
            }
        }

        /// A run as root (`sudo -E`) in a user's folder: the files it makes there are the user's, and a
        /// lock file root left with mode 0600 (as an older version did) does not stop the user's saves.
        /// Only root can make either; elsewhere there is nothing to try.
        @Test(.enabled(if: getuid() == 0, "needs root, to make files another user cannot open"))
        func aRunAsRootLeavesNothingThatStopsTheUsersSaves() throws {
            try withConfigFolder { folder in
                #expect(chown(folder.url.path, 65_534, 65_534) == 0)
                #expect(try folder.probe("flush").lines == ["flushed"])
                for file in [folder.file, folder.lockFile, folder.manifest] {
                    let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
                    #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 65_534, "\(file.lastPathComponent)")
                }
                #expect(try folder.probe("flush", environment: ["PROBE_USER_ID": "65534"]).lines == ["flushed"])
            }
        }

        @Test(.enabled(if: getuid() == 0, "needs root, to make a lock file another user cannot open"))
        func aLockFileOnlyRootCanOpenIsReplaced() throws {
            try withConfigFolder { folder in
                #expect(chown(folder.url.path, 65_534, 65_534) == 0)
                #expect(FileManager.default.createFile(atPath: folder.lockFile.path, contents: nil))
                #expect(chmod(folder.lockFile.path, 0o600) == 0)
                let result = try folder.probe("flush", environment: ["PROBE_USER_ID": "65534"])
                #expect(result.lines == ["flushed"], "\(result.standardOutput) \(result.standardError)")
                #expect(propertyList(at: folder.file)?["count"] as? Int == 1)
                let attributes = try FileManager.default.attributesOfItem(atPath: folder.lockFile.path)
                #expect((attributes[.ownerAccountID] as? NSNumber)?.intValue == 65_534)
                let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
                #expect(
                    left.sorted()
                        == [folder.lockFile, folder.file, folder.manifest].map(\.lastPathComponent).sorted())
            }
        }

        @Test func aReplacedFileKeepsItsModeAndItsValues() throws {
            try withConfigFolder { folder in
                let original = try PropertyListSerialization.data(
                    fromPropertyList: ["other": 1], format: .binary, options: 0)
                try original.write(to: folder.file)
                #expect(chmod(folder.file.path, 0o644) == 0)
                #expect(try folder.probe("flush").lines == ["flushed"])
                let attributes = try FileManager.default.attributesOfItem(atPath: folder.file.path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o644)
                let saved = propertyList(at: folder.file)
                #expect(saved?["other"] as? Int == 1 && saved?["count"] as? Int == 1)
            }
        }

        @Test func oneSuitesFailureIsItsOwn() throws {
            try withConfigFolder { folder in
                try FileManager.default.createDirectory(at: folder.file, withIntermediateDirectories: false)
                let other = uniqueSuiteName("other")
                let result = try folder.probe("two", [other])
                #expect(result.lines.count == 2)
                #expect(result.lines.first?.hasPrefix("\(folder.suite): error:") == true)
                #expect(result.lines.last == "\(other): flushed")
                #expect(propertyList(at: folder.url.appendingPathComponent(other + ".plist"))?["count"] as? Int == 5)
            }
        }

        /// Names that are not a plain file name; a process argument cannot hold the one with a NUL.
        static let badSuiteNames = [
            "", ".", "..", "a/b", "../../escaped", "/tmp/absolute", String(repeating: "x", count: 232),
            String(repeating: "é", count: 116),
        ]

        @Test(arguments: badSuiteNames + ["a\0b"])
        func aSuiteNameThatIsNotAPlainFileNameGivesNoStore(_ name: String) {
            #expect(DefaultsStore(suiteName: name) == nil)
        }

        @Test(arguments: badSuiteNames)
        func aProcessGivenABadSuiteNameWritesNothingAnywhere(_ name: String) throws {
            try withTemporaryFolder { folder in
                let configHome = folder.appendingPathComponent("a/b/config")
                try FileManager.default.createDirectory(at: configHome, withIntermediateDirectories: true)
                let result = try ProbeProcess.run(["flush", name], environment: ["XDG_CONFIG_HOME": configHome.path])
                #expect(result.status == 3 && result.lines == ["no store"])
                let everything = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String]
                #expect(everything?.sorted() == ["a", "a/b", "a/b/config"])
            }
        }

        @Test func theLongestPlainSuiteNameIsSaved() throws {
            try withConfigFolder { folder in
                let name = String(repeating: "x", count: 231)
                let result = try ProbeProcess.run(["flush", name], environment: folder.environment)
                #expect(result.lines == ["flushed"], "\(result.standardError)")
                #expect(propertyList(at: folder.url.appendingPathComponent(name + ".plist"))?["count"] as? Int == 1)
            }
        }
    }

#endif
