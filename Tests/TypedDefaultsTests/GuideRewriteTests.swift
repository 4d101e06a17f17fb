import Foundation
import Testing

/// The package's folder, and the migration guide's text, which both suites below read.
private let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
private func guideText() throws -> String {
    try String(
        contentsOf: packageRoot.appendingPathComponent("Docs/TypedDefaults.docc/ComingFromOtherLibraries.md"),
        encoding: .utf8)
}

/// The search-and-replace tables the migration guide gives for each library an app leaves, read from the
/// guide itself and run over a fixture made of the shapes real apps use (`Tests/Helpers/GuideFixtures`):
/// several-line declarations, nested types, members on the next line, views with pickers, a view model
/// that observes in `init`, and the traps a rewrite must leave alone. What a table makes of its fixture,
/// with the hand edits its section names, is exactly a file of the client package
/// (`Tests/Helpers/ClientPackage/Sources/typed-defaults-client/MovedFrom*.swift`), which CI builds on
/// Linux in Swift 6 mode with warnings as errors and runs, and type-checks for iOS against the real SDK;
/// each test also compiles it here against the library these tests link.
@Suite("The migration guide's rewrite tables move each peer's app to code that compiles")
struct GuideRewriteTests {
    /// The rows of `| Find | Replace with |` in `guide`'s section headed `## section`: each a regular
    /// expression and its template. A cell's `\|` is a `|`, as Markdown tables read it, and a template
    /// cell "(nothing)" deletes the match.
    static func rewrites(section: String, in guide: String) throws -> [(find: String, replace: String)] {
        let lines = guide.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "## " + section), "no section \(section)")
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix("## ") } ?? lines.endIndex
        let header = try #require(
            lines[start..<end].firstIndex(of: "| Find | Replace with |"), "no table in \(section)")
        return lines[(header + 2)..<end].prefix { $0.hasPrefix("| `") }.compactMap { row in
            // A row that deletes what it finds says so in words.
            let deletes = "` | (nothing) |"
            let row = row.hasSuffix(deletes) ? row.dropLast(deletes.count) + "` | `` |" : row
            let cells = row.components(separatedBy: "` | `")
            guard cells.count == 2 else { return nil }
            return (
                String(cells[0].dropFirst(3)).replacingOccurrences(of: #"\|"#, with: "|"),
                String(cells[1].dropLast(3))
            )
        }
    }

    /// `text` with the rewrites applied in order.
    static func rewritten(_ text: String, by rewrites: [(find: String, replace: String)]) throws -> String {
        var text = text
        for (find, replace) in rewrites {
            let expression = try NSRegularExpression(pattern: find)
            text = expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replace)
        }
        return text
    }

    /// One library's move: its section, the name of its fixture (`GuideFixtures/NAME.swift.txt`) and of
    /// the client file the result must be (`MovedFromNAME.swift`), and the edits the section's steps leave
    /// to the user (each checked to be in the guide).
    struct Move: CustomTestStringConvertible, Sendable {
        let section: String
        let name: String
        let rows: Int
        let handEdits: [(find: String, replace: String, named: String)]
        var testDescription: String { section }

        static let all = [
            Move(
                section: "SwiftyUserDefaults", name: "SwiftyUserDefaults", rows: 10,
                handEdits: []),
            Move(
                section: "Defaults (sindresorhus)", name: "Defaults", rows: 15,
                handEdits: [
                    // Step 4: the view model becomes `@MainActor`, and its observers run there.
                    (
                        "@Observable\nfinal class ClipboardModel", "@Observable @MainActor\nfinal class ClipboardModel",
                        "make it\n  `@MainActor`, then add the argument"
                    ),
                    (
                        "Defaults.observe(.clipHistory, initial: true)",
                        "Defaults.observe(.clipHistory, initial: true, isolation: MainActor.shared)",
                        "isolation: MainActor.shared"
                    ),
                    (
                        "Defaults.observe(.clipLayout)", "Defaults.observe(.clipLayout, isolation: MainActor.shared)",
                        "isolation: MainActor.shared"
                    ),
                ]),
            Move(section: "Foil", name: "Foil", rows: 6, handEdits: []),
            Move(
                section: "@AppStorage", name: "AppStorage", rows: 4,
                handEdits: [
                    // The enum a property holds adopts the protocol (the compiler names it).
                    (
                        "enum ForumListSort: String, CaseIterable, Identifiable {",
                        "enum ForumListSort: String, CaseIterable, Identifiable, UserDefaultConvertible {",
                        "(`enum Sort: String, CaseIterable, UserDefaultConvertible`)"
                    )
                ]),
        ]
    }

    @Test(arguments: Move.all)
    func theTableMovesItsFixtureToTheCompiledClientFile(_ move: Move) throws {
        let guide = try guideText()
        let rewrites = try Self.rewrites(section: move.section, in: guide)
        #expect(rewrites.count == move.rows, "the guide's table: \(rewrites)")
        let fixture = try String(
            contentsOf: packageRoot.appendingPathComponent("Tests/Helpers/GuideFixtures/\(move.name).swift.txt"),
            encoding: .utf8)
        var result = try Self.rewritten(fixture, by: rewrites)
        for edit in move.handEdits {
            #expect(result.components(separatedBy: edit.find).count == 2, "the hand edit's place: \(edit.find)")
            result = result.replacingOccurrences(of: edit.find, with: edit.replace)
            #expect(guide.contains(edit.named), "the guide names the hand edit: \(edit.named)")
        }
        let moved = try String(
            contentsOf: packageRoot.appendingPathComponent(
                "Tests/Helpers/ClientPackage/Sources/typed-defaults-client/MovedFrom\(move.name).swift"),
            encoding: .utf8)
        #expect(result == moved)
        // Nothing of the library it left is in the result.
        for word in ["SwiftyUserDefault", "DefaultsKey<", "Defaults.Keys", "Key<", "Foil", "@AppStorage", "@Default("] {
            let left = result.components(separatedBy: "\n").filter {
                $0.contains(word) && !$0.hasPrefix("//") && !$0.contains("TypedKey<")
            }
            #expect(left.isEmpty, "left of \(word): \(left)")
        }
        let compiled = try Compilation(files: [moved])
        #expect(compiled.status == 0, "\(compiled.output)")
        #expect(!compiled.output.contains("warning:"), "\(compiled.output)")
    }

    /// The traps of SwiftyUserDefaults' table, each on its own: before, the guide's pattern rewrote
    /// `UserDefaults.standard` into `UserDefaults[.standard]` and `Defaults.observe(` into
    /// `Defaults[.observ]e(`, and left the store's own properties as keys.
    @Test func swiftyUserDefaultsRowsLeaveWhatIsNotAKeyAlone() throws {
        let rewrites = try Self.rewrites(section: "SwiftyUserDefaults", in: try guideText())
        let untouched = [
            #"UserDefaults.standard.set(1, forKey: "x")"#, "Defaults.removeAll()", "let prefix = Defaults.keyPrefix",
            "Defaults.storage.synchronize()", "let other = AppDefaults.count",
            "let token = Defaults.observe(.fiat) { _ in }",
        ]
        for line in untouched {
            #expect(try Self.rewritten(line, by: rewrites) == line)
        }
        #expect(try Self.rewritten("Defaults\n    .fiat", by: rewrites) == "Defaults[.fiat]")
        #expect(try Self.rewritten("Defaults.observe(\\.fiat)", by: rewrites) == "Defaults.observe(.fiat)")
    }
}

