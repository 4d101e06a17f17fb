// Exactly the API of the issues, in a client module, with every comment checked.
import Foundation
import Observation
import TypedDefaults

#if canImport(Combine)
    import Combine
#endif
#if canImport(SwiftUI)
    import SwiftUI
#endif

var failures: [String] = []
@MainActor
func check(_ condition: Bool, _ claim: String, line: Int = #line) {
    if !condition { failures.append("line \(line): \(claim)") }
}

// MARK: Issue 2: the core

enum Theme: String, UserDefaultConvertible { case light, dark, system }
struct Profile: Codable, Equatable, UserDefaultConvertible {
    var name: String
    var age: Int
}

extension UserDefaultTypedKeys {
    static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
    static let username = UserDefaultTypedKey<String?>("username")  // optional: default is nil
    static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .system)
    static let recent = UserDefaultTypedKey<[String]>("recent", defaultValue: [])
    static let scores = UserDefaultTypedKey<[String: Int]>("scores", defaultValue: [:])
    static let profile = UserDefaultTypedKey<Profile?>("profile")
    // Every built-in type.
    static let flag = UserDefaultTypedKey<Bool>("flag", defaultValue: false)
    static let int8 = UserDefaultTypedKey<Int8>("int8", defaultValue: 0)
    static let int16 = UserDefaultTypedKey<Int16>("int16", defaultValue: 0)
    static let int32 = UserDefaultTypedKey<Int32>("int32", defaultValue: 0)
    static let int64 = UserDefaultTypedKey<Int64>("int64", defaultValue: 0)
    static let uint = UserDefaultTypedKey<UInt>("uint", defaultValue: 0)
    static let uint8 = UserDefaultTypedKey<UInt8>("uint8", defaultValue: 0)
    static let uint16 = UserDefaultTypedKey<UInt16>("uint16", defaultValue: 0)
    static let uint32 = UserDefaultTypedKey<UInt32>("uint32", defaultValue: 0)
    static let uint64 = UserDefaultTypedKey<UInt64>("uint64", defaultValue: 0)
    static let float = UserDefaultTypedKey<Float>("float", defaultValue: 0)
    static let double = UserDefaultTypedKey<Double>("double", defaultValue: 0)
    static let data = UserDefaultTypedKey<Data>("data", defaultValue: Data())
    static let date = UserDefaultTypedKey<Date>("date", defaultValue: .distantPast)
    static let url = UserDefaultTypedKey<URL?>("url")
    static let uuid = UserDefaultTypedKey<UUID?>("uuid")
    static let tags = UserDefaultTypedKey<Set<String>>("tags", defaultValue: [])
    static let nested = UserDefaultTypedKey<[[String: [Int]]]>("nested", defaultValue: [])
    static let team = UserDefaultTypedKey<[Profile]?>("team")
    // Issue 4: names from properties.
    static var sessions: UserDefaultTypedKey<Int> { .init(defaultValue: 0) }
    static var lastSearch: UserDefaultTypedKey<String?> { .init() }
}

// Issue 25: the app's store is chosen once, at launch, before the first use of `Defaults` (here the
// standard suite itself, so that the checks below hold as written).
DefaultsStore.bootstrap(.standard)

let suiteName = "typed-defaults-client.\(ProcessInfo.processInfo.processIdentifier)"
let group = DefaultsStore(suiteName: suiteName)!  // any suite (failable, like UserDefaults)
check(Defaults === DefaultsStore.standard, "Defaults is the store chosen at launch")

Defaults[.launchCount] += 1  // `Defaults`: the shared store over UserDefaults.standard
let launchesNow = Defaults[.launchCount]
check(launchesNow >= 1, "the launch count went up")
Defaults[.recent].append("a.txt")  // in-place mutation through the subscript
check(Defaults[.recent].last == "a.txt", "in-place mutation")
Defaults[.username] = "ada"
Defaults[.username] = nil  // nil removes the stored value
check(!Defaults.hasKey(.username), "nil removes")
group[.theme] = .dark
check(group[.theme] == .dark, "a suite store")
check(Defaults.hasKey(.launchCount), "a stored value exists")
Defaults[.theme] = .light
Defaults.remove(.theme)  // back to the key's default
check(Defaults[.theme] == .system, "remove restores the default")
check(UserDefaults.standard.integer(forKey: "launchCount") == launchesNow, "native form for the plain API")
let afterModify = try group.modify(.launchCount) { $0 += 1 }  // atomic read-modify-write, saved on Linux
check(afterModify == 1 && group[.launchCount] == 1, "modify")

