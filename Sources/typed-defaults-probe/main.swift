// A child process for the persistence tests: it writes through the library, then ends the way a test
// asks (return from main, exit(), or waiting to be killed); another run reads the values back.
// Not a product: the tests build and start it.
//
//   typed-defaults-probe write SUITE return|exit|wait|busy-wait
//                                                       write the fixture values, then end that way
//                                                       (busy-wait: with Dispatch's .utility queue kept
//                                                       busy by blocked and CPU-bound work)
//   typed-defaults-probe dump SUITE                     print the fixture keys, one `name=value` a line
//   typed-defaults-probe burst SUITE PREFIX COUNT       print "ready", wait for a line on stdin, then
//                                                       write COUNT keys, saving after each
//   typed-defaults-probe stream SUITE PREFIX RATE        print "ready", wait for a line on stdin, then write
//                                                       PREFIX0, PREFIX1, ... (each holding its index) at RATE
//                                                       a second, printing each index once written, until killed
//   typed-defaults-probe plain-stream SUITE PREFIX RATE  the same through plain Foundation, with synchronize()
//                                                       after each write; prints an index once synchronized
//   typed-defaults-probe count SUITE PREFIX...          print how many PREFIX keys hold their index, a line each
//   typed-defaults-probe flush SUITE                    write one value and save it now, or fail
//   typed-defaults-probe chdir-flush SUITE DIR           use the suite, change the working directory to DIR,
//                                                       then as flush
//   typed-defaults-probe args SUITE [-key value ...]    print the typed values launch arguments give
//   typed-defaults-probe remove SUITE                   remove the suite and its file
//   typed-defaults-probe two SUITE OTHER                write to both suites and save each, printing each result
//   typed-defaults-probe synchronize SUITE              plain Foundation: set a value and synchronize()
//   typed-defaults-probe plain SUITE                    plain Foundation: print the value of "count"
//   typed-defaults-probe plain-read SUITE NAME...       plain Foundation: print each NAME's value, a line each
//   typed-defaults-probe bootstrap SUITE [late|twice]   choose SUITE as the app's store, then add one to
//                                                       "bootstrapCount" through a wrapper and through
//                                                       Defaults in another module, save, print the count
//                                                       (late: Defaults used first; twice: bootstrap twice;
//                                                       twice-after-use: twice, Defaults used in between)
//   typed-defaults-probe swatches SUITE                 print the archived swatches: one, the array, the dictionary
//   typed-defaults-probe changing-default SUITE         read keys whose default changes (a computed key
//                                                       from one declaration, a default closure), print them
//   typed-defaults-probe watch SUITE                    read and observe "count"; print "ready", then for each
//                                                       line "check" print what every read path and the
//                                                       observers saw; "write N" writes N; "remove" removes
//                                                       it; "quit" ends
//   typed-defaults-probe no-inotify SUITE               take every inotify instance, then read "count"
//   typed-defaults-probe exit-in-modify SUITE           write the fixture values, then call exit(0) inside
//                                                       a modify transform
//   typed-defaults-probe sigint SUITE                   exit(0) on SIGINT; print "ready", then write and
//                                                       save in a loop until the signal comes
//   typed-defaults-probe modify SUITE COUNT             print "ready", wait for a line, then modify "count"
//                                                       (+1) COUNT times
//   typed-defaults-probe set-on-line SUITE NAME         print "ready", wait for a line, then set the integer
//                                                       NAME to 1, save, and print "saved"
//   typed-defaults-probe main-actor-write -             observe on the main actor, write on the main thread,
//                                                       print what the observer saw after each write
//   typed-defaults-probe read-archives -                for each line on stdin (an archive in hexadecimal), read
//                                                       it as a swatch, swatches and a URL, then print "ok"
//   typed-defaults-probe first OPERATION SUITE          OPERATION as the process's first call of the
//                                                       library (SUITE "-": the standard store), then print
//                                                       what every read path sees and save (see FirstCall)
//
// A store the library refuses to make prints "no store" and exits with 3. With PROBE_USER_ID set, a
// probe started by root first becomes that user (and group), for tests of files it may not read.
import Foundation
import ProbeSettings
import TypedDefaults

