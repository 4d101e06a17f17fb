import Foundation
import Testing

// What the compiler tells a user, checked by compiling snippets against the library as built for these
// tests, with the toolchain's `swiftc` in Swift 6 mode: the mistakes users make stop with the message
// the library gives, and the shapes the docs recommend compile without a warning.

/// The keys every snippet uses, as a user declares them.
private let prelude = """
    import TypedDefaults
    enum Theme: String, UserDefaultConvertible { case light, dark }
    extension UserDefaultTypedKeys {
        static let maxItems = UserDefaultTypedKey<Int>("maxItems", defaultValue: 10)
        static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .light)
        static let username = UserDefaultTypedKey<String?>("username")
        static let names = UserDefaultTypedKey<[String]>("names", defaultValue: [])
    }
    """

struct Mistake: CustomTestStringConvertible, Sendable {
    let code: String
    let message: String
    var testDescription: String { code }
}

private let valueMessage =
    "is unavailable: the value must have the key's type: a UserDefaultTypedKey<T> reads and writes values of type T"

private let foilSerializableMessage =
    "TypedDefaults' storable types conform to UserDefaultConvertible: Foil's init(storedValue:) and storedValue are init?(userDefaultsObject:) and userDefaultsObject, and Codable and raw-value types need the conformance only"
private let foilStorageMessage =
    #"TypedDefaults' wrapper is UserDefault, and the key holds the name and default: UserDefaultTypedKey<T>("x", defaultValue: v), then @UserDefault(.x) var x: T, or UserDefault(.x, store: DefaultsStore(storage: defaults)) as a value"#
private let foilOptionalMessage =
    #"TypedDefaults' wrapper is UserDefault, and the key holds the name: UserDefaultTypedKey<T?>("x"), then @UserDefault(.x) var x: T?, or UserDefault(.x, store: DefaultsStore(storage: defaults)) as a value"#

private let suiteMessage =
    #"a key has no suite in TypedDefaults: choose the app's store once at launch, DefaultsStore.bootstrap(DefaultsStore(suiteName: "group.example")!), or use the key with store: where it lives in another suite"#
private let iCloudMessage =
    "a key has no iCloud: argument in TypedDefaults: sync the keys once at launch, Defaults.sync(.a, .b), and choose a suite's store with DefaultsStore.bootstrap"

