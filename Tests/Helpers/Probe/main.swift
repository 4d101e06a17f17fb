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
//   typed-defaults-probe main-actor-write-after-await - the same from a main-actor task after it has waited
//   typed-defaults-probe main-actor-clamp -             two main-actor observers, one writing back; print what
//                                                       each heard and what is stored
//   typed-defaults-probe read-archives -                for each line on stdin (an archive in hexadecimal), read
//                                                       it as a swatch, swatches and a URL, then print "ok"
//   typed-defaults-probe fingerprints SUITE [write]     print each stored name and its value's fingerprint
//                                                       (with write: first write "touched" and save)
//   typed-defaults-probe write-int SUITE COUNT          write one Int key COUNT times (the write's journey,
//                                                       measured under callgrind)
//   typed-defaults-probe read-int SUITE COUNT [promised] read one Int key COUNT times (promised: through a
//                                                       store made with writers: .onlyTypedDefaults)
//   typed-defaults-probe app-keys SUITE bind|read       an app's keys of every kind (AppKeys.swift): use each
//                                                       and save (its key manifest), or print what each reads
//   typed-defaults-probe app-keys SUITE launch N [new-key]
//                                                       one launch of an app with ten families and a per-item
//                                                       key (members named after N), and a new key; save
//   typed-defaults-probe app-keys SUITE helper          use twelve keys made by one helper function; save
//   typed-defaults-probe handler-reads SUITE            an error handler that writes SUITE ("-": Defaults), set
//                                                       before its first use; print "handled N", "count N",
//                                                       "done" (a hang: "hung" and exit 9 after 20 s)
//   typed-defaults-probe plain-persistent-domain SUITE [promise]
//                                                       write and read "plainWritten" through a store (with
//                                                       the promise of only library writes), replace the
//                                                       suite with the plain setPersistentDomain, print
//                                                       "before N", then "read N, plain N, broken [...]"
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
// Each of these ends the process when it returns.
if let command = commandsWithoutStore[arguments[0]] {
    command(arguments)
    exit(0)
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

guard let command = storeCommands[arguments[0]] else { fail("unknown command \(arguments[0])") }
command(store, arguments)
