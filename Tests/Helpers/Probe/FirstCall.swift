import Foundation
import TypedDefaults

/// `first OPERATION SUITE`: one public operation as the first call a process makes of the library, then
/// what every read path sees. `seed` stores count = 7 and other = 3 and saves them; `read` only reads.
/// Prints `saw=…` where the operation gives something, then
/// `count=… other=… migrated=… has=… plain=…`, and saves before it exits.
enum FirstCall {
    static let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
    static let other = UserDefaultTypedKey<Int>("other", defaultValue: 0)
    static let migrated = UserDefaultTypedKey<Int>("migrated", defaultValue: 0)

    static func run(_ operation: String, suite: String) {
        guard let store = suite == "-" ? DefaultsStore.standard : DefaultsStore(suiteName: suite) else {
            fail("no store for \(suite)")
        }
        var tokens: [ObservationToken] = []
        switch operation {
        case "seed":
            store[count] = 7
            store[other] = 3
        case "read": break
        case "snapshot": print("saw=\(store.snapshot()["count"].map { "\($0)" } ?? "none")")
        case "hasKey": print("saw=\(store.hasKey(count))")
        case "remove": store.remove(other)
        case "removeAll": store.removeAll()
        case "removeAllExcept": store.removeAll(except: count)
        case "migrate": print("saw=\(store.migrate(from: "other", to: migrated))")
        case "modify": print("saw=\((try? store.modify(count) { $0 += 1 }).map { "\($0)" } ?? "error")")
        case "observe": tokens.append(store.observe(count) { _ in })
        case "updates": print("saw=\(firstUpdate(of: store))")
        case "trackChangesElsewhere": store.trackChangesElsewhere(of: count)
        case "sync": store.sync(count)
        case "flush": print("saw=\((try? store.flush()) == nil ? "error" : "flushed")")
        case "removeSuite": DefaultsStore.removeSuite(named: suite)
        default: fail("unknown first call \(operation)")
        }
        let plain = suite == "-" ? UserDefaults.standard : UserDefaults(suiteName: suite)!
        print(
            "count=\(store[count]) other=\(store[other]) migrated=\(store[migrated]) has=\(store.hasKey(count)) "
                + "plain=\(plain.object(forKey: "count").map { "\($0)" } ?? "nil")")
        do {
            try store.flush()
        } catch {
            fail("\(error)")
        }
        for token in tokens { token.cancel() }
    }

    /// The first value `updates` gives, waited for at most ten seconds.
    private static func firstUpdate(of store: DefaultsStore) -> String {
        let seen = Events()
        let task = Task.detached {
            for await value in store.updates(count) {
                seen.append("\(value)")
                break
            }
        }
        defer { task.cancel() }
        let deadline = Date(timeIntervalSinceNow: 10)
        while seen.all.isEmpty, Date() < deadline { usleep(1_000) }
        return seen.all.first ?? "nothing"
    }
}