struct Settings: Sendable {  // the wrapper, driven by the same keys
    @UserDefault(.launchCount) var launchCount: Int
    @UserDefault(.theme, store: group) var theme: Theme
}
let settings = Settings()
settings.launchCount = 3  // writes through, even on a `let`
check(Defaults[.launchCount] == 3, "the wrapper writes through")
check(settings.theme == .dark, "the wrapper reads its store")

group[.flag] = true
group[.int8] = -8
group[.int16] = -16
group[.int32] = -32
group[.int64] = .min
group[.uint] = .max
group[.uint8] = 8
group[.uint16] = 16
group[.uint32] = 32
group[.uint64] = .max
group[.float] = 1.5
group[.double] = 2.25
group[.data] = Data([1, 2])
group[.date] = Date(timeIntervalSince1970: 1.5)
group[.url] = URL(string: "https://example.com/a?b=c#d")
let uuid = UUID()
group[.uuid] = uuid
group[.tags] = ["x", "y"]
group[.nested] = [["a": [1, 2]]]
group[.team] = [Profile(name: "A", age: 1)]
group[.profile] = Profile(name: "Ada", age: 36)
group[.scores]["ada"] = 3
check(
    group[.flag] && group[.int8] == -8 && group[.int16] == -16 && group[.int32] == -32 && group[.int64] == .min
        && group[.uint] == .max && group[.uint8] == 8 && group[.uint16] == 16 && group[.uint32] == 32
        && group[.uint64] == .max && group[.float] == 1.5 && group[.double] == 2.25 && group[.data] == Data([1, 2])
        && group[.date] == Date(timeIntervalSince1970: 1.5)
        && group[.url] == URL(string: "https://example.com/a?b=c#d") && group[.uuid] == uuid
        && group[.tags] == ["x", "y"] && group[.nested] == [["a": [1, 2]]]
        && group[.team] == [Profile(name: "A", age: 1)] && group[.profile] == Profile(name: "Ada", age: 36)
        && group[.scores] == ["ada": 3],
    "every built-in type round-trips")

// MARK: Issue 4: storage seam and key management

// Storage Backends' snippet, verbatim: the article's code compiles with warnings as errors.
final class KeychainStorage: KeyValueStorage, @unchecked Sendable {
    // @unchecked: `items` and `registered` are guarded by `lock`.
    private let lock = NSLock()
    private var items: [String: Any] = [:]  // stands in for the Keychain calls (SecItemCopyMatching, ...)
    private var registered: [String: Any] = [:]

    func object(forKey key: String) -> Any? { locked { items[key] ?? registered[key] } }
    func set(_ object: Any?, forKey key: String) { locked { items[key] = object } }
    func removeObject(forKey key: String) { locked { items[key] = nil } }
    func register(defaults: [String: Any]) { locked { registered.merge(defaults) { _, new in new } } }

    private func locked<Result>(_ body: () -> Result) -> Result {
        lock.lock()
        defer { lock.unlock() }
        return body()
    }
}

