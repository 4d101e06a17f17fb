import Foundation
import Testing
import TypedDefaults

// The Linux saver's own files and processes: there is no saver on Apple platforms.
#if os(Linux)

    /// An environment to run the probe in: variables set, variables removed, a working folder. Each names
    /// its folders relative to the test's own folder.
    struct ProbeEnvironment: CustomTestStringConvertible, Sendable {
        let name: String
        let variables: [String: String]
        let unsetting: [String]

        var testDescription: String { name }

        /// The variables with `<root>` replaced by `root`.
        func variables(in root: URL) -> [String: String] {
            variables.mapValues { $0.replacingOccurrences(of: "<root>", with: root.path) }
        }

        static let all = [
            ProbeEnvironment(
                name: "HOME that is not the password-file home", variables: ["HOME": "<root>/home"],
                unsetting: ["XDG_CONFIG_HOME"]),
            ProbeEnvironment(name: "HOME unset", variables: [:], unsetting: ["HOME", "XDG_CONFIG_HOME"]),
            ProbeEnvironment(name: "HOME empty", variables: ["HOME": ""], unsetting: ["XDG_CONFIG_HOME"]),
            ProbeEnvironment(
                name: "HOME relative", variables: ["HOME": "relative-home"], unsetting: ["XDG_CONFIG_HOME"]),
            ProbeEnvironment(
                name: "XDG_CONFIG_HOME absolute", variables: ["HOME": "<root>/home", "XDG_CONFIG_HOME": "<root>/xdg"],
                unsetting: []),
            ProbeEnvironment(
                name: "XDG_CONFIG_HOME relative",
                variables: ["HOME": "<root>/home", "XDG_CONFIG_HOME": "relative-xdg"],
                unsetting: []),
            ProbeEnvironment(
                name: "XDG_CONFIG_HOME empty", variables: ["HOME": "<root>/home", "XDG_CONFIG_HOME": ""], unsetting: []),
            ProbeEnvironment(
                name: "XDG_CONFIG_HOME absolute, not there yet",
                variables: ["HOME": "<root>/home", "XDG_CONFIG_HOME": "<root>/not/there/yet"], unsetting: []),
        ]
    }

    /// Where HOME is unset or empty, Foundation keeps suites in `/.config`, which a test run as root
    /// would create on the machine. Such a probe runs as root in a root folder of its own: a private
    /// mount namespace whose `/` is `folder`, with every top-level folder of the real one bound into it
    /// but for `/.config`, which is `folder/.config` there. Empty for other environments and other
    /// users, who cannot write `/`.
    func privateRoot(_ environment: ProbeEnvironment, in folder: URL) -> [String] {
        let homeless = environment.unsetting.contains("HOME") || environment.variables["HOME"] == ""
        guard homeless, geteuid() == 0 else { return [] }
        let script = """
            set -e
            new="$1"; shift
            work="$(pwd)"
            mkdir -p "$new"
            for entry in /* /.[!.]*; do
                [ -e "$entry" ] || [ -L "$entry" ] || continue
                name="${entry#/}"
                [ "$name" = ".config" ] && continue
                if [ -L "$entry" ]; then [ -L "$new/$name" ] || ln -s "$(readlink "$entry")" "$new/$name"
                elif [ -d "$entry" ]; then mkdir -p "$new/$name"; mount --rbind "$entry" "$new/$name"
                fi
            done
            exec chroot "$new" sh -c 'cd "$1" && shift && exec "$@"' sh "$work" "$@"
            """
        return ["/usr/bin/unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh", folder.path]
    }

    @Suite("Saved where Foundation reads, whatever HOME and XDG_CONFIG_HOME say")
    struct SaveLocationTests {
        /// The files named `fileName` under `root`, and at `/.config`, where Foundation goes without a HOME.
        private func files(named fileName: String, under root: URL) -> [URL] {
            var found: [URL] = []
            let enumerator = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
            while let url = enumerator?.nextObject() as? URL {
                if url.lastPathComponent == fileName { found.append(url.resolvingSymlinksInPath()) }
            }
            let rootConfig = URL(fileURLWithPath: "/.config/" + fileName)
            if FileManager.default.fileExists(atPath: rootConfig.path) { found.append(rootConfig) }
            return found
        }

        /// Removes the files of `suites` under `root` and at `/.config`, with their lock files.
        private func removeFiles(of suites: [String], under root: URL) {
            for suite in suites {
                for file in files(named: suite + ".plist", under: root) {
                    try? FileManager.default.removeItem(at: file)
                    try? FileManager.default.removeItem(
                        at: file.deletingLastPathComponent().appendingPathComponent("." + suite + ".plist.lock"))
                }
            }
        }

        @Test(arguments: ProbeEnvironment.all)
        func theLibrarySavesTheFileFoundationsOwnSynchronizeWrites(_ environment: ProbeEnvironment) throws {
            try withTemporaryFolder { root in
                let suite = uniqueSuiteName()
                let variables = environment.variables(in: root)
                let wrapper = privateRoot(environment, in: root.appendingPathComponent("private-root"))
                func run(_ command: String) throws -> ProbeProcess.Output {
                    try ProbeProcess.run(
                        [command, suite], environment: variables, unsetting: environment.unsetting, directory: root,
                        wrapper: wrapper)
                }
                defer { removeFiles(of: [suite], under: root) }

                // Where plain Foundation keeps the suite in this environment.
                let foundation = try run("synchronize")
                let foundationFiles = files(named: suite + ".plist", under: root)
                guard foundation.lines == ["synchronized"], foundationFiles.count == 1 else {
                    // Foundation cannot save here (HOME unset and `/.config` not writable): neither can the
                    // library, and it must say so.
                    let library = try run("flush")
                    #expect(library.status == 1 && library.standardOutput.contains("could not save"))
                    return
                }
                let foundationFile = foundationFiles[0]
                try FileManager.default.removeItem(at: foundationFile)

                // The library saves that very file, and plain Foundation in a new process reads it.
                let library = try run("flush")
                #expect(library.lines == ["flushed"], "\(library.standardError)")
                #expect(files(named: suite + ".plist", under: root) == [foundationFile])
                #expect(propertyList(at: foundationFile)?["count"] as? Int == 1)
                #expect(try run("plain").lines == ["count=1"])
            }
        }

        /// A relative HOME is taken from the working directory the process started in: changing
        /// directory later does not move the suite (Foundation reads it once, at first use).
        @Test func aRelativeHomeStaysWhereTheProcessStartedAfterAChangeOfDirectory() throws {
            try withTemporaryFolder { root in
                let suite = uniqueSuiteName()
                let elsewhere = root.appendingPathComponent("elsewhere")
                try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
                let variables = ["HOME": "relative-home"]
                let moved = try ProbeProcess.run(
                    ["chdir-flush", suite, elsewhere.path], environment: variables, unsetting: ["XDG_CONFIG_HOME"],
                    directory: root)
                #expect(moved.lines == ["flushed"], "\(moved.standardError)")
                let expected = root.appendingPathComponent("relative-home/.config/\(suite).plist")
                #expect(files(named: suite + ".plist", under: root) == [expected.resolvingSymlinksInPath()])
                #expect(propertyList(at: expected)?["count"] as? Int == 1)
                let read = try ProbeProcess.run(
                    ["dump", suite], environment: variables, unsetting: ["XDG_CONFIG_HOME"], directory: root)
                #expect(read.lines.first == "count=1")
            }
        }

        /// Every environment in the long run (`runsLongTests`); the first alone in `swift test`.
        @Test(arguments: runsLongTests ? ProbeEnvironment.all : Array(ProbeEnvironment.all.prefix(1)))
        func valuesSurviveEveryEndingAndEveryWriterThere(_ environment: ProbeEnvironment) throws {
            try withTemporaryFolder { root in
                let suite = uniqueSuiteName()
                let variables = environment.variables(in: root)
                let wrapper = privateRoot(environment, in: root.appendingPathComponent("private-root"))
                func run(_ arguments: [String]) throws -> ProbeProcess.Output {
                    try ProbeProcess.run(
                        arguments, environment: variables, unsetting: environment.unsetting, directory: root,
                        wrapper: wrapper)
                }
                func start(_ arguments: [String]) throws -> ProbeProcess {
                    try ProbeProcess(
                        arguments, environment: variables, unsetting: environment.unsetting, directory: root,
                        wrapper: wrapper)
                }
                let (exited, killed, writers) = (suite + ".exited", suite + ".killed", suite + ".writers")
                defer { removeFiles(of: [suite, exited, killed, writers], under: root) }
                // Where Foundation itself cannot save (HOME unset, `/.config` not writable), neither can the
                // library: `theLibrarySavesTheFileFoundationsOwnSynchronizeWrites` checks that it says so.
                let foundationSaves = try run(["synchronize", suite]).lines == ["synchronized"]
                try #require(foundationSaves || environment.unsetting.contains("HOME") || variables["HOME"] == "")
                guard foundationSaves else { return }

                // Exit without a flush; the fixture has fractional dates.
                #expect(try run(["write", exited, "exit"]).status == 0)
                #expect(try run(["dump", exited]).lines == fixtureLines)

                // SIGKILL one second after the write.
                let writer = try start(["write", killed, "wait"])
                #expect(writer.waitForLine("written"))
                Thread.sleep(forTimeInterval: 1)
                writer.kill()
                #expect(writer.finish().reason == .uncaughtSignal)
                #expect(try run(["dump", killed]).lines == fixtureLines)

                // Two, then eight, processes writing one suite at once, saving after every write.
                for (count, perWriter) in [(2, 100), (8, 25)] {
                    let prefixes = (0..<count).map { "w\(count).\($0)." }
                    let bursts = try prefixes.map { try start(["burst", writers, $0, "\(perWriter)"]) }
                    #expect(bursts.allSatisfy { $0.waitForLine("ready") })
                    for burst in bursts { try burst.send("go") }
                    let ended = bursts.map { $0.finish() }
                    #expect(ended.map(\.status) == Array(repeating: 0, count: count), "\(ended.map(\.standardError))")
                    #expect(
                        try run(["count", writers] + prefixes).lines == Array(repeating: "\(perWriter)", count: count))
                }
            }
        }

        @Test func aUserDefaultsMadeByTheCallerIsSavedTheLibrarysWayWithExactDates() throws {
            let suite = uniqueSuiteName()
            defer { DefaultsStore.removeSuite(named: suite) }
            let environment = ProcessInfo.processInfo.environment
            let configHome =
                environment["XDG_CONFIG_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
                ?? (environment["HOME"] ?? "") + "/.config"
            let file = URL(fileURLWithPath: configHome).appendingPathComponent(suite + ".plist")
            let date = Date(timeIntervalSince1970: 1_700_000_000.123456)

            let store = DefaultsStore(storage: UserDefaults(suiteName: suite)!)
            store[UserDefaultTypedKey<Date>("savedByTheLibrarysWay", defaultValue: .distantPast)] = date
            try store.flush()

            let data = try Data(contentsOf: file)
            var format = PropertyListSerialization.PropertyListFormat.xml
            let saved = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
            #expect(format == .binary)
            #expect((saved as? [String: Any])?["savedByTheLibrarysWay"] as? Date == date)
        }
    }

#endif
