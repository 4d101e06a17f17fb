import Foundation
import Testing
import TypedDefaults

// Linux only: the command edits the files Linux's Foundation keeps (under `$XDG_CONFIG_HOME`); on other
// systems it says it is for Linux (`defaults` is there).
#if os(Linux)
    // `typed-defaults`, the package's command, run as a user runs it: a real process, a configuration
    // folder of the test's own, the suite's file read back by Foundation.

    /// Runs the command with `configHome` as its configuration folder (every command-line suite uses it).
    func tool(_ arguments: [String], in configHome: URL, input: Data? = nil) throws -> ProbeProcess.Output {
        let environment = ["XDG_CONFIG_HOME": configHome.path]
        if let input {
            return try ProbeProcess.run(
                arguments, environment: environment, standardInput: input, program: "typed-defaults")
        }
        return try ProbeProcess.run(arguments, environment: environment, program: "typed-defaults")
    }

    /// What the suite's file holds, read by Foundation.
    private func fileValues(_ suite: String, in configHome: URL) -> [String: Any]? {
        propertyList(at: configHome.appendingPathComponent(suite + ".plist"))
    }

    /// A date with a fraction of a second a second-precise format would lose.
    private let preciseDate = Date(timeIntervalSince1970: 1_800_000_000.123456)

    /// One value of every property-list kind, nested, with names in two scripts.
    private var everyKind: [String: Any] {
        [
            "string": "dark théme",
            "int": 42,
            "negative": -7,
            "double": 2.5,
            "bool": true,
            "date": preciseDate,
            "data": Data([0, 1, 0xFE, 0xFF]),
            "array": [1, "two", [3.5, false], ["four": Date(timeIntervalSince1970: 0.5)]] as [Any],
            "dictionary": ["a": ["b": ["c": Data([7])]], "empty": [String: Any](), "list": [Any]()] as [String: Any],
            "日本語": "名前",
        ]
    }

    @Suite("typed-defaults: each command round-trips through the suite's file")
    struct CommandLineRoundTripTests {
        @Test func writeReadRenameAndDeleteThroughTheFile() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let writes: [[String]] = [
                    ["launchCount", "-int", "3"], ["name", "-string", "Ada Lovelace"], ["ratio", "-float", "0.25"],
                    ["enabled", "-bool", "yes"], ["when", "-date", "2027-01-15T08:00:00.5+01:00"],
                    ["blob", "-data", "00ff10"], ["tags", "-array", "a", "-int", "2"], ["tags", "-array-add", "c"],
                    ["window", "-dict", "width", "-int", "800"], ["window", "-dict-add", "full", "-bool", "false"],
                    ["extra", "-json", #"{"a": [1, 2.0, "x", true], "b": {}}"#], ["word", "plain"],
                ]
                for write in writes {
                    let run = try tool(["write", suite] + write, in: config)
                    #expect(run.status == 0, "\(write): \(run.standardError)")
                }
                let file = try #require(fileValues(suite, in: config))
                #expect(file["launchCount"] as? Int == 3)
                #expect(file["name"] as? String == "Ada Lovelace")
                #expect(file["ratio"] as? Double == 0.25)
                #expect(file["enabled"] as? Bool == true)
                #expect((file["when"] as? Date)?.timeIntervalSince1970 == 1_799_996_400.5)
                #expect(file["blob"] as? Data == Data([0, 0xFF, 0x10]))
                #expect(equivalentPropertyLists(file["tags"] as Any, ["a", 2, "c"] as [Any]))
                #expect(equivalentPropertyLists(file["window"] as Any, ["width": 800, "full": false] as [String: Any]))
                #expect(
                    equivalentPropertyLists(
                        file["extra"] as Any, ["a": [1, 2.0, "x", true] as [Any], "b": [String: Any]()]))
                #expect(file["word"] as? String == "plain")

                // A second process reads what the first wrote.
                let one = try tool(["read", suite, "launchCount"], in: config)
                #expect(one.status == 0 && one.standardOutput == "3\n")
                let text = try tool(["read", suite, "name"], in: config)
                #expect(text.standardOutput == "Ada Lovelace\n")

                #expect(try tool(["rename", suite, "launchCount", "launches"], in: config).status == 0)
                #expect(try tool(["delete", suite, "word"], in: config).status == 0)
                let after = try #require(fileValues(suite, in: config))
                #expect(after["launchCount"] == nil && after["launches"] as? Int == 3 && after["word"] == nil)

                // Deleting the suite removes it: its file, and so its line in `domains`, as `defaults delete`.
                #expect(try tool(["delete", suite], in: config).status == 0)
                #expect(!FileManager.default.fileExists(atPath: config.appendingPathComponent(suite + ".plist").path))
                let domains = try tool(["domains"], in: config)
                #expect(
                    !domains.standardOutput.split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespacesAndNewlines)
                    }.contains(suite))
                let gone = try tool(["read", suite], in: config)
                #expect(gone.status == 1 && gone.standardError.contains("does not exist"), "\(gone.standardError)")
            }
        }

        @Test func aDateKeepsItsOffsetAndFractionOfASecond() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                #expect(
                    try tool(["write", suite, "when", "-date", "2027-01-15T08:00:00.5+01:00"], in: config).status == 0)
                let stored = try #require(fileValues(suite, in: config)?["when"] as? Date)
                #expect(stored.timeIntervalSince1970 == 1_799_996_400.5)
                let json = try tool(["read", "--json", suite, "when"], in: config)
                #expect(json.standardOutput == "\"2027-01-15T07:00:00.500000Z\"\n")
            }
        }

        @Test func readJSONIsJSONToPython() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let file = try PropertyListSerialization.data(fromPropertyList: everyKind, format: .binary, options: 0)
                #expect(try tool(["import", suite, "-"], in: config, input: file).status == 0)
                let json = try tool(["read", "--json", suite], in: config)
                #expect(json.status == 0, "\(json.standardError)")
                let python = Process()
                python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
                python.arguments = ["python3", "-m", "json.tool"]
                let input = Pipe()
                let output = Pipe()
                python.standardInput = input
                python.standardOutput = output
                python.standardError = output
                try python.run()
                try input.fileHandleForWriting.write(contentsOf: Data(json.standardOutput.utf8))
                try input.fileHandleForWriting.close()
                _ = output.fileHandleForReading.readDataToEndOfFile()
                python.waitUntilExit()
                #expect(python.terminationStatus == 0)
                #expect(json.standardOutput.contains("\"date\": \"2027-01-15T08:00:00.123456Z\""))
                #expect(json.standardOutput.contains("\"data\": \"AAH+/w==\""))
                #expect(json.standardOutput.contains("\"bool\": true"))
            }
        }

        @Test(arguments: PropertyListDocument.Format.allCases)
        func exportThenImportGivesAnEqualSuite(_ format: PropertyListDocument.Format) throws {
            try withTemporaryFolder { config in
                let (first, second) = (uniqueSuiteName(), uniqueSuiteName() + "-copy")
                let seed = try PropertyListSerialization.data(fromPropertyList: everyKind, format: .binary, options: 0)
                #expect(try tool(["import", first, "-"], in: config, input: seed).status == 0)
                let exported = config.appendingPathComponent("exported.plist")
                let export = try tool(["export", "-format", format.rawValue, first, exported.path], in: config)
                #expect(export.status == 0, "\(export.standardError)")
                let bytes = try Data(contentsOf: exported)
                #expect(bytes.starts(with: Array((format == .binary ? "bplist" : "<?xml").utf8)))
                #expect(try tool(["import", second, exported.path], in: config).status == 0)
                let copy = try #require(fileValues(second, in: config))
                var expected = everyKind
                if format == .xml {
                    // XML property lists keep dates to the second: the format's rule, said in `export`'s help.
                    expected["date"] = Date(timeIntervalSince1970: 1_800_000_000)
                    expected["array"] = [1, "two", [3.5, false], ["four": Date(timeIntervalSince1970: 0)]] as [Any]
                }
                #expect(equivalentPropertyLists(copy, expected), "\(copy)")
                if format == .binary {
                    #expect((copy["date"] as? Date) == preciseDate)
                }
            }
        }
    }

    /// A bad input: the command line, what the test makes first (a file), and the exit status it expects.
    struct BadInput: CustomTestStringConvertible, Sendable {
        let label: String
        let arguments: [String]
        let status: Int32
        /// Makes what the input names, in the configuration folder (an import file, a FIFO).
        var prepare: @Sendable (URL) throws -> Void = { _ in }
        var testDescription: String { label }
    }

    /// `SUITE` in `arguments` stands for the test's suite.
    private let badInputs: [BadInput] = [
        BadInput(label: "unknown command", arguments: ["wirte", "SUITE", "a", "-int", "1"], status: 2),
        BadInput(label: "unknown option", arguments: ["read", "--jsn", "SUITE"], status: 2),
        BadInput(label: "unknown type flag", arguments: ["write", "SUITE", "a", "-integr", "1"], status: 2),
        BadInput(label: "-int that is not an integer", arguments: ["write", "SUITE", "a", "-int", "1.5"], status: 2),
        BadInput(
            label: "-bool that is not a Boolean", arguments: ["write", "SUITE", "a", "-bool", "maybe"], status: 2),
        BadInput(
            label: "-date that is not a date", arguments: ["write", "SUITE", "a", "-date", "2027-02-30T00:00:00Z"],
            status: 2),
        BadInput(label: "-data that is not hexadecimal", arguments: ["write", "SUITE", "a", "-data", "0g"], status: 2),
        BadInput(label: "-float that is not finite", arguments: ["write", "SUITE", "a", "-float", "inf"], status: 2),
        BadInput(label: "-json that is not JSON", arguments: ["write", "SUITE", "a", "-json", "{\"a\": }"], status: 2),
        BadInput(label: "-json null", arguments: ["write", "SUITE", "a", "-json", "[null]"], status: 2),
        BadInput(label: "-dict key without a value", arguments: ["write", "SUITE", "a", "-dict", "k"], status: 2),
        BadInput(label: "a value missing", arguments: ["write", "SUITE", "a"], status: 2),
        BadInput(label: "suite /", arguments: ["write", "/", "a", "-int", "1"], status: 2),
        BadInput(label: "suite ..", arguments: ["write", "..", "a", "-int", "1"], status: 2),
        BadInput(label: "a path with no file name", arguments: ["write", "a/.plist", "a", "-int", "1"], status: 2),
        BadInput(label: "empty suite", arguments: ["write", "", "a", "-int", "1"], status: 2),
        BadInput(label: "delete of a name with no value", arguments: ["delete", "SUITE", "missing"], status: 1),
        BadInput(label: "rename of a name with no value", arguments: ["rename", "SUITE", "missing", "b"], status: 1),
        BadInput(label: "rename onto a name with a value", arguments: ["rename", "SUITE", "kept", "other"], status: 1),
        BadInput(
            label: "-array-add to a value that is not an array",
            arguments: ["write", "SUITE", "kept", "-array-add", "x"],
            status: 1),
        BadInput(
            label: "import of a file that is not a property list", arguments: ["import", "SUITE", "CONFIG/in.txt"],
            status: 1,
            prepare: { try Data("kept = 2;".utf8).write(to: $0.appendingPathComponent("in.txt")) }),
        BadInput(
            label: "import of a binary property list holding a set",
            arguments: ["import", "SUITE", "CONFIG/set.plist"],
            status: 1,
            prepare: {
                try handMadeBinaryPropertyList([
                    [0xD1, 1, 2], [0x54] + Array("tags".utf8), [0xC2, 3, 4], [0x10, 1], [0x10, 2],
                ])
                .write(to: $0.appendingPathComponent("set.plist"))
            }),
        BadInput(
            label: "import of XML nested too deep", arguments: ["import", "SUITE", "CONFIG/deep.plist"], status: 1,
            prepare: {
                let deep = String(repeating: "<array>", count: 10_000) + String(repeating: "</array>", count: 10_000)
                try Data(("<?xml version=\"1.0\"?><plist><dict><key>a</key>" + deep + "</dict></plist>").utf8)
                    .write(to: $0.appendingPathComponent("deep.plist"))
            }),
        BadInput(
            label: "import of a property list that is not a dictionary",
            arguments: ["import", "SUITE", "CONFIG/list.plist"],
            status: 1,
            prepare: {
                try PropertyListSerialization.data(fromPropertyList: [1, 2], format: .binary, options: 0)
                    .write(to: $0.appendingPathComponent("list.plist"))
            }),
        BadInput(
            label: "import of a FIFO", arguments: ["import", "SUITE", "CONFIG/fifo"], status: 1,
            prepare: { _ = mkfifo($0.appendingPathComponent("fifo").path, 0o600) }),
        BadInput(label: "import of a folder", arguments: ["import", "SUITE", "CONFIG"], status: 1),
        BadInput(label: "import of a missing file", arguments: ["import", "SUITE", "CONFIG/none.plist"], status: 1),
    ]

    @Suite("typed-defaults: bad input exits non-zero and changes nothing")
    struct CommandLineBadInputTests {
        @Test(arguments: badInputs)
        func badInputLeavesTheFileAsItWas(_ input: BadInput) throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                #expect(try tool(["write", suite, "kept", "-int", "1"], in: config).status == 0)
                #expect(try tool(["write", suite, "other", "-string", "x"], in: config).status == 0)
                let file = config.appendingPathComponent(suite + ".plist")
                let before = try Data(contentsOf: file)
                try input.prepare(config)
                let arguments = input.arguments.map {
                    $0.replacingOccurrences(of: "SUITE", with: suite).replacingOccurrences(
                        of: "CONFIG", with: config.path)
                }
                let run = try tool(arguments, in: config)
                #expect(run.status == input.status, "\(run.standardOutput)\(run.standardError)")
                #expect(run.standardError.hasPrefix("typed-defaults: "), "\(run.standardError)")
                #expect(try Data(contentsOf: file) == before)
                #expect(!FileManager.default.fileExists(atPath: config.appendingPathComponent("SUITE.plist").path))
            }
        }

        #if os(Linux)
            /// A configuration folder nobody may write, root included: bound read-only in a mount namespace of
            /// the command's own when the tests run as root, else without write permission.
            @Test func aReadOnlyConfigurationFolderFailsAndKeepsTheFile() throws {
                try withTemporaryFolder { config in
                    let suite = uniqueSuiteName()
                    #expect(try tool(["write", suite, "kept", "-int", "1"], in: config).status == 0)
                    let file = config.appendingPathComponent(suite + ".plist")
                    let before = try Data(contentsOf: file)
                    let environment = ["XDG_CONFIG_HOME": config.path]
                    let arguments = ["write", suite, "kept", "-int", "2"]
                    let run: ProbeProcess.Output
                    if geteuid() == 0 {
                        let script = #"mount --bind "$1" "$1" && mount -o remount,bind,ro "$1" && shift && exec "$@""#
                        run = try ProbeProcess.run(
                            arguments, environment: environment,
                            wrapper: [
                                "/usr/bin/unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                                config.path,
                            ],
                            program: "typed-defaults")
                    } else {
                        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: config.path)
                        defer {
                            try? FileManager.default.setAttributes(
                                [.posixPermissions: 0o755], ofItemAtPath: config.path)
                        }
                        run = try ProbeProcess.run(arguments, environment: environment, program: "typed-defaults")
                    }
                    #expect(run.status == 1, "\(run.standardError)")
                    #expect(run.standardError.contains(suite), "\(run.standardError)")
                    // Once on standard error, though the exit-time save fails again.
                    #expect(
                        run.standardError.split(separator: "\n").count
                            == Set(run.standardError.split(separator: "\n")).count)
                    #expect(try Data(contentsOf: file) == before)
                }
            }

            /// A suite file no reader may be handed is moved aside and reported, never overwritten.
            @Test func aHostileSuiteFileIsMovedAsideAndKept() throws {
                try withTemporaryFolder { config in
                    let suite = uniqueSuiteName()
                    let hostile = handMadeBinaryPropertyList([
                        [0xD1, 1, 2], [0x54] + Array("tags".utf8), [0xC2, 3, 4], [0x10, 1], [0x10, 2],
                    ])
                    try hostile.write(to: config.appendingPathComponent(suite + ".plist"))
                    let run = try tool(["write", suite, "a", "-int", "1"], in: config)
                    #expect(run.status == 0, "\(run.standardError)")
                    #expect(run.standardError.contains("it is kept as"), "\(run.standardError)")
                    let kept = try FileManager.default.contentsOfDirectory(atPath: config.path).filter {
                        $0.hasPrefix(suite) && $0 != suite + ".plist"
                    }
                    #expect(kept.count == 1)
                    #expect(try kept.first.map { try Data(contentsOf: config.appendingPathComponent($0)) } == hostile)
                    #expect(fileValues(suite, in: config)?["a"] as? Int == 1)
                }
            }

            /// What the Linux article promises of any save: a running app that uses the library sees it
            /// within 200 ms, and its observers are told.
            @Test func aRunningProcessSeesAWriteWithinTheWindowAndItsObserversAreTold() throws {
                try withTemporaryFolder { config in
                    let suite = uniqueSuiteName()
                    let environment = ["XDG_CONFIG_HOME": config.path]
                    let reader = try ProbeProcess(["watch", suite], environment: environment)
                    #expect(reader.waitForLine("ready"))
                    let run = try tool(["write", suite, "count", "-int", "7"], in: config)
                    let written = Date()
                    #expect(run.status == 0, "\(run.standardError)")
                    var seen: String?
                    let deadline = Date(timeIntervalSinceNow: waitLimit)
                    while Date() < deadline {
                        seen = try reader.ask("check")
                        if let seen, seen.hasPrefix("read=7 "), seen.contains("callback 0->7") { break }
                    }
                    let elapsed = Date().timeIntervalSince(written)
                    #expect(seen?.hasPrefix("read=7 wrapper=7 hasKey=true snapshot=7") == true, "\(seen ?? "")")
                    #expect(seen?.contains("callback 0->7") == true, "\(seen ?? "")")
                    // A claim about time: not measured under ThreadSanitizer, which slows every process. The
                    // window and one question's round trip through two pipes.
                    if !runsUnderThreadSanitizer {
                        #expect(elapsed < 0.2 + 0.1, "seen after \(elapsed) s")
                    }
                    try reader.send("quit")
                    #expect(reader.finish().status == 0)
                }
            }
        #endif
    }

    @Suite("typed-defaults: The typed-defaults Command article's examples run as written")
    struct CommandLineArticleTests {
        /// The article's console examples in order: each `$ ` line a command, the lines after it what it
        /// prints: on standard error those that start `typed-defaults: `, `(exit status N)` its status (0 if
        /// none is shown), every other line on standard output.
        private static func examples() throws -> [Example] {
            let article = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("Docs/TypedDefaults.docc/CommandLine.md")
            var examples: [Example] = []
            var inConsole = false
            for line in try String(contentsOf: article, encoding: .utf8).split(
                separator: "\n", omittingEmptySubsequences: false)
            {
                if line.hasPrefix("```") {
                    inConsole = line == "```console"
                    continue
                }
                guard inConsole else { continue }
                if line.hasPrefix("$ ") {
                    examples.append(Example(command: String(line.dropFirst(2))))
                } else if !examples.isEmpty {
                    if line.hasPrefix("typed-defaults: ") {
                        examples[examples.count - 1].error += line + "\n"
                    } else if line.hasPrefix("(exit status "), let status = Int32(line.dropFirst(13).dropLast()) {
                        examples[examples.count - 1].status = status
                    } else {
                        examples[examples.count - 1].output += line + "\n"
                    }
                }
            }
            return examples
        }

        struct Example {
            let command: String
            var output = ""
            var error = ""
            var status: Int32 = 0
        }

        /// The keys the article's app declares, as its key manifest records them (a real app writes one:
        /// CommandLineDeclaredKeyTests).
        private static func declareTheArticlesKeys(in config: URL) throws {
            let keys = [
                DeclaredKey(
                    name: "launchCount", type: "Int", form: .integer("Int"), defaultValue: "0",
                    declaredAt: "MyApp/Settings.swift:12"),
                DeclaredKey(
                    name: "profile", type: "Optional<Profile>", form: .optional(.jsonText), defaultValue: "nil",
                    declaredAt: "MyApp/Settings.swift:14"),
            ]
            let manifest = KeyManifest.encode(Dictionary(uniqueKeysWithValues: keys.map { ($0.name, $0) }))
            try Data(manifest).write(to: config.appendingPathComponent(".com.example.app.plist.keys.json"))
        }

        /// A command line split as a shell splits it: words, with '...' and "..." quoting.
        private static func words(_ line: String) -> [String] {
            var words: [String] = []
            var current = ""
            var quote: Character?
            var inWord = false
            for character in line {
                if let open = quote {
                    if character == open { quote = nil } else { current.append(character) }
                } else if character == "'" || character == "\"" {
                    quote = character
                    inWord = true
                } else if character == " " {
                    if inWord { words.append(current) }
                    current = ""
                    inWord = false
                } else {
                    current.append(character)
                    inWord = true
                }
            }
            if inWord { words.append(current) }
            return words
        }

        @Test func everyExamplePrintsWhatTheArticleShows() throws {
            let examples = try Self.examples()
            #expect(examples.count >= 30)
            #expect(examples.contains { $0.status == 2 } && examples.contains { $0.status == 1 })
            try withTemporaryFolder { config in
                try Self.declareTheArticlesKeys(in: config)
                for example in examples {
                    let words = Self.words(example.command)
                    #expect(words.first == "typed-defaults", "\(example.command)")
                    let run = try ProbeProcess.run(
                        Array(words.dropFirst()), environment: ["XDG_CONFIG_HOME": config.path], directory: config,
                        program: "typed-defaults")
                    #expect(run.status == example.status, "\(example.command): \(run.standardError)")
                    #expect(run.standardOutput == example.output, "\(example.command)")
                    #expect(run.standardError == example.error, "\(example.command)")
                }
            }
        }
    }

    @Suite("typed-defaults: every subcommand in the summary has its help, usage line and -h")
    struct CommandLineHelpTests {
        /// The summary names each subcommand once; `help NAME` and `NAME --help` print its usage line and
        /// exit 0, and input it does not take prints that usage line after the error, exit 2. The command
        /// declares each subcommand in one place, from which all of these are made: a subcommand added there
        /// appears in each, and one missing from any fails here.
        @Test func eachSubcommandOfTheSummaryHasItsHelpAndUsage() throws {
            try withTemporaryFolder { config in
                let summary = try tool(["--help"], in: config)
                #expect(summary.status == 0)
                let names = summary.standardOutput.split(separator: "\n").compactMap { line -> String? in
                    // A name starts at the third column; a summary moved to the next line starts further in.
                    guard line.hasPrefix("  "), !line.hasPrefix("   "), let word = line.split(separator: " ").first
                    else {
                        return nil
                    }
                    return word.allSatisfy({ $0.isLetter || $0 == "-" }) ? String(word) : nil
                }
                #expect(
                    names == [
                        "read", "read-type", "write", "edit", "delete", "rename", "domains", "find", "export", "import",
                        "help",
                    ], "\(names)")
                for name in names {
                    let help = try tool(["help", name], in: config)
                    #expect(help.status == 0)
                    #expect(help.standardOutput.hasPrefix("usage: typed-defaults \(name)"), "\(help.standardOutput)")
                    let dashed = try tool([name, "--help"], in: config)
                    #expect(dashed.standardOutput == help.standardOutput, "\(name) --help")
                }
                let unknown = try tool(["frobnicate"], in: config)
                #expect(unknown.status == 2)
                #expect(unknown.standardError.contains("usage: typed-defaults " + names.joined(separator: "|")))
                let missing = try tool(["rename", "suite"], in: config)
                #expect(missing.status == 2)
                #expect(missing.standardError.contains("usage: typed-defaults rename [--force] SUITE OLD NEW"))
            }
        }
    }

    @Suite("typed-defaults: what a suite holds is printed safely, whatever it is")
    struct CommandLineOutputSafetyTests {
        /// Writes `values` as the suite's file, as another program could.
        private func suiteFile(_ values: [String: Any], suite: String, in config: URL) throws {
            let bytes = try PropertyListDocument.bytes(of: values, format: .binary)
            try Data(bytes).write(to: config.appendingPathComponent(suite + ".plist"))
        }

        /// A date of infinite or NaN seconds (an app's "never" sentinel, which the library stores as it is),
        /// or one far outside the calendar. Before, `read` trapped converting its seconds to an integer
        /// ("Double value cannot be converted to Int", 4 of 4 runs); now every form prints, exit 0, the
        /// calendar's dates as before.
        @Test(arguments: [false, true])
        func datesOutsideTheCalendarArePrintedNotTrappedOn(json: Bool) throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let dates: [String: Any] = [
                    "never": Date(timeIntervalSinceReferenceDate: .infinity),
                    "ever": Date(timeIntervalSinceReferenceDate: -.infinity),
                    "unknown": Date(timeIntervalSinceReferenceDate: .nan),
                    "far": Date(timeIntervalSinceReferenceDate: 1e300),
                    "farBefore": Date(timeIntervalSinceReferenceDate: -1e17),
                    "future": Date.distantFuture,
                    "past": Date.distantPast,
                    "plain": Date(timeIntervalSince1970: 1_800_000_000),
                ]
                try suiteFile(dates, suite: suite, in: config)
                let run = try tool(["read"] + (json ? ["--json"] : []) + [suite], in: config)
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardOutput.contains("inf seconds since 2001-01-01"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("-inf seconds since 2001-01-01"))
                #expect(run.standardOutput.contains("nan seconds since 2001-01-01"))
                #expect(run.standardOutput.contains("1e+300 seconds since 2001-01-01"))
                #expect(run.standardOutput.contains(json ? "2027-01-15T08:00:00Z" : "2027-01-15 08:00:00 +0000"))
                #expect(run.standardOutput.contains(json ? "4001-01-01T00:00:00Z" : "4001-01-01 00:00:00 +0000"))
                let one = try tool(["read", suite, "never"], in: config)
                #expect(one.status == 0)
                // Alone, bare, as `defaults` prints a date it reads alone.
                #expect(one.standardOutput == "inf seconds since 2001-01-01 00:00:00 +0000\n")
            }
        }

        /// Control characters in a name or a value (an escape sequence that erases lines, the bell, DEL, a
        /// C1 control) are printed escaped, never raw, in `read`'s text and JSON; a suite whose file name
        /// has a newline and a comma is listed quoted by `domains`. Before, `read` printed them raw (the
        /// terminal erased lines and rang) and `domains` showed one suite as what looked like three.
        @Test func controlCharactersArePrintedEscaped() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let hostile = "\u{1B}[2K\u{1B}[1A\r\u{07}x\u{7F}\u{9B}y"
                try suiteFile([hostile: hostile, "plain": "fine"], suite: suite, in: config)
                for arguments in [["read", suite], ["read", "--json", suite]] {
                    let run = try tool(arguments, in: config)
                    #expect(run.status == 0, "\(run.standardError)")
                    let raw = run.standardOutput.unicodeScalars.filter {
                        ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value)
                    }
                    #expect(raw.isEmpty, "\(arguments): \(raw.map(\.value))")
                }
                let text = try tool(["read", suite], in: config).standardOutput
                #expect(text.contains(#""\U001b[2K\U001b[1A\r\U0007x\U007f\U009by""#), "\(text)")
                let odd = "evil\nx, other"
                try suiteFile(["a": 1], suite: odd, in: config)
                let listed = try tool(["domains"], in: config)
                #expect(listed.status == 0)
                #expect(listed.standardOutput.contains(#""evil\nx, other""#), "\(listed.standardOutput)")
                #expect(!listed.standardOutput.dropLast().contains("\n"))
            }
        }
    }

    @Suite("typed-defaults: the spellings a defaults user types, and messages that say what is accepted")
    struct CommandLineSpellingTests {
        /// `-app NAME` as `defaults` spells it, beside `--app NAME`.
        @Test func appTakesOneDashOrTwo() throws {
            try withTemporaryFolder { config in
                let app = uniqueSuiteName()
                #expect(try tool(["write", "-app", app, "launchCount", "-int", "4"], in: config).status == 0)
                let read = try tool(["read", "--app", app, "launchCount"], in: config)
                #expect(read.standardOutput == "4\n")
                #expect(try tool(["read", "-app", app, "launchCount"], in: config).standardOutput == "4\n")
            }
        }

        /// `help NAME` of a command that does not exist is an error (exit 2), not the general help.
        @Test func helpOfAnUnknownCommandIsAnError() throws {
            try withTemporaryFolder { config in
                for arguments in [["help", "find-it"], ["--help", "find-it"]] {
                    let run = try tool(arguments, in: config)
                    #expect(run.status == 2, "\(arguments)")
                    #expect(run.standardError.contains("no command is named 'find-it'"), "\(run.standardError)")
                }
            }
        }

        /// A collection flag where one value goes is named as such, and the message lists every type flag a
        /// value takes with its other spellings. Before: "unknown type '-array': … -array …", and the list left
        /// out `-integer` and `-boolean`, which it accepts.
        @Test func aTypeFlagMessageNamesWhatIsAccepted() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let nested = try tool(["write", suite, "window", "-dict", "size", "-array", "1", "2"], in: config)
                #expect(nested.status == 2)
                #expect(nested.standardError.contains("-array cannot be an element"), "\(nested.standardError)")
                #expect(nested.standardError.contains("-json"))
                let unknown = try tool(["write", suite, "count", "-long", "5"], in: config)
                #expect(unknown.status == 2)
                for flag in [
                    "-int (-integer)", "-bool (-boolean)", "-float (-double, -real)", "-array-add", "-dict-add",
                ] {
                    #expect(unknown.standardError.contains(flag), "\(flag): \(unknown.standardError)")
                }
            }
        }

        /// `export SUITE -` writes XML to standard output, as `defaults export` does (before: binary bytes on
        /// the terminal); `-format binary1` still chooses binary there, and a file is binary by default.
        @Test func exportToStandardOutputIsXMLUnlessAskedOtherwise() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                #expect(try tool(["write", suite, "launchCount", "-int", "3"], in: config).status == 0)
                let text = try tool(["export", suite, "-"], in: config)
                #expect(text.status == 0)
                #expect(text.standardOutput.hasPrefix("<?xml"), "\(text.standardOutput.prefix(40))")
                #expect(text.standardOutput.contains("<key>launchCount</key>"))
                let binary = try tool(["export", "-format", "binary1", suite, "-"], in: config)
                #expect(
                    binary.standardOutput.hasPrefix("bplist00")
                        || binary.standardOutput.utf8.starts(with: Array("bplist00".utf8)))
                let file = config.appendingPathComponent("out.plist")
                #expect(try tool(["export", suite, file.path], in: config).status == 0)
                #expect(try Data(contentsOf: file).starts(with: Array("bplist00".utf8)))
            }
        }
    }
#endif