let custom = DefaultsStore(storage: KeychainStorage(), keyPrefix: "app.")
custom[.launchCount] = 5
check(custom.storage.object(forKey: "app.launchCount") as? Int == 5, "a prefix applies to the stored name")
custom[.sessions] += 1
custom[.lastSearch] = "swift"
check(custom.storage.object(forKey: "app.sessions") as? Int == 1, "a key takes its property's name")
custom.storage.set("7", forKey: "app.old_count")
check(custom.migrate(from: "old_count", to: .sessions) == false, "migrate never overwrites a stored value")
let memory = DefaultsStore(storage: InMemoryStorage())
memory.storage.set("7", forKey: "old_count")
check(memory.migrate(from: "old_count", to: .sessions) && memory[.sessions] == 7, "migrate converts")
// A backend with only the four methods cannot list its values: the snapshot shows the names this store
// has used (`old_count` was written behind its back). InMemoryStorage and UserDefaults list everything.
check(Set(custom.snapshot().keys) == ["launchCount", "sessions", "lastSearch"], "snapshot")
check(Set(memory.snapshot().keys) == ["sessions"], "snapshot of a listing backend")
custom.removeAll()
check(custom.snapshot().isEmpty && custom[.launchCount] == 0, "removeAll keeps defaults")
check(UserDefaultTypedKeys.conflicts(among: [.launchCount, .theme, .sessions]).isEmpty, "no conflicts")
let registered = DefaultsStore(storage: InMemoryStorage())
registered.register([.launchCount, .theme, .sessions])
check(registered.storage.object(forKey: "theme") as? String == "system", "register(_:) shows defaults at once")
let suiteWithPrefix: DefaultsStore? = DefaultsStore(suiteName: suiteName, keyPrefix: "p.")
check(suiteWithPrefix != nil, "suite with prefix")

// MARK: Issue 5: observation

final class Log: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String] = []
    func add(_ entry: String) {
        lock.lock()
        entries.append(entry)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return entries
    }
}
let log = Log()
let token = Defaults.observe(.launchCount) { change in
    log.add("\(change.oldValue)→\(change.newValue)")  // typed, both values
}
Defaults[.launchCount] = 10
token.cancel()  // also ends when the token is released
Defaults[.launchCount] = 11
check(log.all == ["3→10"], "one callback per change, none after cancel")

let several = group.observe(.theme, .launchCount, initial: true) { log.add("any") }  // keys of two types
group[.launchCount] = 5
group.withoutPropagation { group[.theme] = .dark }  // notifies nobody
several.cancel()
check(log.all == ["3→10", "any", "any"], "several keys, initial, withoutPropagation")
let first = group.observe(.theme, initial: true) { log.add("initial \($0.newValue)") }
first.cancel()
check(log.all.last == "initial dark", "observe(initial:)")

var seen: [Theme] = []
let changer = Task.detached {
    group[.theme] = .light
}
await changer.value
for await theme in group.updates(.theme) {  // AsyncSequence: the current value first, then each change
    seen.append(theme)
    if seen.count == 1 { group[.theme] = .system }
    if seen.count == 2 { break }
}
check(seen == [.light, .system], "updates: current value, then the change")
var projected: [Theme] = []
for await theme in settings.$theme.updates {  // the wrapper's projected value gives its key's updates
    projected.append(theme)
    break
}
check(projected == [.system], "$property.updates")

// A main-actor view model keeps its own state: its closure is not @Sendable and sets `theme` directly.
@MainActor
final class ThemeModel {
    private(set) var theme: Theme
    private var token: ObservationToken?
    private var waiter: CheckedContinuation<Void, Never>?

    init(store: DefaultsStore) {
        theme = store[.theme]
        token = store.observe(.theme, isolation: MainActor.shared) { [weak self] change in
            self?.theme = change.newValue
            self?.waiter?.resume()
            self?.waiter = nil
        }
    }

    /// Returns after the next change the model hears of.
    func nextChange(after write: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { continuation in
            waiter = continuation
            Task.detached { write() }  // a write from another thread
        }
    }
}
let model = ThemeModel(store: group)
await model.nextChange { group[.theme] = .dark }
check(model.theme == .dark, "a main-actor model observes with isolation: MainActor.shared")

/// An actor observes with itself as the isolation.
actor ChangeCount {
    private(set) var count = 0
    private var token: ObservationToken?
    func start(_ store: DefaultsStore) {
        token = store.observe(.theme, .launchCount, initial: true, isolation: self) { self.count += 1 }
    }
}
let changeCount = ChangeCount()
await changeCount.start(group)
check(await changeCount.count == 1, "an actor observes several keys, initial called at once")

// MARK: Issue 13: Swift's Observation

