import Foundation
import Testing

/// The search-and-replace the migration guide gives for SwiftyUserDefaults' call sites, read from the
/// guide itself and run over text that holds the traps a real codebase has: `UserDefaults.standard`
/// (no word boundary before `Defaults`), method calls such as `Defaults.observe(` (a pattern that
/// backtracks into them), a type whose name ends in `Defaults`. Before, the guide's pattern rewrote
/// `UserDefaults.standard` into `UserDefaults[.standard]` and `Defaults.observe(` into
/// `Defaults[.observ]e(`.
@Suite("The migration guide's rewrites break nothing")
struct GuideRewriteTests {
    /// The guide's rows of `| Find | Replace with |`: each a regular expression and its template.
    private static func rewrites() throws -> [(find: String, replace: String)] {
        let guide = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Docs/TypedDefaults.docc/ComingFromOtherLibraries.md")
        let text = try String(contentsOf: guide, encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        guard let header = lines.firstIndex(of: "| Find | Replace with |") else { return [] }
        return lines[(header + 2)...].prefix { $0.hasPrefix("| `") }.compactMap { row in
            let cells = row.components(separatedBy: "` | `")
            guard cells.count == 2 else { return nil }
            return (String(cells[0].dropFirst(3)), String(cells[1].dropLast(3)))
        }
    }

    @Test func theGuidesRewritesChangeCallSitesAndNothingElse() throws {
        let rewrites = try Self.rewrites()
        #expect(rewrites.count == 2, "the guide's table of rewrites: \(rewrites)")
        let fixture = #"""
            let fiat = Defaults[\.fiat]
            Defaults.fiat = "EUR"
            Defaults.launchCount += 1
            UserDefaults.standard.set(1, forKey: "x")
            let token = Defaults.observe(\.fiat) { _ in }
            Defaults.removeAll()
            let other = AppDefaults.count
            """#
        let expected = #"""
            let fiat = Defaults[.fiat]
            Defaults[.fiat] = "EUR"
            Defaults[.launchCount] += 1
            UserDefaults.standard.set(1, forKey: "x")
            let token = Defaults.observe(\.fiat) { _ in }
            Defaults.removeAll()
            let other = AppDefaults.count
            """#
        var text = fixture
        for (find, replace) in rewrites {
            let expression = try NSRegularExpression(pattern: find)
            text = expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replace)
        }
        #expect(text == expected)
    }
}