/// Coming From Other Libraries' TypedDefaults code for Foil and `@AppStorage` compiles as written: each
/// block is in the client package's `GuideSnippets.swift`, which CI builds on Linux (Swift 6 mode,
/// warnings as errors) and type-checks for iOS against the real SDK, SwiftUI included.
@Suite("The guide's Foil and @AppStorage code is the code CI compiles")
struct GuideSnippetTests {
    /// `text`'s lines without their leading white space, blank lines dropped.
    private static func normalized(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func everyTypedDefaultsBlockOfTheFoilAndAppStorageSectionsIsCompiled() throws {
        let guide = try guideText()
        let compiled = Self.normalized(
            try String(
                contentsOf: packageRoot.appendingPathComponent(
                    "Tests/Helpers/ClientPackage/Sources/typed-defaults-client/GuideSnippets.swift"),
                encoding: .utf8))
        let sections = try #require(guide.range(of: "## Foil\n")).lowerBound
        var blocks: [[String]] = []
        var current: [String]?
        for line in guide[sections...].split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed == "```swift" {
                current = []
            } else if trimmed == "```" {
                if let block = current { blocks.append(Self.normalized(block.joined(separator: "\n"))) }
                current = nil
            } else {
                current?.append(String(line))
            }
        }
        let ours = blocks.filter { $0.first?.hasPrefix("// TypedDefaults") == true }
        #expect(ours.count == 4)
        for block in ours {
            let found = compiled.indices.contains { start in
                compiled[start...].starts(with: block)
            }
            #expect(found, "not in GuideSnippets.swift:\n\(block.joined(separator: "\n"))")
        }
    }
}