/// Each on one line of its own, so a diagnostic is matched to its snippet by its line.
private let mistakes: [Mistake] = [
    Mistake(code: #"func a1() { Defaults[.maxItems] = "ten" }"#, message: "'subscript(_:)' " + valueMessage),
    Mistake(code: #"func a2() { Defaults[.theme] = "dark" }"#, message: "'subscript(_:)' " + valueMessage),
    Mistake(code: "func a3() { Defaults[.maxItems] = 3.5 }", message: "'subscript(_:)' " + valueMessage),
    Mistake(code: "func a4() { Defaults[.maxItems] += 1.5 }", message: "'subscript(_:)' " + valueMessage),
    Mistake(code: "func a5() { Defaults[.username] = 3 }", message: "'subscript(_:)' " + valueMessage),
    Mistake(code: "func a6() -> String { Defaults[.maxItems] }", message: "'subscript(_:)' " + valueMessage),
    Mistake(
        code: "func a7() { let x: String = Defaults[.maxItems]; _ = x }", message: "'subscript(_:)' " + valueMessage),
    Mistake(
        code: #"func a8() throws { try Defaults.set("ten", for: .maxItems) }"#, message: "'set(_:for:)' " + valueMessage
    ),
    Mistake(
        code: "func a9() async { for await x: String in Defaults.updates(.maxItems) { _ = x } }",
        message:
            "'updates(_:initial:)' is unavailable: the values must have the key's type: the updates of a UserDefaultTypedKey<T> are of type T"
    ),
    Mistake(
        code: "func a10() { _ = Defaults.observe(.maxItems) { (change: DefaultsChange<String>) in _ = change } }",
        message:
            "'observe(_:initial:_:)' is unavailable: the change must have the key's type: a UserDefaultTypedKey<T> gives a DefaultsChange<T>"
    ),
    Mistake(
        code: "struct A11 { @UserDefault(.maxItems) var maxItems: Int = 5 }",
        message:
            #"'init(wrappedValue:_:store:)' is unavailable: the default lives in the key: UserDefaultTypedKey<T>("name", defaultValue: value), and the property has no '= value'"#
    ),
    Mistake(
        code: "struct A12 { @UserDefault(.maxItems) var maxItems: String }",
        message:
            "'init(_:store:)' is unavailable: the property must have the key's type: a UserDefaultTypedKey<T> backs a property of type T"
    ),
    // Swift forbids a property wrapper in a `Sendable` class (its storage is a `var`); Getting Started
    // shows the shapes to use instead, which `recommendedShapesCompile` compiles.
    Mistake(
        code: "final class A13: Sendable { @UserDefault(.maxItems) var maxItems: Int; init() {} }",
        message: "stored property '_maxItems' of 'Sendable'-conforming class 'A13' is mutable"),
    // The peers' spellings, as a migrating user types them.
    Mistake(
        code: #"func b1() { _ = UserDefaultTypedKey<Int>("x", default: 3) }"#,
        message:
            #"'init(_:default:)' is unavailable: TypedDefaults names the default 'defaultValue:': UserDefaultTypedKey<T>("name", defaultValue: value); a default computed at each read is 'default: { ... }'"#
    ),
    Mistake(
        code: #"func b1s(group: UserDefaults) { _ = UserDefaultTypedKey<Int>("x", defaultValue: 3, suite: group) }"#,
        message: "'init(_:defaultValue:suite:)' is unavailable: " + suiteMessage),
    Mistake(
        code: #"func b1t(group: UserDefaults) { _ = UserDefaultTypedKey<Int?>("x", suite: group) }"#,
        message: "'init(_:suite:)' is unavailable: " + suiteMessage),
    Mistake(
        code: #"func b1u(group: UserDefaults) { _ = UserDefaultTypedKey<Date>("x", default: { .now }, suite: group) }"#,
        message: "'init(_:default:suite:)' is unavailable: " + suiteMessage),
    Mistake(
        code: #"func b1v() { _ = UserDefaultTypedKey<Int>("x", defaultValue: 3, iCloud: true) }"#,
        message: "'init(_:defaultValue:iCloud:)' is unavailable: " + iCloudMessage),
    Mistake(
        code:
            #"func b1w(group: UserDefaults) { _ = UserDefaultTypedKey<Int>("x", defaultValue: 3, suite: group, iCloud: true) }"#,
        message: "'init(_:defaultValue:suite:iCloud:)' is unavailable: " + iCloudMessage),
    Mistake(
        code: #"func b1x() { _ = UserDefaultTypedKey<Int?>("x", iCloud: true) }"#,
        message: "'init(_:iCloud:)' is unavailable: " + iCloudMessage),
    Mistake(
        code: "func b2() { Defaults.reset(.maxItems, .theme) }",
        message:
            "'reset' has been renamed to 'remove': TypedDefaults calls it remove: Defaults.remove(.a, .b) gives the keys their defaults again"
    ),
    Mistake(
        code: "func b3(token: ObservationToken) { token.invalidate() }",
        message:
            "'invalidate()' has been renamed to 'cancel()': TypedDefaults calls it cancel()"),
    Mistake(
        code: "func b4(token: ObservationToken) { token.dispose() }",
        message:
            "'dispose()' has been renamed to 'cancel()': TypedDefaults calls it cancel()"),
    Mistake(
        code: "func b5() { _ = Defaults.observe(.maxItems, options: [.initial]) { _ in } }",
        message:
            "'observe(_:options:_:)' is unavailable: TypedDefaults says observe(.key, initial: true) { change in ... }; without 'initial: true' it does not call at once"
    ),
    Mistake(
        code: "func b6(token: ObservationToken, owner: AnyObject) { _ = token.tieToLifetime(of: owner) }",
        message:
            "'tieToLifetime(of:)' is unavailable: keep the token in a stored property of that object instead: releasing the token (with the object) ends the observation"
    ),
    Mistake(
        code: "func b7(token: DefaultsDisposable) { _ = token }",
        message:
            "'DefaultsDisposable' has been renamed to 'ObservationToken': TypedDefaults' observe returns an ObservationToken"
    ),
    Mistake(
        code: "func b8() -> String { UserDefaultTypedKeys.maxItems.key }",
        message: "'key' has been renamed to 'name': TypedDefaults calls a key's name name"),
    Mistake(
        code: "extension DefaultsKeys { static let b9 = UserDefaultTypedKey<Int>(\"b9\", defaultValue: 0) }",
        message:
            "'DefaultsKeys' has been renamed to 'UserDefaultTypedKeys': TypedDefaults' keys are static members of UserDefaultTypedKeys"
    ),
    Mistake(
        code: "enum B10: String, DefaultsSerializable { case a }",
        message:
            "'DefaultsSerializable' has been renamed to 'UserDefaultConvertible': TypedDefaults' storable types conform to UserDefaultConvertible"
    ),
    Mistake(
        code: "func b11() { _ = Defaults.observe(\\.maxItems) { _ in } }",
        message:
            "'observe' is unavailable: TypedDefaults observes the key itself, not a key path: observe(.key) { change in ... }"
    ),
    // Foil's names, as a migrating app types them (the app may still import Foil: its own declarations
    // win then, `foilsOwnDeclarationsWinWhileTheAppStillImportsFoil`).
    Mistake(
        code: "protocol B14: UserDefaultsSerializable {}",
        message: "'UserDefaultsSerializable' has been renamed to 'UserDefaultConvertible': " + foilSerializableMessage),
    Mistake(
        code: #"func b15() { _ = FoilDefaultStorage(wrappedValue: true, key: "x") }"#,
        message: "'FoilDefaultStorage' is unavailable: " + foilStorageMessage),
    Mistake(
        code: #"func b16() { _ = FoilDefaultStorageOptional<String>(key: "x") }"#,
        message: "'FoilDefaultStorageOptional' is unavailable: " + foilOptionalMessage),
    Mistake(
        code: #"struct B17 { @FoilDefaultStorage(key: "flag") var flag = true }"#,
        message: "'FoilDefaultStorage' is unavailable: " + foilStorageMessage),
    // One word and one verb for one concept, on the wrapper as on the store.
    Mistake(
        code: "struct B12 { @UserDefault(.maxItems) var maxItems: Int; func f() -> Bool { $maxItems.isStored } }",
        message: "'isStored' has been renamed to 'hasKey': TypedDefaults asks hasKey, of the wrapper as of the store"),
    Mistake(
        code: "struct B13 { @UserDefault(.maxItems) var maxItems: Int; func f() { $maxItems.reset() } }",
        message:
            "'reset()' has been renamed to 'remove()': TypedDefaults calls it remove, on the wrapper as on the store"),
]

/// A peer's spelling the library cannot answer with a declaration of its own: the compiler's message,
/// quoted or paraphrased in the guide's table beside our spelling.
struct GuideRow: CustomTestStringConvertible, Sendable {
    let code: String
    /// Part of what the compiler says on the snippet's line (error or warning).
    let compilerSays: String
    /// The cell of Coming From Other Libraries' table that answers it.
    let guideSays: String
    var testDescription: String { code }
}

private let guideRows: [GuideRow] = [
    GuideRow(
        code: "func c1(token: Defaults.Observation) { _ = token }",
        compilerSays: "cannot find type 'Defaults' in scope",
        guideSays: "| `Defaults.Observation` (a token's type) | ``ObservationToken``"),
    GuideRow(
        code: "extension Defaults.Keys { static let c2 = UserDefaultTypedKey<Int>(\"c2\", defaultValue: 0) }",
        compilerSays: "cannot find type 'Defaults' in scope",
        guideSays: "| `Defaults.Keys` | `UserDefaultTypedKeys` |"),
    GuideRow(
        code: "enum C3: String, Defaults.Serializable { case a }",
        compilerSays: "cannot find type 'Defaults' in scope",
        guideSays: "| `Defaults.Serializable` | ``UserDefaultConvertible`` |"),
    GuideRow(
        code: "func c4() { _ = Defaults.observe(.maxItems) { change in print(change.newValue ?? 0) } }",
        compilerSays: "left side of nil coalescing operator '??' has non-optional type 'Int'",
        guideSays: "| `change.newValue ?? false` | `change.newValue`"),
    GuideRow(
        code: "final class C5 { @UserDefault(.maxItems) static var maxItems: Int }",
        compilerSays: "is not concurrency-safe",
        guideSays:
            "(\"static property … is not concurrency-safe\") | a computed `static var x: T { get { Defaults[.x] } set { Defaults[.x] = newValue } }`"
    ),
]

/// Correct code, including each shape Getting Started recommends: none of it may pick an unavailable
/// overload, be ambiguous, or warn.
private let correctCode = """
    import Foundation
    import Observation
    import TypedDefaults
    func uses() async throws {
        Defaults[.maxItems] += 1
        let count = Defaults[.maxItems]
        let optional: Int? = Defaults[.maxItems]
        let any: Any = Defaults[.theme]
        Defaults[.theme] = .dark
        Defaults[.names].append("a")
        Defaults[.username] = nil
        Defaults[.username] = "ada"
        if let name = Defaults[.username] { print(name) }
        print(Defaults[.maxItems], count, optional as Any, any)
        try Defaults.set(3, for: .maxItems)
        Defaults.remove(.maxItems, .theme)
        let token = Defaults.observe(.maxItems) { change in print(change.newValue + 1) }
        let both = Defaults.observe(.maxItems, .theme) { print("changed") }
        for await value in Defaults.updates(.maxItems) { print(value * 2); break }
        for await value in Defaults.updates(.maxItems, initial: false) { print(value * 2); break }
        let reviewed = UserDefaultTypedKey<Date>("reviewed", default: { Date.now })
        print(Defaults[reviewed])
        Defaults.removeAll(except: .username, .theme)
        let initial = Defaults.observe(.maxItems, initial: true) { change in print(change.newValue) }
        _ = (token, both, initial)
    }

    /// A struct singleton: the wrapper writes through, even on a `let`.
    struct Settings: Sendable {
        static let shared = Settings()
        @UserDefault(.maxItems) var maxItems: Int
        @UserDefault(.theme) var theme: Theme
    }
    func useSettings() { Settings.shared.maxItems += 1 }

    /// A `Sendable` class singleton: computed properties over the store.
    final class SharedSettings: Sendable {
        static let shared = SharedSettings()
        var maxItems: Int {
            get { Defaults[.maxItems] }
            set { Defaults[.maxItems] = newValue }
        }
    }
    func useSharedSettings() { SharedSettings.shared.maxItems += 1 }

    /// A main-actor class with wrappers, observing on the main actor.
    @MainActor final class ViewModel {
        @UserDefault(.maxItems) var maxItems: Int
        private(set) var shown = 0
        private var token: ObservationToken?
        func start() {
            token = $maxItems.observe(isolation: MainActor.shared) { change in self.shown = change.newValue }
        }
    }

    /// A class that is both `Codable` and `NSSecureCoding`: one storage form (JSON text), and the keyed
    /// archive when it asks for it (this gave "multiple matching initializers" before).
    final class Bookmark: NSObject, NSSecureCoding, Codable, UserDefaultConvertible, @unchecked Sendable {
        static var supportsSecureCoding: Bool { true }
        let path: String
        init(path: String) { self.path = path }
        required init?(coder: NSCoder) { path = coder.decodeObject(of: NSString.self, forKey: "path") as String? ?? "" }
        func encode(with coder: NSCoder) { coder.encode(path as NSString, forKey: "path") }
    }
    final class ArchivedBookmark: NSObject, NSSecureCoding, Codable, UserDefaultKeyedArchive, @unchecked Sendable {
        static var supportsSecureCoding: Bool { true }
        let path: String
        init(path: String) { self.path = path }
        required init?(coder: NSCoder) { path = coder.decodeObject(of: NSString.self, forKey: "path") as String? ?? "" }
        func encode(with coder: NSCoder) { coder.encode(path as NSString, forKey: "path") }
    }
    /// An enum with a raw value that asks for the peers' JSON data (this gave "multiple matching
    /// initializers" before).
    enum Mode: String, Codable, UserDefaultJSONData { case simple, advanced }
    func useMode() { Defaults[UserDefaultTypedKey<Mode>("mode", defaultValue: .simple)] = .advanced }
    func useBookmarks() {
        Defaults[UserDefaultTypedKey<Bookmark?>("bookmark")] = Bookmark(path: "/a")
        Defaults[UserDefaultTypedKey<ArchivedBookmark?>("archived")] = ArchivedBookmark(path: "/b")
    }

    /// An `@Observable` class: the wrapper is `@ObservationIgnored`, and reads are still tracked
    /// because they go through the store.
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    @Observable final class Model {
        @ObservationIgnored @UserDefault(.maxItems) var maxItems: Int
    }
    """

@Suite("The compiler explains mistakes, and the recommended shapes compile")
struct CompilerDiagnosticsTests {
    @Test("each mistake stops with the library's message, on its own line", arguments: mistakes)
    func mistakeStopsWithItsMessage(_ mistake: Mistake) throws {
        let result = try Self.mistakesCompiled.get()
        // Line 1 imports Foundation and the library.
        let line = try #require(mistakes.firstIndex { $0.code == mistake.code }) + 2
        let errors = result.errors(onLine: line)
        #expect(errors == [mistake.message])
    }

    @Test("each peer spelling the compiler cannot answer is in the guide with what it says", arguments: guideRows)
    func guideAnswersWhatTheCompilerCannot(_ row: GuideRow) throws {
        let result = try Self.guideRowsCompiled.get()
        let line = try #require(guideRows.firstIndex { $0.code == row.code }) + 2
        let diagnostics = result.diagnostics(onLine: line)
        #expect(diagnostics.contains { $0.contains(row.compilerSays) }, "\(diagnostics)")
        let guide = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(
                    "Docs/TypedDefaults.docc/ComingFromOtherLibraries.md"),
            encoding: .utf8)
        #expect(guide.contains(row.guideSays))
    }

    private static let guideRowsCompiled = Result {
        try Compilation(files: [prelude, (["import TypedDefaults"] + guideRows.map(\.code)).joined(separator: "\n")])
    }

    /// An app moving from Foil imports both libraries for a while: Foil's own declarations must win over
    /// the unavailable ones that name TypedDefaults' spellings.
    @Test func foilsOwnDeclarationsWinWhileTheAppStillImportsFoil() throws {
        let foil = """
            import Foundation
            public protocol UserDefaultsSerializable {
                var storedValue: Any { get }
                init(storedValue: Any)
            }
            extension Bool: UserDefaultsSerializable {
                public var storedValue: Any { self }
                public init(storedValue: Any) { self = storedValue as? Bool ?? false }
            }
            @propertyWrapper public struct FoilDefaultStorage<T: UserDefaultsSerializable> {
                public let key: String
                public var wrappedValue: T { get { fatalError() } set {} }
                public init(wrappedValue: T, key: String, userDefaults: UserDefaults = .standard) { self.key = key }
            }
            @propertyWrapper public struct FoilDefaultStorageOptional<T: UserDefaultsSerializable> {
                public var wrappedValue: T? { get { nil } set {} }
                public init(key: String, userDefaults: UserDefaults = .standard) {}
            }
            """
        let app = """
            import Foundation
            import Foil
            import TypedDefaults
            final class LegacySettings {
                @FoilDefaultStorage(key: "flag") var flag = true
                @FoilDefaultStorageOptional(key: "user") var user: Bool?
            }
            struct Point: UserDefaultsSerializable {
                var storedValue: Any { 0 }
                init(storedValue: Any) {}
            }
            func migrate(defaults: UserDefaults) -> String {
                FoilDefaultStorage(wrappedValue: true, key: "x", userDefaults: defaults).key
            }
            """
        let result = try Compilation(files: [prelude, app], otherModules: [("Foil", foil)])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("error:"), "\(result.output)")
    }

    @Test func recommendedShapesCompile() throws {
        let result = try Compilation(files: [prelude, correctCode])
        #expect(result.status == 0, "\(result.output)")
        #expect(!result.output.contains("warning:"), "\(result.output)")
    }

    /// All mistakes compiled at once: one compiler run, each diagnostic found by its line.
    private static let mistakesCompiled = Result {
        try Compilation(files: [
            prelude, (["import Foundation; import TypedDefaults"] + mistakes.map(\.code)).joined(separator: "\n"),
        ])
    }
}

