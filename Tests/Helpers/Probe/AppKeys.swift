import Foundation
import TypedDefaults

// An app's keys of every kind the library stores, for the command's checks against the key manifest:
// `app-keys SUITE bind` uses each (its first use records it in the manifest) and saves; `app-keys SUITE
// read` prints what each key reads, a `name=value` line each.

enum Appearance: String, CaseIterable, UserDefaultConvertible { case light, dark, system }

struct Person: Codable, Equatable, UserDefaultConvertible {
    var name: String
    var age: Int
}

struct Layout: Equatable, UserDefaultJSONData {
    var columns: Int
    var compact: Bool
}

enum AppKeys {
    static let launchCount = UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)
    static let volume = UserDefaultTypedKey<Double>("volume", defaultValue: 0.5)
    static let muted = UserDefaultTypedKey<Bool>("muted", defaultValue: false)
    static let greeting = UserDefaultTypedKey<String>("greeting", defaultValue: "hello")
    static let lastRun = UserDefaultTypedKey<Date>("lastRun", defaultValue: Date(timeIntervalSince1970: 0))
    static let token = UserDefaultTypedKey<Data>("token", defaultValue: Data())
    static let homepage = UserDefaultTypedKey<URL>("homepage", defaultValue: URL(string: "https://example.com")!)
    static let recent = UserDefaultTypedKey<[String]>("recent", defaultValue: [])
    static let scores = UserDefaultTypedKey<[String: Int]>("scores", defaultValue: [:])
    static let appearance = UserDefaultTypedKey<Appearance>("appearance", defaultValue: .system)
    static let profile = UserDefaultTypedKey<Person?>("profile")
    static let layout = UserDefaultTypedKey<Layout>("layout", defaultValue: Layout(columns: 1, compact: false))
    static let nickname = UserDefaultTypedKey<String?>("nickname")
    static let level = UserDefaultTypedKey<Int8>("level", defaultValue: 0)
    static let speed = UserDefaultTypedKey<Speed>("speed", defaultValue: .normal)
    static let account = UserDefaultTypedKey<Account?>("account")

    @MainActor static func bind(_ store: DefaultsStore) {
        _ = store[launchCount]
        _ = store[volume]
        _ = store[muted]
        _ = store[greeting]
        _ = store[lastRun]
        _ = store[token]
        _ = store[homepage]
        _ = store[recent]
        _ = store[scores]
        _ = store[appearance]
        _ = store[profile]
        _ = store[layout]
        _ = store[nickname]
        _ = store[level]
        _ = store[speed]
        _ = store[account]
    }

    @MainActor static func read(_ store: DefaultsStore) {
        print("launchCount=\(store[launchCount])")
        print("volume=\(store[volume])")
        print("muted=\(store[muted])")
        print("greeting=\(store[greeting])")
        print("lastRun=\(store[lastRun].timeIntervalSince1970)")
        print("token=\(store[token].map { String(format: "%02x", $0) }.joined())")
        print("homepage=\(store[homepage].absoluteString)")
        print("recent=\(store[recent].joined(separator: ","))")
        print(
            "scores=\(store[scores].sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))")
        print("appearance=\(store[appearance].rawValue)")
        print("profile=\(store[profile].map { "\($0.name),\($0.age)" } ?? "nil")")
        print("layout=\(store[layout].columns),\(store[layout].compact)")
        print("nickname=\(store[nickname] ?? "nil")")
        print("level=\(store[level])")
        print("speed=\(store[speed].rawValue)")
        print("account=\(store[account].map(\.summary) ?? "nil")")
    }
}

