import Foundation
import ProbeSettings
import TypedDefaults

// The commands that work through a store of the suite, one function each (the usage is in main.swift).

/// Each command by its name.
@MainActor let storeCommands: [String: @MainActor (DefaultsStore, [String]) -> Void] = [
    "write": writeCommand,
    "dump": dumpCommand,
    "burst": burstCommand,
    "stream": streamCommand,
    "count": countCommand,
    "flush": flushCommand,
    "chdir-flush": flushCommand,
    "two": twoCommand,
    "watch": watchCommand,
    "modify": modifyCommand,
    "set-on-line": setOnLineCommand,
    "no-inotify": noInotifyCommand,
    "exit-in-modify": exitInModifyCommand,
    "sigint": sigintCommand,
    "args": argsCommand,
    "kept-args": keptArgsCommand,
    "kept-sync": keptSyncCommand,
    "remove": removeCommand,
    "fingerprints": fingerprintsCommand,
    "app-keys": appKeysCommand,
    "write-int": writeIntCommand,
    "read-int": readIntCommand,
]

/// Reads one `Int` key COUNT times, through a store that promises only typed writes when asked (the
/// cached read's journey, as `.ci/check-journey`'s figures measure it).
@MainActor private func readIntCommand(_ store: DefaultsStore, _ arguments: [String]) {
    guard arguments.count >= 3, let count = Int(arguments[2]) else { fail("read-int SUITE COUNT [promised]") }
    let reader = arguments.count > 3 ? DefaultsStore(suiteName: arguments[1], writers: .onlyTypedDefaults)! : store
    let key = UserDefaultTypedKey<Int>("journey", defaultValue: 0)
    var total = 0
    for _ in 0..<count { total &+= reader[key] }
    print("total=\(total)")
}

/// Writes one `Int` key COUNT times (the journey of a typed write, as `.ci/check-journey` measures it).
@MainActor private func writeIntCommand(_ store: DefaultsStore, _ arguments: [String]) {
    guard arguments.count == 3, let count = Int(arguments[2]) else { fail("write-int SUITE COUNT") }
    let key = UserDefaultTypedKey<Int>("journey", defaultValue: 0)
    for index in 0..<count { store[key] = index }
}

@MainActor private func writeCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
        return  // return from main
    }
}

@MainActor private func dumpCommand(_ store: DefaultsStore, _ arguments: [String]) {
    Fixture.dump(store)
}

@MainActor private func burstCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func streamCommand(_ store: DefaultsStore, _ arguments: [String]) {
    stream { name, index in
        store[UserDefaultTypedKey<Int>(name, defaultValue: -1)] = index
        return true
    }
}

@MainActor private func countCommand(_ store: DefaultsStore, _ arguments: [String]) {
    guard arguments.count >= 3 else { fail("count SUITE PREFIX...") }
    let snapshot = store.snapshot()
    for prefix in arguments.dropFirst(2) {
        print(snapshot.filter { name, value in name.hasPrefix(prefix) && "\(prefix)\(value)" == name }.count)
    }
}

@MainActor private func flushCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func twoCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func watchCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func modifyCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func setOnLineCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func noInotifyCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func exitInModifyCommand(_ store: DefaultsStore, _ arguments: [String]) {
    Fixture.write(to: store)
    _ = try? store.modify(UserDefaultTypedKey<Int>("modified", defaultValue: 0)) { _ in exit(0) }
}

@MainActor private func sigintCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

@MainActor private func argsCommand(_ store: DefaultsStore, _ arguments: [String]) {
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
}

/// A store that keeps reads (`writers: .onlyTypedDefaults`) over the suite, for a name also given as a
/// launch argument (`-count N`): after each step (a first read, a write through the library, a removal)
/// prints what two reads through the key give, what Foundation's read gives, and what the suite stores.
@MainActor private func keptArgsCommand(_ store: DefaultsStore, _ arguments: [String]) {
    guard let kept = DefaultsStore(suiteName: arguments[1], writers: .onlyTypedDefaults),
        let plain = UserDefaults(suiteName: arguments[1])
    else { fail("no store for \(arguments[1])") }
    let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
    func step(_ label: String) {
        let reads = [kept[count], kept[count]]
        print(
            "\(label): reads=\(reads) plain=\(plain.object(forKey: "count").map { "\($0)" } ?? "nil")"
                + " stored=\(kept.snapshot()["count"].map { "\($0)" } ?? "nil")")
    }
    step("first")
    kept[count] = 5
    step("written")
    kept.remove(count)
    step("removed")
}

/// A store that keeps reads (`writers: .onlyTypedDefaults`) reads NAME (0), then waits for a line; meanwhile
/// another process saves NAME = 1. On the line it calls `synchronize()`, which brings the save into
/// Foundation's memory before the watcher does (run with `TYPED_DEFAULTS_TEST_WATCHER_DELAY`), prints
/// what Foundation and the kept read give then, and reads until the kept read gives 1 (the watcher's
/// bring-in found memory already holding the value, and must still move the generation), up to a deadline.
@MainActor private func keptSyncCommand(_ store: DefaultsStore, _ arguments: [String]) {
    guard arguments.count == 3, let kept = DefaultsStore(suiteName: arguments[1], writers: .onlyTypedDefaults),
        let plain = UserDefaults(suiteName: arguments[1])
    else { fail("kept-sync SUITE NAME") }
    let key = UserDefaultTypedKey<Int>(arguments[2], defaultValue: 0)
    // Twice: the first read binds the name (its registration moves the generation, so nothing is kept
    // from it); the second keeps its value.
    print("first: kept=\([kept[key], kept[key]])")
    say("ready")
    _ = readLine()
    plain.synchronize()
    print("synchronized: plain=\(plain.object(forKey: arguments[2]).map { "\($0)" } ?? "nil") kept=\(kept[key])")
    let deadline = Date(timeIntervalSinceNow: 30)
    while kept[key] != 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
    print("after the watcher: kept=\([kept[key], kept[key], kept[key]])")
}

@MainActor private func removeCommand(_ store: DefaultsStore, _ arguments: [String]) {
    DefaultsStore.removeSuite(named: arguments[1])
}

/// Prints each stored name with the fingerprint of its value (`propertyListFingerprint`), sorted; with
/// `write`, first writes "touched" and saves, so that the suite's file is written again.
@MainActor private func fingerprintsCommand(_ store: DefaultsStore, _ arguments: [String]) {
    if arguments.count > 2, arguments[2] == "write" {
        store[UserDefaultTypedKey<Int>("touched", defaultValue: 0)] = 1
        do {
            try store.flush()
        } catch {
            fail("\(error)")
        }
    }
    for (name, value) in store.snapshot().sorted(by: { $0.key < $1.key }) {
        print("\(name) \(propertyListFingerprint(value))")
    }
}