enum Theme: String, UserDefaultConvertible { case light, dark, system }

struct Profile: Codable, Equatable, UserDefaultConvertible {
    var name: String
    var born: Date
}

enum Fixture {
    static let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
    static let date = UserDefaultTypedKey<Date>("date", defaultValue: .distantPast)
    static let dates = UserDefaultTypedKey<[Date]>("dates", defaultValue: [])
    static let theme = UserDefaultTypedKey<Theme>("theme", defaultValue: .system)
    static let profile = UserDefaultTypedKey<Profile?>("profile")
    static let urls = UserDefaultTypedKey<[URL]>("urls", defaultValue: [])
    static let urlsByName = UserDefaultTypedKey<[String: URL]>("urlsByName", defaultValue: [:])
    static let homepage = UserDefaultTypedKey<URL?>("homepage")

    static let urlValues =
        [
            "https://example.com/p?q=1&r=a%20b#frag",
            "https://bücher.example/straße?q=ä",
            "mailto:ada@example.com?subject=Hi%20there",
            "ftp://user@ftp.example.com:2121/pub/file.txt",
        ].compactMap(URL.init(string:)) + [URL(fileURLWithPath: "/tmp/a dir/ünï cødé.txt")]
        + ["www.example.com", "//example.com/a?b=1", "/a/path?q=1#f"].compactMap(URL.init(string:))

    static func write(to store: DefaultsStore) {
        store[count] = 42
        store[date] = Date(timeIntervalSince1970: 1_700_000_000.123456)
        store[dates] = [Date(timeIntervalSince1970: 0.001), Date(timeIntervalSince1970: 1_800_000_000.5)]
        store[theme] = .dark
        store[profile] = Profile(name: "Ada", born: Date(timeIntervalSince1970: -4_000_000_000.25))
        store[urls] = urlValues
        store[urlsByName] = ["first": urlValues[0], "file": urlValues[4]]
        store[homepage] = urlValues[1]
    }

    static func dump(_ store: DefaultsStore) {
        func seconds(_ date: Date) -> String { String(format: "%.6f", date.timeIntervalSince1970) }
        print("count=\(store[count])")
        print("date=\(seconds(store[date]))")
        print("dates=\(store[dates].map(seconds).joined(separator: ","))")
        print("theme=\(store[theme].rawValue)")
        print("profile=\(store[profile].map { "\($0.name)@\(seconds($0.born))" } ?? "nil")")
        print("urls=\(store[urls].map(\.absoluteString).joined(separator: " "))")
        print(
            "urlsByName=\(store[urlsByName].sorted { $0.key < $1.key }.map { "\($0.key):\($0.value.absoluteString)" }.joined(separator: " "))"
        )
        print("homepage=\(store[homepage]?.absoluteString ?? "nil")")
    }
}

/// Counts up from 1, from any thread: a default that changes at each read.
final class Counter: @unchecked Sendable {
    // @unchecked: `value` is guarded by `lock`.
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}

/// What a watching probe has seen, from any thread.
final class Events: @unchecked Sendable {
    // @unchecked: `lines` is guarded by `condition`.
    private let condition = NSCondition()
    private var lines: [String] = []

    func append(_ line: String) {
        condition.lock()
        lines.append(line)
        condition.broadcast()
        condition.unlock()
    }

    var all: [String] {
        condition.lock()
        defer { condition.unlock() }
        return lines
    }

