import Foundation
import Testing
import TypedDefaults

// Linux only: the command edits the files Linux's Foundation keeps (under `$XDG_CONFIG_HOME`); on other
// systems it says it is for Linux (`defaults` is there).
#if os(Linux)
    // `typed-defaults edit SUITE`, driven by an `EDITOR` script: a real app process (the probe's `app-keys`)
    // declares the keys and reads what was written; the command's own process edits the suite's file.

    /// A folder with an editor script and what the test has it do: the script counts its runs, keeps what
    /// each was shown (`shown-N`), and runs `edit-N` (shell commands, the text's path in `$1`) when there is
    /// one, else leaves the text as it was.
    private struct EditorScript {
        let folder: URL
        let config: URL

        init(in folder: URL) throws {
            self.folder = folder.appendingPathComponent("editor")
            config = folder.appendingPathComponent("config")
            for made in [self.folder, config] {
                try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            }
            let script = """
                #!/bin/sh
                dir="\(self.folder.path)"
                n=$(($(cat "$dir/count" 2>/dev/null || echo 0) + 1))
                echo $n > "$dir/count"
                cp "$1" "$dir/shown-$n"
                if [ -f "$dir/edit-$n" ]; then . "$dir/edit-$n"; fi
                """
            try Data(script.utf8).write(to: self.folder.appendingPathComponent("editor.sh"))
            chmod(self.folder.appendingPathComponent("editor.sh").path, 0o755)
        }

        /// Round `round`'s edit: shell commands over `$1`.
        func edit(_ round: Int, _ commands: String) throws {
            try Data(commands.utf8).write(to: folder.appendingPathComponent("edit-\(round)"))
        }

        var runs: Int {
            (try? String(contentsOf: folder.appendingPathComponent("count"), encoding: .utf8)).flatMap {
                Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
            } ?? 0
        }

        func shown(_ round: Int) -> String? {
            try? String(contentsOf: folder.appendingPathComponent("shown-\(round)"), encoding: .utf8)
        }

        /// The environment of the command: the script as the editor (no `VISUAL` of the caller's), the
        /// configuration folder, and the temporary folder inside the test's own.
        var environment: [String: String] {
            [
                "EDITOR": folder.appendingPathComponent("editor.sh").path, "XDG_CONFIG_HOME": config.path,
                "TMPDIR": folder.path,
            ]
        }

        func run(_ arguments: [String]) throws -> ProbeProcess.Output {
            try start(arguments).finish()
        }

        func start(_ arguments: [String]) throws -> ProbeProcess {
            let process = try ProbeProcess(
                arguments, environment: environment, unsetting: ["VISUAL"], program: "typed-defaults")
            try process.closeInput()
            return process
        }

        /// What the app process reads of each key (`app`, the manifest tests' app).
        func appReads(_ suite: String, _ action: String = "read") throws -> [String: String] {
            try app(action, suite, in: config)
        }

        func write(_ suite: String, _ words: [String]) throws {
            let run = try ProbeProcess.run(
                ["write", suite] + words, environment: ["XDG_CONFIG_HOME": config.path], program: "typed-defaults")
            #expect(run.status == 0, "\(words): \(run.standardError)")
        }

        func fileBytes(_ suite: String) -> Data? {
            try? Data(contentsOf: config.appendingPathComponent(suite + ".plist"))
        }

        func fileValues(_ suite: String) -> [String: Any]? {
            propertyList(at: config.appendingPathComponent(suite + ".plist"))
        }

        /// Whether any edited text was left in the temporary folder.
        var leftText: Bool {
            ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).contains {
                $0.hasPrefix("typed-defaults-edit")
            }
        }
    }

    /// An app's suite with a value of several kinds written by the command.
    private func withAppSuite(_ body: (EditorScript, String) throws -> Void) throws {
        try withTemporaryFolder { folder in
            let editor = try EditorScript(in: folder)
            let suite = uniqueSuiteName()
            _ = try editor.appReads(suite, "bind")
            try editor.write(suite, ["launchCount", "3"])
            try editor.write(suite, ["greeting", "hi"])
            try editor.write(suite, ["lastRun", "-date", "2020-01-01T00:00:00Z"])
            try editor.write(suite, ["token", "-data", "0a0b"])
            try editor.write(suite, ["volume", "-float", "2"])
            try body(editor, suite)
        }
    }

    @Suite("typed-defaults edit: the suite as JSON in the user's editor, each change checked, only changes written")
    struct CommandLineEditTests {
        @Test func changedValuesAreWrittenInTheirKindsAndReadByTheApp() throws {
            try withAppSuite { editor, suite in
                let before = try editor.appReads(suite)
                #expect(before["launchCount"] == "3" && before["token"] == "0a0b" && before["volume"] == "2.0")
                // A number, a date as its text, a new name, a Codable value written as the value itself, a
                // whole number for a real, and a name removed (its line deleted).
                try editor.edit(
                    1,
                    """
                    sed -i 's/"launchCount": 3/"launchCount": 7/; s/2020-01-01T00:00:00Z/2026-01-01T00:00:00Z/; s/"volume": 2.0/"volume": 4/; /"greeting"/d; s/^{$/{\\n  "nickname": "Ada",\\n  "profile": {"name": "Grace", "age": 85},/' "$1"
                    """)
                let run = try editor.run(["edit", suite])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(
                    editor.shown(1)?.contains(#""lastRun": "2020-01-01T00:00:00Z""#) == true, "\(editor.shown(1) ?? "")"
                )
                let after = try editor.appReads(suite)
                #expect(after["launchCount"] == "7")
                #expect(after["lastRun"] == "1767225600.0")
                #expect(after["volume"] == "4.0")
                #expect(after["nickname"] == "Ada")
                #expect(after["profile"] == "Grace,85")
                #expect(after["greeting"] == "hello", "the removed name reads its default")
                // A value left alone keeps its kind: data stays data, not its base64 text.
                #expect(after["token"] == "0a0b")
                #expect(editor.fileValues(suite)?["token"] is Data)
                #expect(editor.fileValues(suite)?["greeting"] == nil)
                #expect(!editor.leftText)
            }
        }

        /// Each wrong edit: refused with a message, the editor opened again on the same text; returning it
        /// unchanged gives up (exit 2) and leaves the file as it was.
        static let wrongEdits: [(sed: String, mentions: String)] = [
            (#"s/"launchCount": 3/"launchCount": "ten"/"#, "launchCount is an Int"),
            (#"s/"launchCount": 3/"launchCount": 3.5/"#, "launchCount is an Int"),
            (#"s/"launchCount": 3/"launchCount": ten/"#, "the text is not JSON"),
            (#"s/^{$/{\n  "appearance": "purple",/"#, "'purple' is not one of light, dark, system"),
            (#"s/^{$/{\n  "level": 300,/"#, "the integer 300 is not an integer Int8 holds"),
            (#"s/^{$/{\n  "account": {"name": "Ada"},/"#, "address is missing"),
            (
                #"s/^{$/{\n  "profile": "{\\"name\\": \\"G\\", \\"age\\": \\"old\\"}",/"#,
                "profile is an Optional<Person>"
            ),
            (#"s/^{$/{\n  "token": 5,/; /"token": "Cgs="/d"#, "token is a Data"),
            (#"1s/^{$/[/; $s/^}$/]/"#, "the text is not JSON"),
            (#"s/.*/7/; 2,$d"#, "not a JSON object of the suite's values"),
            (#"s/^{$/{\n  "nul": null,/"#, "null has no property-list form"),
        ]

        @Test(arguments: wrongEdits.indices)
        func aWrongValueIsRefusedAndTheEditorOpensAgainOnTheSameText(_ index: Int) throws {
            let (sed, mentions) = Self.wrongEdits[index]
            try withAppSuite { editor, suite in
                let file = editor.fileBytes(suite)
                try editor.edit(1, "sed -i '\(sed.replacingOccurrences(of: "'", with: "'\\''"))' \"$1\"")
                let run = try editor.run(["edit", suite])
                #expect(run.status == 2, "\(sed): \(run.standardError)")
                #expect(run.standardError.contains(mentions), "\(sed): \(run.standardError)")
                #expect(run.standardError.contains("nothing written"), "\(run.standardError)")
                #expect(editor.runs == 2)
                // The second run was shown the user's own text, not the suite's again.
                #expect(editor.shown(2) != editor.shown(1))
                #expect(editor.fileBytes(suite) == file, "\(sed) changed the file")
                #expect(!editor.leftText)
            }
        }

        @Test func aRefusedValueMendedInTheNextRoundIsWritten() throws {
            try withAppSuite { editor, suite in
                try editor.edit(1, #"sed -i 's/"launchCount": 3/"launchCount": "ten"/' "$1""#)
                try editor.edit(2, #"sed -i 's/"launchCount": "ten"/"launchCount": 9/' "$1""#)
                let run = try editor.run(["edit", suite])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardError.contains("launchCount is an Int"))
                #expect(try editor.appReads(suite)["launchCount"] == "9")

                // --force writes what the key would not read: the app reads its default.
                try FileManager.default.removeItem(at: editor.folder.appendingPathComponent("count"))
                try editor.edit(1, #"sed -i 's/"launchCount": 9/"launchCount": "ten"/' "$1""#)
                let forced = try editor.run(["edit", "--force", suite])
                #expect(forced.status == 0, "\(forced.standardError)")
                #expect(editor.fileValues(suite)?["launchCount"] as? String == "ten")
                #expect(try editor.appReads(suite)["launchCount"] == "0")

                // A value left as it was that the app does not read is named, and not refused.
                try FileManager.default.removeItem(at: editor.folder.appendingPathComponent("count"))
                try editor.edit(1, #"sed -i 's/"greeting": "hi"/"greeting": "yo"/' "$1""#)
                let other = try editor.run(["edit", suite])
                #expect(other.status == 0, "\(other.standardError)")
                #expect(other.standardError.contains("note: launchCount is left as it was"), "\(other.standardError)")
                #expect(try editor.appReads(suite)["greeting"] == "yo")
            }
        }

        @Test func textReturnedUnchangedWritesNothing() throws {
            try withAppSuite { editor, suite in
                let file = editor.fileBytes(suite)
                let run = try editor.run(["edit", suite])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(run.standardError.contains("no change: nothing written"))
                // Only the layout changed: no value did.
                try FileManager.default.removeItem(at: editor.folder.appendingPathComponent("count"))
                try editor.edit(1, #"sed -i 's/^  //' "$1""#)
                let relaid = try editor.run(["edit", suite])
                #expect(relaid.status == 0, "\(relaid.standardError)")
                #expect(relaid.standardError.contains("no value changed: nothing written"))
                #expect(editor.fileBytes(suite) == file)
                // An editor that fails: nothing written, exit 1.
                try editor.edit(1, #"sed -i 's/"launchCount": 3/"launchCount": 4/' "$1"; exit 3"#)
                try FileManager.default.removeItem(at: editor.folder.appendingPathComponent("count"))
                let failed = try editor.run(["edit", suite])
                #expect(failed.status == 1, "\(failed.standardError)")
                #expect(failed.standardError.contains("did not succeed (status 3)"))
                #expect(editor.fileBytes(suite) == file)
                #expect(!editor.leftText)
            }
        }

        /// A running app writes `launchCount` while the user edits: a change of the user's to another name is
        /// written beside the app's; a change to the same name is a conflict, refused and named, with the
        /// user's text kept, and the app's value stands.
        @Test(arguments: [false, true])
        func theAppsChangeWhileTheUserEditsStands(userChangesTheSameName: Bool) throws {
            try withAppSuite { editor, suite in
                let app = try ProbeProcess(
                    ["set-on-line", suite, "launchCount"], environment: ["XDG_CONFIG_HOME": editor.config.path])
                #expect(app.waitForLine("ready"))
                let change = userChangesTheSameName ? #"s/"launchCount": 3/"launchCount": 7/; "# : ""
                let folder = editor.folder.path
                try editor.edit(
                    1,
                    """
                    sed -i '\(change)s/"greeting": "hi"/"greeting": "yo"/' "$1"
                    touch "\(folder)/editing"
                    i=0
                    while [ ! -f "\(folder)/go" ] && [ $i -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done
                    """)
                let edit = try editor.start(["edit", suite])
                let deadline = Date(timeIntervalSinceNow: waitLimit)
                while !FileManager.default.fileExists(atPath: folder + "/editing"), Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                #expect(FileManager.default.fileExists(atPath: folder + "/editing"))
                try app.send("write")
                #expect(app.waitForLine("saved"))
                _ = FileManager.default.createFile(atPath: folder + "/go", contents: nil)
                let run = edit.finish()
                _ = app.finish()
                let values = editor.fileValues(suite)
                #expect(values?["launchCount"] as? Int == 1, "the app's value stands")
                if userChangesTheSameName {
                    #expect(run.status == 1, "\(run.standardError)")
                    #expect(
                        run.standardError.contains(#"the app changed launchCount while you edited"#),
                        "\(run.standardError)")
                    #expect(values?["greeting"] as? String == "hi", "nothing of the user's is written")
                    // The user's text is kept, where the message says.
                    let kept =
                        run.standardError.components(separatedBy: "your text is kept in ").last?
                        .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
                    #expect(
                        (try? String(contentsOfFile: kept, encoding: .utf8))?.contains(#""greeting": "yo""#) == true,
                        "\(kept)")
                } else {
                    #expect(run.status == 0, "\(run.standardError)")
                    #expect(values?["greeting"] as? String == "yo")
                    #expect(!editor.leftText)
                }
            }
        }

        @Test func aDomainGivenAsAPathIsEditedInPlace() throws {
            try withTemporaryFolder { folder in
                let editor = try EditorScript(in: folder)
                let other = folder.appendingPathComponent("backup")
                try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
                let path = other.appendingPathComponent("saved.plist").path
                try editor.write(path, ["count", "-int", "1"])
                try editor.edit(1, #"sed -i 's/"count": 1/"count": 2/' "$1""#)
                let run = try editor.run(["edit", path])
                #expect(run.status == 0, "\(run.standardError)")
                #expect(propertyList(at: URL(fileURLWithPath: path))?["count"] as? Int == 2)
                #expect(editor.fileBytes("saved") == nil, "the configuration folder is left alone")
            }
        }
    }
#endif