/// Tracking a read through the store fires once when that key changes, not for another key.
final class Fired: @unchecked Sendable {
    // @unchecked: set once by onChange, read after the change that fires it, on this thread.
    var count = 0
}
let fired = Fired()
if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
    withObservationTracking {
        _ = group[.theme]
    } onChange: {
        fired.count += 1
    }
    group[.launchCount] += 1
    check(fired.count == 0, "a change of another key does not fire")
    group[.theme] = .light
    check(fired.count == 1, "withObservationTracking fires when the key read changes")
}

/// An @Observable model whose wrapper is @ObservationIgnored: its reads are tracked through the store.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@Observable final class ObservableSettings {
    @ObservationIgnored @UserDefault(.theme, store: group) var theme: Theme
}
if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
    let settings = ObservableSettings()
    let modelFired = Fired()
    withObservationTracking {
        _ = settings.theme
    } onChange: {
        modelFired.count += 1
    }
    group[.theme] = .dark
    check(modelFired.count == 1, "an @Observable model's wrapped property is tracked")
}

// MARK: Issue 14: what migrating users reach for

extension Theme: UserDefaultDictionaryKey {}
enum Layout: String, Codable, UserDefaultConvertible { case grid, list }
extension UserDefaultTypedKeys {
    static let window = UserDefaultTypedKey<ClosedRange<Int>>("window", defaultValue: 1...10)
    static let price = UserDefaultTypedKey<Decimal>("price", defaultValue: 0)
    static let scale = UserDefaultTypedKey<CGFloat>("scale", defaultValue: 1)
    static let perTheme = UserDefaultTypedKey<[Theme: Int]>("perTheme", defaultValue: [:])
    static let byID = UserDefaultTypedKey<[UUID: String]>("byID", defaultValue: [:])
    static let extras = UserDefaultTypedKey<[String: PropertyListValue]>("extras", defaultValue: [:])
    static let layout = UserDefaultTypedKey<Layout>("layout", defaultValue: .grid)
}
group[.window] = 3...7
check(group[.window] == 3...7, "ranges are storable")
group[.price] = Decimal(string: "19.99")!
check(
    group[.price] == Decimal(string: "19.99")! && group.storage.object(forKey: "price") as? String == "19.99",
    "Decimal is exact text")
group[.scale] = 2.5
check(group[.scale] == 2.5, "CGFloat is storable")
group[.perTheme] = [.dark: 2]
check(group[.perTheme] == [.dark: 2], "enum-keyed dictionaries")
let id = UUID()
group[.byID] = [id: "a"]
check(group[.byID][id] == "a", "UUID-keyed dictionaries")
let extras: PropertyListValue = ["a": 1, "b": [true, 2.5, "x"]]
group[.extras] = ["nested": extras]
check(group[.extras]["nested"]?["b"]?[2] == "x", "PropertyListValue nests and reads back")
check(
    [UserDefaultTypedKeys.theme, .theme].count == 2 && Set([UserDefaultTypedKeys.theme]).contains(.theme),
    "keys are Hashable")
check(group.isDefaultValue(.window) == false, "isDefaultValue")
group.remove(.window, .price, .scale)
check(group.isDefaultValue(.window) && group[.price] == 0, "remove(.a, .b) of several value types")
group.storage.set(#""list""#, forKey: "layout")  // what sindresorhus/Defaults stored
check(group[.layout] == .list, "a peer's JSON text reads back")

/// The shapes Getting Started recommends compile in Swift 6 mode.
struct SharedSettings: Sendable {
    static let shared = SharedSettings()
    @UserDefault(.launchCount) var launchCount: Int
}
final class AppSettings: Sendable {
    static let shared = AppSettings()
    var theme: Theme {
        get { Defaults[.theme] }
        set { Defaults[.theme] = newValue }
    }
}
SharedSettings.shared.launchCount += 1
check(SharedSettings.shared.launchCount >= 1, "a struct singleton writes through")
check(AppSettings.shared.theme == Defaults[.theme], "a Sendable class reads through computed properties")
Defaults.remove(.theme)

// MARK: Issue 25: a real app moves over

final class Bookmark: NSObject, NSSecureCoding, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let title: String
    init(title: String) { self.title = title }
    required init?(coder: NSCoder) {
        guard let title = coder.decodeObject(of: NSString.self, forKey: "title") else { return nil }
        self.title = title as String
    }
    func encode(with coder: NSCoder) { coder.encode(title as NSString, forKey: "title") }
}
extension Bookmark: UserDefaultConvertible {}  // one declared line: stored as a keyed archive