@MainActor func appKeysCommand(_ store: DefaultsStore, _ arguments: [String]) {
    switch arguments.count > 2 ? arguments[2] : "" {
    case "bind":
        AppKeys.bind(store)
        do {
            try store.flush()
        } catch {
            fail("\(error)")
        }
    case "read": AppKeys.read(store)
    case "bind-on-line":
        // The keys under a prefix of their own (another app's names), bound when a line comes: several
        // processes declaring at once.
        guard arguments.count == 4, let suite = arguments.dropFirst().first,
            let prefixed = DefaultsStore(suiteName: suite, keyPrefix: arguments[3])
        else { fail("app-keys SUITE bind-on-line PREFIX") }
        say("ready")
        _ = readLine()
        AppKeys.bind(prefixed)
        do {
            try prefixed.flush()
        } catch {
            fail("\(error)")
        }
    case "launch":
        // One launch of an app with ten families and a key made per item: eight members of each family
        // and eight items, named after the launch; with `new-key`, a key added in this version too.
        guard arguments.count >= 4, let launch = Int(arguments[3]) else { fail("app-keys SUITE launch N [new-key]") }
        for family in ManyKeys.families {
            for member in 0..<8 { _ = store[family["\(launch)-\(member)"]] }
        }
        for item in 0..<8 { _ = store[ManyKeys.score(item: "\(launch)-\(item)")] }
        if arguments.count == 5, arguments[4] == "new-key" { _ = store[ManyKeys.fontSize] }
        flushOrFail(store)
    case "helper":
        for key in ManyKeys.madeByHelper { _ = store[key] }
        flushOrFail(store)
    default: fail("app-keys SUITE bind|read|bind-on-line PREFIX|launch N [new-key]|helper")
    }
}

@MainActor private func flushOrFail(_ store: DefaultsStore) {
    do {
        try store.flush()
    } catch {
        fail("\(error)")
    }
}

/// An app's keys beyond one declaration each: ten families (`UserDefaultKeyFamily`), a key made per item,
/// twelve keys made by one helper function, and a key added in a later version.
enum ManyKeys {
    /// Ten families, each declared on a line of its own, as an app declares them.
    static let family0 = UserDefaultKeyFamily<Int>("family0-", defaultValue: { _ in 0 })
    static let family1 = UserDefaultKeyFamily<Int>("family1-", defaultValue: { _ in 0 })
    static let family2 = UserDefaultKeyFamily<Int>("family2-", defaultValue: { _ in 0 })
    static let family3 = UserDefaultKeyFamily<Int>("family3-", defaultValue: { _ in 0 })
    static let family4 = UserDefaultKeyFamily<Int>("family4-", defaultValue: { _ in 0 })
    static let family5 = UserDefaultKeyFamily<Int>("family5-", defaultValue: { _ in 0 })
    static let family6 = UserDefaultKeyFamily<Int>("family6-", defaultValue: { _ in 0 })
    static let family7 = UserDefaultKeyFamily<Int>("family7-", defaultValue: { _ in 0 })
    static let family8 = UserDefaultKeyFamily<Int>("family8-", defaultValue: { _ in 0 })
    static let family9 = UserDefaultKeyFamily<Int>("family9-", defaultValue: { _ in 0 })
    static let families = [family0, family1, family2, family3, family4, family5, family6, family7, family8, family9]
    static func score(item: String) -> UserDefaultTypedKey<Int> {
        UserDefaultTypedKey<Int>("score-\(item)", defaultValue: 0)
    }
    static let fontSize = UserDefaultTypedKey<Int>("fontSize", defaultValue: 12)

    /// An app's settings, each made by the same function.
    private static func setting(_ name: String, _ defaultValue: Int) -> UserDefaultTypedKey<Int> {
        UserDefaultTypedKey<Int>(name, defaultValue: defaultValue)
    }
    static let madeByHelper = (1...12).map { setting("setting\($0)", $0) }
}

/// A raw-value enum that is not `CaseIterable`: which raw values are its cases is not known to the manifest.
enum Speed: Int, UserDefaultConvertible {
    case slow = 1
    case normal
    case fast
}

/// A `Codable` value of nested structs, optionals, arrays, an enum, a dictionary and a date: the command
/// checks JSON against what its decoding asks for.
struct Account: Codable, Equatable, UserDefaultConvertible {
    struct Address: Codable, Equatable {
        var city: String
        var zip: Int?
    }
    enum Plan: String, Codable, CaseIterable {
        case free
        case pro
    }
    var name: String
    var age: Int
    var email: String?
    var tags: [String]
    var address: Address
    var plan: Plan
    var scores: [String: Double]
    var joined: Date

    var summary: String {
        "\(name),\(age),\(email ?? "-"),\(tags.joined(separator: "+")),\(address.city),"
            + "\(address.zip.map(String.init) ?? "-"),\(plan.rawValue),\(scores.count),\(joined.timeIntervalSinceReferenceDate)"
    }
}
