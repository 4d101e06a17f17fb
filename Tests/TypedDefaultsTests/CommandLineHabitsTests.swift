import Foundation
import Testing
import TypedDefaults

// Linux only: the command edits the files Linux's Foundation keeps (under `$XDG_CONFIG_HOME`); on other
// systems it says it is for Linux (`defaults` is there).
#if os(Linux)
    // The `defaults` habits the command keeps (its article's examples run the rest): what a user who types
    // `defaults` every day types, each as `defaults` does it or as CommandLine.md says.

    /// The folder's entries, hidden ones too.
    private func entries(_ config: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: config.path)) ?? []).sorted()
    }

    @Suite("typed-defaults: the defaults habits, as defaults keeps them")
    struct CommandLineHabitsTests {
        /// Options where a `defaults` user types them, among the command's words: `--force` after the suite
        /// or the key, `-format` after the file. Before, `write S --force k v` said "unknown option" and
        /// `export S file -format xml1` "unknown format 'S'". Past the key, a word is the value:
        /// `-string --force` stores the text, and a `--force` after the value is refused, nothing written.
        @Test func optionsStandAnywhereAmongTheWords() throws {
            try withTemporaryFolder { config in
                for (index, words) in [
                    ["write", "s", "--force", "k", "1"], ["write", "s", "k", "--force", "2"],
                    ["write", "--force", "s", "k", "3"],
                ].enumerated() {
                    let run = try tool(words, in: config)
                    #expect(run.status == 0, "\(words): \(run.standardError)")
                    #expect(try tool(["read", "s", "k"], in: config).standardOutput == "\(index + 1)\n", "\(words)")
                }
                #expect(try tool(["write", "s", "k", "-string", "--force"], in: config).status == 0)
                #expect(try tool(["read", "s", "k"], in: config).standardOutput == "--force\n")
                let after = try tool(["write", "s", "k", "4", "--force"], in: config)
                #expect(after.status == 2 && after.standardError.contains("unexpected '--force'"))
                #expect(try tool(["read", "s", "k"], in: config).standardOutput == "--force\n")
                #expect(try tool(["rename", "s", "k", "--force", "j"], in: config).status == 0)
                let exported = try tool(["export", "s", "-", "-format", "xml1"], in: config)
                #expect(exported.status == 0 && exported.standardOutput.hasPrefix("<?xml"), "\(exported.standardError)")
                let missing = try tool(["export", "s", "-", "-format"], in: config)
                #expect(missing.status == 2 && missing.standardError.contains("missing FORMAT after -format"))
            }
        }

        /// `defaults` habits that had no answer or a wrong one: `-currentHost` and `-host` say what they mean
        /// here (exit 2); a whole suite given as no dictionary says so (was "missing VALUE"); a date read
        /// alone is printed bare, as `defaults` prints it (was quoted); text read alone with a control
        /// character is escaped, as the listing prints it (was raw to the terminal); a value of a suite that
        /// does not exist says the suite does not exist (was "has no value named k"); a failed save's
        /// message has the command's name once (was "typed-defaults: TypedDefaults: …").
        @Test func habitsGetAnAnswerThatSaysWhatTheyMean() throws {
            try withTemporaryFolder { config in
                for words in [["-currentHost", "read", "s"], ["read", "s", "-host", "h"]] {
                    let run = try tool(words, in: config)
                    #expect(run.status == 2 && run.standardError.contains("(ByHost)"), "\(words): \(run.standardError)")
                }
                let notADictionary = try tool(["write", "s", "(1, 2)"], in: config)
                #expect(notADictionary.status == 2)
                #expect(notADictionary.standardError.contains("'(1, 2)' is not a property-list dictionary"))
                #expect(try tool(["write", "s", "d", "-date", "2026-01-01T00:00:00Z"], in: config).status == 0)
                #expect(try tool(["read", "s", "d"], in: config).standardOutput == "2026-01-01 00:00:00 +0000\n")
                #expect(try tool(["write", "s", "c", "a\u{1B}[2Jb\tc"], in: config).status == 0)
                #expect(try tool(["read", "s", "c"], in: config).standardOutput == "\"a\\U001b[2Jb\\tc\"\n")
                #expect(try tool(["write", "s", "t", "one\ttwo"], in: config).status == 0)
                #expect(try tool(["read", "s", "t"], in: config).standardOutput == "one\ttwo\n")
                let missing = try tool(["read", "missing.domain", "k"], in: config)
                #expect(
                    missing.status == 1
                        && missing.standardError == "typed-defaults: the suite missing.domain does not exist\n")
            }
            // A configuration folder below a regular file: the save fails, and says so once, with one name.
            try withTemporaryFolder { folder in
                let blocker = folder.appendingPathComponent("file")
                try Data("not a folder".utf8).write(to: blocker)
                let run = try tool(["write", "s", "k", "v"], in: blocker.appendingPathComponent("config"))
                #expect(run.status == 1, "\(run.standardError)")
                #expect(!run.standardError.contains("TypedDefaults:"), "\(run.standardError)")
                #expect(run.standardError.hasPrefix("typed-defaults: "), "\(run.standardError)")
            }
        }

        /// A suite that does not exist is an error for every command that edits one, and no file (not even
        /// a lock file) is made for it.
        @Test(arguments: [["delete", "nosuch", "k"], ["rename", "nosuch", "a", "b"], ["delete", "nosuch"]])
        func aSuiteThatDoesNotExistIsAnErrorAndLeavesNoFile(_ words: [String]) throws {
            try withTemporaryFolder { config in
                let run = try tool(words, in: config)
                #expect(run.status == 1 && run.standardError.contains("the suite nosuch does not exist"), "\(words)")
                #expect(entries(config).isEmpty, "\(words) left \(entries(config))")
            }
        }

        /// A suite file that cannot be read (bytes that are not a property list, a FIFO, a link) is reported by
        /// each command that reads it, exit status 1, and left exactly as it is: bare `read` and `find` still
        /// print every other suite.
        @Test(arguments: ["garbage", "fifo", "link"])
        func anUnreadableSuiteFileIsReportedAndLeftAsItIs(_ kind: String) throws {
            try withTemporaryFolder { config in
                #expect(try tool(["write", "good", "color", "green"], in: config).status == 0)
                let path = config.appendingPathComponent("bad.plist").path
                let target = config.appendingPathComponent("target")
                try Data("not a plist".utf8).write(to: target)
                switch kind {
                case "garbage": try Data("<?xml garbage".utf8).write(to: URL(fileURLWithPath: path))
                case "fifo": #expect(mkfifo(path, 0o600) == 0)
                default: try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: target.path)
                }
                let before = entries(config)
                for words in [
                    ["read", "bad"], ["read", "bad", "x"], ["read-type", "bad", "x"], ["export", "bad", "-"],
                ] {
                    let run = try tool(words, in: config)
                    #expect(run.status == 1, "\(kind) \(words): \(run.standardError)")
                    #expect(
                        run.standardError.contains("cannot read the suite bad"),
                        "\(kind) \(words): \(run.standardError)")
                    #expect(run.standardOutput.isEmpty, "\(kind) \(words)")
                }
                let every = try tool(["read"], in: config)
                #expect(every.status == 1 && every.standardOutput.contains("color = green"), "\(every.standardError)")
                let found = try tool(["find", "green"], in: config)
                #expect(found.status == 1 && found.standardOutput.hasPrefix("Found 1 key in domain good"))
                #expect(entries(config) == before, "\(kind): \(entries(config))")
                #expect(try Data(contentsOf: target) == Data("not a plist".utf8))
                if kind == "garbage" {
                    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("<?xml garbage".utf8))
                }
            }
        }

        /// A word with no flag is old-style property-list text, as `defaults` reads it; a word that only looks
        /// like it (not whole) is a string.
        @Test func oldStyleTextIsReadAsDefaultsReadsIt() throws {
            try withTemporaryFolder { config in
                let suite = uniqueSuiteName()
                let cases: [(word: String, stored: Any)] = [
                    ("(a, b)", ["a", "b"]),
                    ("{a = 1;}", ["a": "1"]),
                    (
                        #"{ "x y" = (1, <0fa1>); z = "q\"uote"; }"#,
                        ["x y": ["1", Data([0x0F, 0xA1])], "z": "q\"uote"]
                    ),
                    ("<0fa1 b2>", Data([0x0F, 0xA1, 0xB2])),
                    ("(a, b", "(a, b"),
                    ("{a = 1}", "{a = 1}"),
                    ("plain", "plain"),
                ]
                for (index, (word, _)) in cases.enumerated() {
                    let run = try tool(["write", suite, "v\(index)", word], in: config)
                    #expect(run.status == 0, "\(word): \(run.standardError)")
                }
                let file = try #require(propertyList(at: config.appendingPathComponent(suite + ".plist")))
                for (index, (word, stored)) in cases.enumerated() {
                    let found = try #require(file["v\(index)"], "\(word)")
                    #expect(equivalentPropertyLists(found, stored), "\(word): \(found)")
                }
            }
        }

        /// Bare `read` prints every suite by name; `find` of nothing says so.
        @Test func bareReadPrintsEverySuiteAndFindOfNothingSaysSo() throws {
            try withTemporaryFolder { config in
                #expect(try tool(["write", "one", "a", "-int", "1"], in: config).status == 0)
                #expect(try tool(["write", "two", "b", "x"], in: config).status == 0)
                let every = try tool(["read"], in: config)
                #expect(every.status == 0)
                #expect(
                    every.standardOutput
                        == "{\n    one = {\n        a = 1;\n    };\n    two = {\n        b = x;\n    };\n}\n")
                let json = try tool(["read", "--json"], in: config)
                #expect(
                    json.standardOutput
                        == "{\n  \"one\": {\n    \"a\": 1\n  },\n  \"two\": {\n    \"b\": \"x\"\n  }\n}\n")
                let none = try tool(["find", "zzz"], in: config)
                #expect(none.status == 0 && none.standardOutput == "No domain, key, nor value containing zzz\n")
                // A suite whose name holds the word is found whole.
                let byName = try tool(["find", "TWO"], in: config)
                #expect(byName.standardOutput == "Found 1 key in domain two: {\n    b = x;\n}\n")
            }
        }

        /// `-g`, `-globalDomain` and `NSGlobalDomain` are one domain, which a plain Foundation app on Linux
        /// reads (its search list reads `.GlobalPreferences.plist`); `domains` does not list it, as `defaults`.
        @Test(arguments: ["-g", "-globalDomain", "NSGlobalDomain"])
        func theGlobalDomainIsTheOneAppsRead(_ spelling: String) throws {
            try withTemporaryFolder { config in
                let write = try tool(["write", spelling, "AppleLocale", "en_GB"], in: config)
                #expect(write.status == 0 && write.standardError.contains("apps read the global domain"))
                #expect(
                    FileManager.default.fileExists(
                        atPath: config.appendingPathComponent(".GlobalPreferences.plist").path))
                for other in ["-g", "NSGlobalDomain"] {
                    #expect(try tool(["read", other, "AppleLocale"], in: config).standardOutput == "en_GB\n")
                }
                let app = try ProbeProcess.run(
                    ["plain-read", "com.example.other", "AppleLocale"], environment: ["XDG_CONFIG_HOME": config.path])
                #expect(app.standardOutput == "en_GB\n", "\(app.standardError)")
                #expect(try tool(["domains"], in: config).standardOutput == "\n")
            }
        }

        /// `--version` prints the version CHANGELOG.md's newest section names.
        @Test func versionIsTheChangelogsNewestSection() throws {
            let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("CHANGELOG.md")
            let heading = try #require(
                try String(contentsOf: changelog, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("## [") }
            )
            let section = heading.dropFirst(4).prefix { $0 != "]" }.lowercased()
            try withTemporaryFolder { config in
                let run = try tool(["--version"], in: config)
                #expect(run.status == 0 && run.standardOutput == "typed-defaults \(section)\n")
                #expect(try tool(["--version", "x"], in: config).status == 2)
            }
        }
    }
#endif