final class RemoteLimit: Sendable {
    let value: Int
    init(_ value: Int) { self.value = value }
}
let remote = RemoteLimit(25)
let bookmarks = UserDefaultTypedKey<[Bookmark]>("bookmarks", defaultValue: [])
let lastReview = UserDefaultTypedKey<Date>("lastReview", default: { Date() })  // computed at each read
let uploads = UserDefaultTypedKey<Int>("uploads", default: { remote.value })
group[bookmarks] = [Bookmark(title: "Swift")]
check(group[bookmarks].map(\.title) == ["Swift"], "an archived object reads back")
check(group[lastReview].timeIntervalSinceNow > -60, "a default closure is called at the read")
check(group[uploads] == 25 && !group.hasKey(uploads), "a computed default is not stored")
func firstChange() async -> Int? {
    var changes = group.updates(.launchCount, initial: false).makeAsyncIterator()
    group[.launchCount] = 41
    return await changes.next()
}
check(await firstChange() == 41, "updates(initial: false) gives changes only")
let initialToken = group.observe(.theme, initial: true) { change in print("theme:", change.newValue) }
initialToken.cancel()
group[.theme] = .dark
group.removeAll(except: bookmarks)
check(group[.theme] == .system && group[bookmarks].count == 1, "removeAll(except:) keeps the given keys")
// Sync across devices (nothing to sync with where there is no iCloud) and Observation of changes made
// elsewhere, as a model asks for them.
group.sync(.theme, .recent)
group.trackChangesElsewhere(of: .theme, .recent)
group[.theme] = .light
check(group[.theme] == .light, "a synced key reads and writes as any key")
do { try group.flush() } catch { check(false, "flush with synced keys: \(error)") }

// Issues 33 to 36: old names without keys, wrappers that are Hashable, a Codable and NSSecureCoding
// class stored as JSON or as an archive, a storage that says which names it can watch.
group.storage.set(3, forKey: "kOldCount")
check(group.object(forName: "kOldCount") as? Int == 3, "object(forName:) reads an old name")
check(group.moveObject(fromName: "kOldCount", toName: "movedCount"), "moveObject moves an old name")
group.removeObject(forName: "movedCount")
check(group.object(forName: "movedCount") == nil, "removeObject(forName:) removes it")
struct HashableSettings: Hashable { @UserDefault(.launchCount) var launchCount: Int }
check(HashableSettings() == HashableSettings(), "a model of wrappers is Hashable by synthesis")
final class Note: NSObject, NSSecureCoding, Codable, UserDefaultKeyedArchive, @unchecked Sendable {
    static var supportsSecureCoding: Bool { true }
    let text: String
    init(text: String) { self.text = text }
    required init?(coder: NSCoder) { text = coder.decodeObject(of: NSString.self, forKey: "text") as String? ?? "" }
    func encode(with coder: NSCoder) { coder.encode(text as NSString, forKey: "text") }
}
let note = UserDefaultTypedKey<Note?>("note")
group[note] = Note(text: "hi")
check(group.storage.object(forKey: "note") is Data && group[note]?.text == "hi", "UserDefaultKeyedArchive archives")
final class NamedStorage: ExternallyChangingStorage, @unchecked Sendable {
    func object(forKey key: String) -> Any? { nil }
    func set(_ object: Any?, forKey key: String) {}
    func removeObject(forKey key: String) {}
    func register(defaults: [String: Any]) {}
    func watchChanges(ofKey key: String, _ onChange: @escaping @Sendable () -> Void) -> any ExternalChangeWatch {
        fatalError("never asked: canWatchChanges says no")
    }
    func canWatchChanges(ofKey key: String) -> Bool { false }
}
let unwatched = DefaultsStore(storage: NamedStorage())
unwatched.observe(.launchCount) { _ in }.cancel()
if case .namelessKey = DefaultsError.namelessKey(key: "k") { check(true, "namelessKey is an error case") }

