import Foundation
import Testing
import TypedDefaults

// Every failure path of the Linux saver, in-process: a system call of one suite's files is made to fail
// (`SystemCallFaults`), and the save must report it, keep the write for the next save and leave the
// file as it was; interrupted calls and short transfers must go unnoticed. Before this seam, these paths
// were reached only with hostile files or a child process run as another user.
#if os(Linux) && DEBUG

    /// One way a system call can fail, the save step it hits, and what the report says.
    struct SaveFailure: CustomTestStringConvertible, Sendable {
        let call: SystemCall
        let fault: SystemCallFault
        /// Part of the report's reason.
        let reason: String
        /// The file is read again before the save (someone replaced it), so reads are on the path.
        var fileReplacedFirst = false
        var testDescription: String { "\(call) \(fault) → \(reason)" }
    }

    /// A fault that must not stop the save at all.
    struct HarmlessFault: CustomTestStringConvertible, Sendable {
        let call: SystemCall
        let fault: SystemCallFault
        var fileReplacedFirst = false
        var testDescription: String { "\(call) \(fault)" }
    }

    private let failures: [SaveFailure] = [
        // The lock file.
        SaveFailure(call: .open, fault: .error(EIO), reason: "cannot open the lock file"),
        SaveFailure(call: .lock, fault: .error(ENOLCK), reason: "cannot lock"),
        // Reading the file someone else replaced.
        SaveFailure(call: .read, fault: .error(EIO), reason: "cannot read", fileReplacedFirst: true),
        SaveFailure(call: .seek, fault: .error(EIO), reason: "cannot read", fileReplacedFirst: true),
        SaveFailure(call: .status, fault: .error(EACCES), reason: "not a regular file"),
        // Writing the new file and putting it in place.
        SaveFailure(call: .setMode, fault: .error(EPERM), reason: "cannot keep the mode of"),
        SaveFailure(call: .write, fault: .error(ENOSPC), reason: "cannot write"),
        SaveFailure(call: .write, fault: .error(EIO), reason: "cannot write"),
        SaveFailure(call: .rename, fault: .error(EACCES), reason: "cannot replace"),
    ]

    private let harmless: [HarmlessFault] = [
        HarmlessFault(call: .open, fault: .error(EINTR)),
        HarmlessFault(call: .lock, fault: .error(EINTR)),
        HarmlessFault(call: .write, fault: .error(EINTR)),
        HarmlessFault(call: .write, fault: .shortTransfer),
        HarmlessFault(call: .read, fault: .shortTransfer, fileReplacedFirst: true),
        HarmlessFault(call: .read, fault: .error(EINTR), fileReplacedFirst: true),
    ]

    @Suite("Every failure of a system call in a save: reported, nothing lost, the file untouched")
    struct SystemCallFailureTests {
        private let key = UserDefaultTypedKey<Int>("count", defaultValue: 0)

        /// A suite with a saved value (1), a store over it with an unsaved write (2), and the file's bytes;
        /// `fault` is set before the file is replaced, so that no look at the new file gets past it.
        private func withSavedSuite(
            replacingFileFirst: Bool, fault: (String) -> Void, _ body: (String, DefaultsStore, URL, Data) throws -> Void
        ) throws {
            // The reporting turn is held: the background save a write starts may fail and report too, and
            // that report must not reach another test's recorder.
            try withReportedErrors { _ in try withSavedSuite(replacingFileFirst, fault, body) }
        }

        private func withSavedSuite(
            _ replacingFileFirst: Bool, _ fault: (String) -> Void,
            _ body: (String, DefaultsStore, URL, Data) throws -> Void
        ) throws {
            try withSuite { suite, store in
                defer { SystemCallFaults.removeAll(onPathsContaining: suite) }
                store[key] = 1
                try store.flush()
                let file = testConfigHome.appendingPathComponent(suite + ".plist")
                fault(suite)
                if replacingFileFirst {
                    // Another process's save: a new file the saver has not read yet.
                    let replacement = try PropertyListSerialization.data(
                        fromPropertyList: ["count": 1, "other": 7], format: .binary, options: 0)
                    try replacement.write(to: file, options: .atomic)
                }
                store[key] = 2
                try body(suite, store, file, try Data(contentsOf: file))
            }
        }

        @Test(arguments: failures)
        func aFailedCallStopsTheSaveWhichReportsItKeepsTheWriteAndLeavesTheFile(_ failure: SaveFailure) throws {
            try withSavedSuite(replacingFileFirst: failure.fileReplacedFirst) {
                SystemCallFaults.inject(failure.fault, into: failure.call, onPathsContaining: $0)
            } _: { suite, store, file, before in
                let error = #expect(throws: DefaultsError.self) { try store.flush() }
                #expect("\(error.map { "\($0)" } ?? "")".contains(failure.reason), "\(String(describing: error))")
                #expect(try Data(contentsOf: file) == before, "the file was changed")
                let folder = try FileManager.default.contentsOfDirectory(atPath: testConfigHome.path)
                #expect(!folder.contains { $0.hasPrefix("." + suite + ".plist.tmp-") }, "a temporary file was left")
                #expect(store[key] == 2)

                SystemCallFaults.removeAll(onPathsContaining: suite)
                try store.flush()
                #expect(propertyList(at: file)?["count"] as? Int == 2, "the write was lost")
            }
        }

        @Test(arguments: harmless)
        func anInterruptedOrShortCallIsMadeAgainAndTheSaveGoesThrough(_ fault: HarmlessFault) throws {
            try withSavedSuite(replacingFileFirst: fault.fileReplacedFirst) {
                SystemCallFaults.inject(fault.fault, into: fault.call, onPathsContaining: $0, times: 3)
            } _: { _, store, file, _ in
                try store.flush()
                let saved = propertyList(at: file)
                #expect(saved?["count"] as? Int == 2)
                if fault.fileReplacedFirst { #expect(saved?["other"] as? Int == 7, "another process's value was lost") }
            }
        }

        /// A file that is not a property list is moved aside before a save replaces it; when it cannot be
        /// (the link fails), the save stops, says so, and the bytes stay where they were.
        @Test func anUnreadableFileThatCannotBeMovedAsideStaysAndTheSaveIsReported() throws {
            try withReportedErrors { _ in
                try withSuite { suite, store in
                    defer { SystemCallFaults.removeAll(onPathsContaining: suite) }
                    store[key] = 1
                    try store.flush()
                    let file = testConfigHome.appendingPathComponent(suite + ".plist")
                    let bytes = Data("a hand edit gone wrong".utf8)
                    SystemCallFaults.inject(.error(EACCES), into: .link, onPathsContaining: suite)
                    try bytes.write(to: file, options: .atomic)
                    store[key] = 2
                    let error = #expect(throws: DefaultsError.self) { try store.flush() }
                    #expect(
                        "\(error.map { "\($0)" } ?? "")".contains("cannot move aside"), "\(String(describing: error))")
                    #expect(try Data(contentsOf: file) == bytes)

                    SystemCallFaults.removeAll(onPathsContaining: suite)
                    try store.flush()
                    #expect(propertyList(at: file)?["count"] as? Int == 2)
                    let kept = try FileManager.default.contentsOfDirectory(atPath: testConfigHome.path)
                        .filter { $0.hasPrefix(suite + ".plist.unreadable-") }
                    #expect(kept.count == 1)
                    for name in kept {
                        try? FileManager.default.removeItem(at: testConfigHome.appendingPathComponent(name))
                    }
                }
            }
        }

        /// The save at exit: a write the process could not save is reported on standard error as it ends,
        /// and the file keeps what it held.
        @Test func aSaveAtExitThatFailsIsReportedAndLeavesTheFile() async throws {
            let suite = uniqueSuiteName()
            defer { DefaultsStore.removeSuite(named: suite) }
            let file = testConfigHome.appendingPathComponent(suite + ".plist")
            let store = try #require(DefaultsStore(suiteName: suite))
            store[key] = 1
            try store.flush()
            let before = try Data(contentsOf: file)
            // The child process reads the suite's name from its environment, which it inherits.
            setenv("TYPED_DEFAULTS_EXIT_SAVE_SUITE", suite, 1)
            let result = await #expect(processExitsWith: .success, observing: [\.standardErrorContent]) {
                let suite = ProcessInfo.processInfo.environment["TYPED_DEFAULTS_EXIT_SAVE_SUITE"] ?? ""
                let store = DefaultsStore(suiteName: suite)!
                SystemCallFaults.inject(.error(EIO), into: .write, onPathsContaining: suite)
                store[UserDefaultTypedKey<Int>("count", defaultValue: 0)] = 2
                exit(0)
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("cannot write"), "\(message)")
            #expect(try Data(contentsOf: file) == before)
        }

        /// A save the library starts itself, a moment after a write, reports through `ErrorReporting` and
        /// saves the write once the fault is gone.
        @Test func aBackgroundSaveThatFailsIsReportedAndTheWriteIsSavedLater() throws {
            try withReportedErrors { reported in
                try withSavedSuite(false) {
                    SystemCallFaults.inject(.error(ENOSPC), into: .write, onPathsContaining: $0)
                } _: { suite, store, file, before in
                    store[key] = 3
                    #expect(pollUntil { reported.all.contains { "\($0)".contains("cannot write") } })
                    #expect((try? Data(contentsOf: file)) == before)
                    // The next save, started by the next write, saves both.
                    SystemCallFaults.removeAll(onPathsContaining: suite)
                    store[UserDefaultTypedKey<Int>("other", defaultValue: 0)] = 1
                    #expect(pollUntil { propertyList(at: file)?["count"] as? Int == 3 }, "the write was never saved")
                }
            }
        }
    }
#endif
