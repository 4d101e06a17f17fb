import Foundation
import ProbeSettings
import TypedDefaults

// The commands that need no store of the suite (plain Foundation, the app's bootstrap, first calls), one
// function each (the usage is in main.swift).

/// Each command by its name.
@MainActor let commandsWithoutStore: [String: @MainActor ([String]) -> Void] = [
    "synchronize": synchronizeCommand,
    "plain": plainCommand,
    "bootstrap": bootstrapCommand,
    "swatches": swatchesCommand,
    "changing-default": changingDefaultCommand,
    "first": firstCommand,
    "main-actor-write": mainActorWriteCommand,
    "main-actor-write-after-await": mainActorWriteAfterAwaitCommand,
    "main-actor-clamp": mainActorClampCommand,
    "read-archives": readArchivesCommand,
    "plain-read": plainReadCommand,
    "read-url": readURLCommand,
    "handler-reads": handlerReadsCommand,
    "plain-persistent-domain": plainPersistentDomainCommand,
]

/// A store of SUITE (with the promise of only library writes, or without) writes and reads "plainWritten",
/// then the plain API replaces the suite's values (`setPersistentDomain`). Prints what the store reads,
/// what a plain read gives, and each promise the debug build reported broken ("name cached"), then removes
/// the suite. In a process of its own: on Linux, Foundation's `setPersistentDomain` synchronizes, which
/// rewrites every domain the process changed (not covered: see Linux.md), so in the tests' process it
/// would rewrite every other test's suite.
@MainActor private func plainPersistentDomainCommand(_ arguments: [String]) {
    let suite = arguments[1]
    let promised = arguments.dropFirst(2).first == "promise"
    let broken = Events()
    ErrorReporting.setHandler { error in
        if case .promiseBroken(let key, let cached, _) = error { broken.append("\(key) \(cached)") }
    }
    guard let store = DefaultsStore(suiteName: suite, writers: promised ? .onlyTypedDefaults : .anyAPI),
        let plain = UserDefaults(suiteName: suite)
    else {
        fail("no store")
    }
    let key = UserDefaultTypedKey<Int>("plainWritten", defaultValue: -1)
    store[key] = 1
    say("before \(store[key])")
    plain.setPersistentDomain(["plainWritten": 3], forName: suite)
    let read = store[key]
    let oracle = (store.storage.object(forKey: "plainWritten") as? Int) ?? -1
    ErrorReporting.waitForQueuedReports()
    say("read \(read), plain \(oracle), broken \(broken.all)")
    DefaultsStore.removeSuite(named: suite)
}

/// An error handler that reads and writes the suite (SUITE "-": `Defaults`), set before the suite's
/// first use, which reports (a folder that cannot be watched, a file refused at launch). Prints
/// "handled N" once every report is handed over, then "done"; a hang ends the probe with 9 after 20 s.
@MainActor private func handlerReadsCommand(_ arguments: [String]) {
    Thread {
        Thread.sleep(forTimeInterval: 20)
        say("hung")
        exit(9)
    }.start()
    let suite = arguments[1]
    @Sendable func store() -> DefaultsStore { suite == "-" ? Defaults : DefaultsStore(suiteName: suite)! }
    let handled = Events()
    let handledCount = UserDefaultTypedKey<Int>("handledCount", defaultValue: 0)
    ErrorReporting.setHandler { error in
        store()[handledCount] += 1
        handled.append("\(error)")
    }
    store()[Fixture.count] = 1
    ErrorReporting.waitForQueuedReports()
    say("handled \(handled.all.count)")
    say("count \(store()[Fixture.count]), handled \(store()[handledCount])")
    say("done")
}

@MainActor private func synchronizeCommand(_ arguments: [String]) {
    // Saves one value the way a plain Foundation program does.
    let defaults = UserDefaults(suiteName: arguments[1])!
    defaults.set(7, forKey: "plain")
    print(defaults.synchronize() ? "synchronized" : "synchronize failed")
}

