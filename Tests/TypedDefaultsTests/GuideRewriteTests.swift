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

    /// A SwiftyUserDefaults app's declarations and call sites, with the shapes that escaped earlier
    /// tables: `#function` names, a member on the next line, an `@_exported` import, and declarations
    /// over several lines as real apps write them (14 of one wallet's 47 keys): the `.init(` on the next
    /// line, `return .init(`, arguments one a line, a nested generic type. Before, the table left the
    /// several-line ones as they were, and a `#function` one became a nameless key.
    static let fixture = #"""
        @_exported import SwiftyUserDefaults
        import Foundation
        extension DefaultsKeys {
            var fiat: DefaultsKey<String> { .init("fiat", defaultValue: "USD") }
            var fromTokenAddress: DefaultsKey<String?> { .init(#function) }
            var walletCount: DefaultsKey<Int> { .init(#function, defaultValue: 0) }
            var tokens: DefaultsKey<[String: [Int]]> { .init(#function, defaultValue: [:]) }
            var launchCount: DefaultsKey<Int> {
                .init("launchCount", defaultValue: 0)
            }
            var lastSeen: DefaultsKey<Date?> {
                return .init(#function)
            }
            var favorites: DefaultsKey<Set<String>> {
                .init(
                    #function,
                    defaultValue: []
                )
            }
            var volume: DefaultsKey<Double> { .init("volume",
                                                    defaultValue: 0.5) }
        }
        func use() {
            let fiat = Defaults[\.fiat]
            Defaults.fiat = "EUR"
            Defaults.walletCount += 1
            let address = Defaults
                .fromTokenAddress
            UserDefaults.standard.set(1, forKey: "x")
            let token = Defaults.observe(\.fiat) { _ in }
            Defaults.removeAll()
            let prefix = Defaults.keyPrefix
            let other = AppDefaults.count
            print(fiat, address as Any, token, prefix, other)
        }
        """#

    static let expected = #"""
        @_exported import TypedDefaults
        import Foundation
        extension UserDefaultTypedKeys {
            static let fiat = UserDefaultTypedKey<String>("fiat", defaultValue: "USD")
            static let fromTokenAddress = UserDefaultTypedKey<String?>("fromTokenAddress")
            static let walletCount = UserDefaultTypedKey<Int>("walletCount", defaultValue: 0)
            static let tokens = UserDefaultTypedKey<[String: [Int]]>("tokens", defaultValue: [:])
            static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
            static let lastSeen = UserDefaultTypedKey<Date?>("lastSeen")
            static let favorites = UserDefaultTypedKey<Set<String>>("favorites",
                    defaultValue: []
                )
            static let volume = UserDefaultTypedKey<Double>("volume",
                                                    defaultValue: 0.5)
        }
        func use() {
            let fiat = Defaults[.fiat]
            Defaults[.fiat] = "EUR"
            Defaults[.walletCount] += 1
            let address = Defaults[.fromTokenAddress]
            UserDefaults.standard.set(1, forKey: "x")
            let token = Defaults.observe(\.fiat) { _ in }
            Defaults.removeAll()
            let prefix = Defaults.keyPrefix
            let other = AppDefaults.count
            print(fiat, address as Any, token, prefix, other)
        }
        """#

    /// `text` with the guide's rewrites applied in order.
    static func rewritten(_ text: String) throws -> String {
        var text = text
        for (find, replace) in try rewrites() {
            let expression = try NSRegularExpression(pattern: find)
            text = expression.stringByReplacingMatches(
                in: text, range: NSRange(text.startIndex..., in: text), withTemplate: replace)
        }
        return text
    }

    @Test func theGuidesRewritesMoveDeclarationsAndCallSitesAndNothingElse() throws {
        let rewrites = try Self.rewrites()
        #expect(rewrites.count == 6, "the guide's table of rewrites: \(rewrites)")
        #expect(try Self.rewritten(Self.fixture) == Self.expected)
    }
}

/// Coming From Other Libraries' TypedDefaults code for Foil and `@AppStorage` compiles as written: each
/// block is in the client package's `GuideSnippets.swift`, which CI builds on Linux (Swift 6 mode,
/// warnings as errors) and type-checks for iOS against the real SDK, SwiftUI included.
@Suite("The guide's Foil and @AppStorage code is the code CI compiles")
struct GuideSnippetTests {
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// `text`'s lines without their leading white space, blank lines dropped.
    private static func normalized(_ text: some StringProtocol) -> [String] {
        text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func everyTypedDefaultsBlockOfTheFoilAndAppStorageSectionsIsCompiled() throws {
        let guide = try String(
            contentsOf: Self.root.appendingPathComponent("Docs/TypedDefaults.docc/ComingFromOtherLibraries.md"),
            encoding: .utf8)
        let compiled = Self.normalized(
            try String(
                contentsOf: Self.root.appendingPathComponent(
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