    /// Waits until `line` has been seen (the first value of `updates` arrives on another task).
    func wait(for line: String) -> Bool {
        let deadline = Date(timeIntervalSinceNow: 10)
        condition.lock()
        defer { condition.unlock() }
        while !lines.contains(line) {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }
}

/// Writes a line unbuffered, so a test waiting for it sees it at once.
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

if let user = ProcessInfo.processInfo.environment["PROBE_USER_ID"].flatMap(UInt32.init), getuid() == 0 {
    guard setgroups(0, nil) == 0, setgid(user) == 0, setuid(user) == 0 else { fail("cannot become user \(user)") }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
    fail("usage: typed-defaults-probe write|dump|burst|count|flush|args|synchronize|plain|two SUITE ...")
}

// Foundation's own API, for comparing where it keeps a suite with where the library saves it.
switch arguments[0] {
case "synchronize":
    // Saves one value the way a plain Foundation program does.
    let defaults = UserDefaults(suiteName: arguments[1])!
    defaults.set(7, forKey: "plain")
    print(defaults.synchronize() ? "synchronized" : "synchronize failed")
    exit(0)
case "plain":
    // What a plain Foundation program reads for the fixture's count.
    print("count=\(UserDefaults(suiteName: arguments[1])!.object(forKey: "count") ?? "nil")")
    exit(0)
case "bootstrap":
    let mode = arguments.dropFirst(2).first
    if mode == "late" { _ = Defaults[Fixture.count] }
    DefaultsStore.bootstrap(DefaultsStore(suiteName: arguments[1])!)
    // twice-after-use: what the losing call of two at once may see, the winner's store already in use.
    if mode == "twice-after-use" { _ = Defaults[Fixture.count] }
    if mode == "twice" || mode == "twice-after-use" { DefaultsStore.bootstrap(DefaultsStore(suiteName: arguments[1])!) }
    let settings = ProbeSettings()
    settings.count += 1
    countThroughDefaults()
    try! Defaults.flush()
    print("count=\(Defaults[.bootstrapCount])")
    exit(0)
case "swatches":
    let store = DefaultsStore(suiteName: arguments[1])!
    print(store[.swatch].map { "\($0)" } ?? "nil")
    print(store[.swatches].map { "\($0)" }.joined(separator: " "))
    print(store[.swatchesByName].sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
    exit(0)
case "changing-default":
    let store = DefaultsStore(suiteName: arguments[1])!
    func limit(_ value: Int) -> UserDefaultTypedKey<Int> { UserDefaultTypedKey("remoteLimit", defaultValue: value) }
    let counter = Counter()
    let computed = UserDefaultTypedKey<Int>("computedLimit", default: { counter.next() })
    print("\(store[limit(10)]) \(store[limit(20)]) \(store[computed]) \(store[computed]) \(store[limit(30)])")
    exit(0)
case "first":
    guard arguments.count == 3 else { fail("first OPERATION SUITE") }
    FirstCall.run(arguments[1], suite: arguments[2])
    exit(0)
case "main-actor-write":
    // Observes on the main actor, then writes on the main thread (top-level code runs there): prints what
    // the observer had seen right after each write, before anything else runs.
    let store = DefaultsStore(storage: InMemoryStorage())
    var seen: [Int] = []
    let token = store.observe(Fixture.count, isolation: MainActor.shared) { seen.append($0.newValue) }
    store[Fixture.count] = 1
    print("after first write: \(seen)")
    store[Fixture.count] = 2
    print("after second write: \(seen)")
    token.cancel()
    exit(0)
case "read-archives":
    // One archive a line on stdin, in hexadecimal; each read as every archived kind, then "ok" printed.
    let store = DefaultsStore(storage: InMemoryStorage())
    let url = UserDefaultTypedKey<URL?>("url")
    while let line = readLine() {
        var bytes: [UInt8] = []
        var digits = line.utf8.makeIterator()
        while let high = digits.next(), let low = digits.next() {
            bytes.append(UInt8(String(decoding: [high, low], as: UTF8.self), radix: 16) ?? 0)
        }
        store.storage.set(Data(bytes), forKey: "swatch")
        store.storage.set(Data(bytes), forKey: "swatches")
        store.storage.set(Data(bytes), forKey: url.name)
        _ = (store[.swatch], store[.swatches], store[url])
        say("ok")
    }
    exit(0)
case "plain-read":
    let defaults = UserDefaults(suiteName: arguments[1])!
    for name in arguments.dropFirst(2) { print(defaults.object(forKey: name) ?? "nil") }
    exit(0)
default:
    break
}

/// `stream` and `plain-stream`: writes PREFIX0, PREFIX1, ... at RATE a second with `write`, printing each
/// index `write` says is written, until killed or a line on stdin says stop (then it returns).
func stream(_ write: (String, Int) -> Bool) {
    guard arguments.count == 4, let rate = Double(arguments[3]), rate > 0 else { fail("stream SUITE PREFIX RATE") }
    say("ready")
    _ = readLine()
    let stop = Events()
    Thread {
        _ = readLine()
        stop.append("stop")
    }.start()
    let start = Date()
    var index = 0
    while stop.all.isEmpty {
        if write("\(arguments[2])\(index)", index) { say("\(index)") }
        index += 1
        let next = start.addingTimeInterval(Double(index) / rate)
        if next.timeIntervalSinceNow > 0 { Thread.sleep(until: next) }
    }
}

// Plain Foundation only: the library is not loaded into the suite at all.
if arguments[0] == "plain-stream", let plain = UserDefaults(suiteName: arguments[1]) {
    stream { name, index in
        plain.set(index, forKey: name)
        return plain.synchronize()
    }
    exit(0)
}

guard let store = DefaultsStore(suiteName: arguments[1]) else {
    print("no store")
    exit(3)
}

switch arguments[0] {
case "write":
    if arguments.count > 2, arguments[2] == "busy-wait" {
        // What an app may do with the global queues: 64 blocked items and two that never yield.
        let never = DispatchSemaphore(value: 0)
        for _ in 0..<64 { DispatchQueue.global(qos: .utility).async { never.wait() } }
        for _ in 0..<2 {
            DispatchQueue.global(qos: .utility).async {
                var spin = 0
                while true { spin &+= 1 }
            }
        }
    }
    Fixture.write(to: store)
    switch arguments.count > 2 ? arguments[2] : "return" {
    case "exit":
        exit(0)
    case "wait", "busy-wait":
        say("written")
        _ = readLine()  // the test kills the process while it waits here
    default:
        break  // return from main
    }
case "dump":
    Fixture.dump(store)
case "burst":
    guard arguments.count == 4, let total = Int(arguments[3]) else { fail("burst SUITE PREFIX COUNT") }
    say("ready")
    _ = readLine()
    for index in 0..<total {
        store[UserDefaultTypedKey<Int>("\(arguments[2])\(index)", defaultValue: -1)] = index
        do {
            try store.flush()
        } catch {
            fail("\(error)")
        }
    }
case "stream":
    stream { name, index in
        store[UserDefaultTypedKey<Int>(name, defaultValue: -1)] = index
        return true
    }
case "count":
    guard arguments.count >= 3 else { fail("count SUITE PREFIX...") }
    let snapshot = store.snapshot()
    for prefix in arguments.dropFirst(2) {
        print(snapshot.filter { name, value in name.hasPrefix(prefix) && "\(prefix)\(value)" == name }.count)
    }
case "flush", "chdir-flush":
    if arguments[0] == "chdir-flush" {
        // The suite is in use, then the process changes its working directory.
        _ = store[Fixture.count]
        guard arguments.count == 3, FileManager.default.changeCurrentDirectoryPath(arguments[2]) else {
            fail("chdir-flush SUITE DIRECTORY")
        }
    }
    store[Fixture.count] = 1
    do {
        try store.flush()
        print("flushed")
    } catch {
        print("error: \(error)")
        exit(1)
    }
case "two":
    // Writes to two suites and flushes each: a failure of one is its own.
    guard arguments.count == 3, let other = DefaultsStore(suiteName: arguments[2]) else { fail("two SUITE SUITE") }
    for (name, suite) in [(arguments[1], store), (arguments[2], other)] {
        suite[Fixture.count] = 5
        do {
            try suite.flush()
            print("\(name): flushed")
        } catch {
            print("\(name): error: \(error)")
        }
    }
case "watch":
    // Reads "count" through every path, observes it, and reports what it sees at each "check" line.
    let events = Events()
    let wrapper = UserDefault(Fixture.count, store: store)
    let token = store.observe(Fixture.count) { change in
        events.append("callback \(change.oldValue)->\(change.newValue)")
    }
    // Detached: top-level code runs on the main actor, whose thread waits for input below.
    let updates = Task.detached {
        for await value in store.updates(Fixture.count) { events.append("update \(value)") }
    }
    guard events.wait(for: "update \(store[Fixture.count])") else { fail("updates gave no first value") }
    say("ready")
    while let line = readLine(), line != "quit" {
        if line.hasPrefix("write ") {
            store[Fixture.count] = Int(line.dropFirst(6)) ?? -1
            say("wrote")
        } else if line == "remove" {
            store.remove(Fixture.count)
            say("removed")
        } else {
            let snapshot = store.snapshot()["count"].map { "\($0)" } ?? "none"
            say(
                "read=\(store[Fixture.count]) wrapper=\(wrapper.wrappedValue) hasKey=\(store.hasKey(Fixture.count)) "
                    + "snapshot=\(snapshot) events=\(events.all.joined(separator: ",")) "
                    + "marker=\(store.snapshot()["marker"].map { "\($0)" } ?? "none")")
        }
    }
    token.cancel()
    updates.cancel()
case "modify":
    guard arguments.count == 3, let total = Int(arguments[2]) else { fail("modify SUITE COUNT") }
    say("ready")
    _ = readLine()
    for _ in 0..<total {
        do {
            try store.modify(Fixture.count) { $0 += 1 }
        } catch {
            fail("\(error)")
        }
    }
case "set-on-line":
    guard arguments.count == 3 else { fail("set-on-line SUITE NAME") }
    let key = UserDefaultTypedKey<Int>(arguments[2], defaultValue: 0)
    _ = store[key]
    say("ready")
    _ = readLine()
    store[key] = 1
    do {
        try store.flush()
    } catch {
        fail("\(error)")
    }
    say("saved")
case "no-inotify":
    // Takes every inotify instance this user may have, then uses the suite (Linux: the saver's watch).
    #if os(Linux)
        var taken: [Int32] = []
        while true {
            let descriptor = inotify_init1(0)
            if descriptor < 0 { break }
            taken.append(descriptor)
        }
        print("count=\(store[Fixture.count]) taken=\(taken.count > 0)")
    #else
        fail("no-inotify: Linux only")
    #endif
case "exit-in-modify":
    Fixture.write(to: store)
    _ = try? store.modify(UserDefaultTypedKey<Int>("modified", defaultValue: 0)) { _ in exit(0) }
case "sigint":
    signal(SIGINT) { _ in exit(0) }
    // A child inherits its parent's blocked signals, and the tests start probes from threads that block them.
    var interrupt = sigset_t()
    sigemptyset(&interrupt)
    sigaddset(&interrupt, SIGINT)
    pthread_sigmask(SIG_UNBLOCK, &interrupt, nil)
    var step = 0
    while true {
        step += 1
        Fixture.write(to: store)
        store[UserDefaultTypedKey<Int>("step", defaultValue: 0)] = step
        try? store.flush()
        // Ready once the loop runs: the signal lands in the middle of writes and saves.
        if step == 20 { say("ready") }
    }
case "args":
    print("count=\(store[UserDefaultTypedKey<Int>("count", defaultValue: 0)])")
    print("small=\(store[UserDefaultTypedKey<Int8>("small", defaultValue: 0)])")
    print("verbose=\(store[UserDefaultTypedKey<Bool>("verbose", defaultValue: false)])")
    print("ratio=\(store[UserDefaultTypedKey<Double>("ratio", defaultValue: 0)])")
    print("scale=\(store[UserDefaultTypedKey<Float>("scale", defaultValue: 0)])")
    print("name=\(store[UserDefaultTypedKey<String>("name", defaultValue: "")])")
    print("site=\(store[UserDefaultTypedKey<URL?>("site")]?.absoluteString ?? "nil")")
    print("when=\(store[UserDefaultTypedKey<Date?>("when")].map { String($0.timeIntervalSince1970) } ?? "nil")")
    print("theme=\(store[Fixture.theme].rawValue)")
    print("list=\(store[UserDefaultTypedKey<[String]>("list", defaultValue: [])])")
    print("map=\(store[UserDefaultTypedKey<[String: Int]>("map", defaultValue: [:])].sorted { $0.key < $1.key })")
    print("stored=\(store.snapshot().keys.sorted())")
case "remove":
    DefaultsStore.removeSuite(named: arguments[1])
default:
    fail("unknown command \(arguments[0])")
}