@MainActor private func plainCommand(_ arguments: [String]) {
    // What a plain Foundation program reads for the fixture's count.
    print("count=\(UserDefaults(suiteName: arguments[1])!.object(forKey: "count") ?? "nil")")
}

@MainActor private func bootstrapCommand(_ arguments: [String]) {
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
}

@MainActor private func swatchesCommand(_ arguments: [String]) {
    let store = DefaultsStore(suiteName: arguments[1])!
    print(store[.swatch].map { "\($0)" } ?? "nil")
    print(store[.swatches].map { "\($0)" }.joined(separator: " "))
    print(store[.swatchesByName].sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))
}

@MainActor private func changingDefaultCommand(_ arguments: [String]) {
    let store = DefaultsStore(suiteName: arguments[1])!
    func limit(_ value: Int) -> UserDefaultTypedKey<Int> { UserDefaultTypedKey("remoteLimit", defaultValue: value) }
    let counter = Counter()
    let computed = UserDefaultTypedKey<Int>("computedLimit", default: { counter.next() })
    print("\(store[limit(10)]) \(store[limit(20)]) \(store[computed]) \(store[computed]) \(store[limit(30)])")
}

@MainActor private func firstCommand(_ arguments: [String]) {
    guard arguments.count == 3 else { fail("first OPERATION SUITE") }
    FirstCall.run(arguments[1], suite: arguments[2])
}

@MainActor private func mainActorWriteCommand(_ arguments: [String]) {
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
}

@MainActor private func mainActorWriteAfterAwaitCommand(_ arguments: [String]) {
    // As main-actor-write, from a main-actor task after it has waited once, as a view model's method in an
    // async program: on Linux the main actor runs off the main thread then.
    Task { @MainActor in
        let store = DefaultsStore(storage: InMemoryStorage())
        var seen: [Int] = []
        let token = store.observe(Fixture.count, isolation: MainActor.shared) { seen.append($0.newValue) }
        // One suspension: after it, an async program's main actor runs off the main thread on Linux
        // (printed, so the test knows it tried that case).
        try? await Task.sleep(nanoseconds: 1_000_000)
        print("main thread: \(isOnMainThread())")
        store[Fixture.count] = 1
        print("after first write: \(seen)")
        store[Fixture.count] = 2
        print("after second write: \(seen)")
        token.cancel()
        exit(0)
    }
    dispatchMain()
}

@MainActor private func mainActorClampCommand(_ arguments: [String]) {
    // Two main-actor observers on the main thread; the first clamps the value by writing back inside its
    // call. Prints what each heard once the write returns, and what the store holds.
    let store = DefaultsStore(storage: InMemoryStorage())
    var clamping: [Int] = []
    var watching: [Int] = []
    let clamp = store.observe(Fixture.count, isolation: MainActor.shared) { change in
        clamping.append(change.newValue)
        if change.newValue > 10 { store[Fixture.count] = 10 }
    }
    let watch = store.observe(Fixture.count, isolation: MainActor.shared) { watching.append($0.newValue) }
    store[Fixture.count] = 20
    print("clamping: \(clamping) watching: \(watching) stored: \(store[Fixture.count])")
    clamp.cancel()
    watch.cancel()
}

@MainActor private func readArchivesCommand(_ arguments: [String]) {
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
}

@MainActor private func plainReadCommand(_ arguments: [String]) {
    let defaults = UserDefaults(suiteName: arguments[1])!
    for name in arguments.dropFirst(2) { print(defaults.object(forKey: name) ?? "nil") }
}

@MainActor private func readURLCommand(_ arguments: [String]) {
    // The URL each stored text after the suite argument reads as, through a store over memory.
    let store = DefaultsStore(storage: InMemoryStorage())
    let key = UserDefaultTypedKey<URL?>("url")
    for text in arguments.dropFirst(2) {
        store.storage.set(text, forKey: "url")
        print(store[key]?.absoluteString ?? "nil")
    }
}

/// `Thread.isMainThread`, which Apple's SDK does not let async code read directly.
private func isOnMainThread() -> Bool { Thread.isMainThread }