/// One `swiftc -typecheck` run over `files`, against the `TypedDefaults` module these tests link (here,
/// and for `GuideRewriteTests`' moved apps).
struct Compilation {
    let status: Int32
    let output: String
    /// The name of the last file, where a test's snippets are.
    let lastFile: String

    /// `otherModules`: modules built first from their source (a peer library the app still imports),
    /// which `files` may import.
    init(files: [String], otherModules: [(name: String, source: String)] = []) throws {
        let modules = try #require(Self.modulesDirectory, "the TypedDefaults module is not beside the tests")
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compile-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for module in otherModules {
            let file = directory.appendingPathComponent(module.name + ".swift")
            try module.source.write(to: file, atomically: true, encoding: .utf8)
            let build = Process()
            build.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            build.arguments = [
                "swiftc", "-emit-module", "-parse-as-library", "-swift-version", "6", "-module-name", module.name,
                "-o", directory.appendingPathComponent(module.name + ".swiftmodule").path, file.path,
            ]
            try build.run()
            build.waitUntilExit()
            #expect(build.terminationStatus == 0, "\(module.name) did not build")
        }
        var paths: [String] = []
        for (index, text) in files.enumerated() {
            let file = directory.appendingPathComponent("file\(index).swift")
            try text.write(to: file, atomically: true, encoding: .utf8)
            paths.append(file.path)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments =
            ["swiftc", "-typecheck", "-swift-version", "6", "-I", modules.path, "-I", directory.path] + paths
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        lastFile = URL(fileURLWithPath: paths[paths.count - 1]).lastPathComponent
        status = process.terminationStatus
        output = String(decoding: data, as: UTF8.self)
    }

    /// The messages of the errors reported on `line` of the last file.
    func errors(onLine line: Int) -> [String] {
        messages(onLine: line, kinds: [": error: "])
    }

    /// The messages of the errors and warnings reported on `line` of the last file.
    func diagnostics(onLine line: Int) -> [String] {
        messages(onLine: line, kinds: [": error: ", ": warning: "])
    }

    private func messages(onLine line: Int, kinds: [String]) -> [String] {
        output.split(separator: "\n").compactMap { diagnostic in
            guard let range = diagnostic.range(of: ":\(line):"),
                diagnostic[..<range.lowerBound].hasSuffix("/" + lastFile),
                let kind = kinds.lazy.compactMap({
                    diagnostic.range(of: $0, range: range.upperBound..<diagnostic.endIndex)
                }).first
            else { return nil }
            return String(diagnostic[kind.upperBound...])
        }
    }

    /// Where SwiftPM put the `TypedDefaults` module for this build: beside the probe it built.
    static let modulesDirectory: URL? = {
        guard let directory = ProbeProcess.productsDirectory else { return nil }
        for candidate in [directory.appendingPathComponent("Modules"), directory] {
            let module = candidate.appendingPathComponent("TypedDefaults.swiftmodule")
            if FileManager.default.fileExists(atPath: module.path) { return candidate }
        }
        return nil
    }()
}