struct Wallet: Codable, Equatable, UserDefaultJSONData { var currency: String }
let wallet = UserDefaultTypedKey<Wallet?>("wallet")
group[wallet] = Wallet(currency: "EUR")
check(group.storage.object(forKey: "wallet") is Data && group[wallet] == Wallet(currency: "EUR"), "JSON data form")
let forumTheme = UserDefaultKeyFamily<Theme>("forumTheme-", defaultValue: { _ in .system })
group[forumTheme["swift"]] = .dark
check(forumTheme.members(in: group) == ["swift"] && group[forumTheme["other"]] == .system, "a key family")

// Combine and SwiftUI on every system the package claims: a publisher as Foil's `$x`, and a view
// property that redraws without Observation (compiled here; the view is not shown by a command line).
#if canImport(Combine)
    final class Published { var values: [Int] = [] }
    let published = Published()
    let subscription = group.publisher(.launchCount).dropFirst().sink { published.values.append($0) }
    group[.launchCount] = 41
    check(published.values == [41], "a publisher delivers a change inside the write")
    subscription.cancel()
    let wrapped = UserDefault(.launchCount, store: group)
    let initial = wrapped.publisher.sink { published.values.append($0) }
    check(published.values == [41, 41], "a wrapper's publisher starts with the current value")
    initial.cancel()
#endif
#if canImport(SwiftUI)
    struct AvatarsToggle: View {
        @UserDefaultState(.theme) var theme
        var body: some View { Text(theme.rawValue) }
    }
#endif

// MARK: Issue 54: the apps the guide's tables moved (MovedFrom*.swift)

// The clipboard app's `@Observable @MainActor` view model, moved from sindresorhus/Defaults by the table
// and the section's two hand edits: it hears a write made on the main thread and one made on another
// thread, on the main actor (its callback sets a main-actor property), polled to a deadline.
if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
    let clipboard = ClipboardModel()
    check(clipboard.items.isEmpty, "the moved view model starts with the stored history (initial: true)")
    clipboard.copy("first")
    let writer = Task.detached { Defaults[.clipHistory] = ["second", "first"] }
    await writer.value
    let deadline = Date().addingTimeInterval(10)
    while clipboard.items != ["second", "first"] && Date() < deadline { await Task.yield() }
    check(clipboard.items == ["second", "first"], "the moved view model hears changes on the main actor")
    clipboard.clear()
    Defaults.remove(.clipLastPaste)
}
// The Foil forum client's preferences, moved by the table alone: the keys written in place read their
// defaults, write through the struct's `let`, and read back; removed before and after through the
// wrappers' own `remove()`, so that a second run starts from the defaults too.
let forum = ForumPreferences.shared
func removeForumValues() {
    forum.$pageSize.remove()
    forum.$lastVisit.remove()
    forum.$draft.remove()
    forum.$hiddenForums.remove()
}
removeForumValues()
let forumLine = openForum()
check(
    forumLine == "Sent from https://forum.example 1.0 false newest system" && forum.pageSize == 30
        && forum.hiddenForums == ["off-topic"] && forum.draft == ForumDraft(title: "Re: settings", body: ""),
    "the moved Foil preferences read their defaults and keep what was written: \(forumLine)")
removeForumValues()
check(forum.pageSize == 25 && !forum.$draft.hasKey, "the moved Foil preferences remove through their wrappers")

// Leave the standard domain as it was found.
for key in [UserDefaultTypedKeys.launchCount] { Defaults.remove(key) }
Defaults.remove(.recent)
try? Defaults.flush()
DefaultsStore.removeSuite(named: suiteName)

if failures.isEmpty {
    print("client: every claim holds")
} else {
    print("client: \(failures.count) claims failed:\n" + failures.joined(separator: "\n"))
    exit(1)
}
