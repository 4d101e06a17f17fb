import Foundation
import Testing
import TypedDefaults

@Suite("Migration, snapshot and removeAll")
struct ManagementTests {
    @Test(arguments: Backend.allCases)
    func migrateMovesAndConvertsAnOldValue(_ backend: Backend) {
        withStore(backend) { store in
            store.storage.set("12", forKey: "kLaunchCount")
            #expect(store.migrate(from: "kLaunchCount", to: .launchCount))
            #expect(store[.launchCount] == 12)
            #expect(store.storage.object(forKey: "launchCount") as? Int == 12)
            #expect(store.storage.object(forKey: "kLaunchCount") == nil)
            // Safe on every launch: a second call finds nothing to move.
            #expect(!store.migrate(from: "kLaunchCount", to: .launchCount))
            #expect(store[.launchCount] == 12)
        }
    }

    @Test(arguments: Backend.allCases)
    func migrateNeverOverwritesAStoredValue(_ backend: Backend) {
        withStore(backend) { store in
            store[.theme] = .light
            store.storage.set("dark", forKey: "old_theme")
            #expect(!store.migrate(from: "old_theme", to: .theme))
            #expect(store[.theme] == .light)
            #expect(store.storage.object(forKey: "old_theme") as? String == "dark")
        }
    }

    @Test(arguments: Backend.allCases)
    func migrateLeavesAnUnreadableOldValueWhereItIs(_ backend: Backend) {
        withStore(backend) { store in
            store.storage.set("purple", forKey: "old_theme")
            #expect(!store.migrate(from: "old_theme", to: .theme))
            #expect(store[.theme] == .system)
            #expect(!store.hasKey(.theme))
            #expect(store.storage.object(forKey: "old_theme") as? String == "purple")
        }
    }

    @Test(arguments: Backend.allCases)
    func snapshotListsStoredValuesWithoutRegisteredDefaults(_ backend: Backend) {
        withStore(backend) { store in
            _ = store[.theme]  // registers the default
            store[.launchCount] = 4
            store[.recent] = ["a"]
            store[.profile] = Profile(name: "Ada", age: 36)
            let snapshot = store.snapshot()
            #expect(snapshot.keys.sorted() == ["launchCount", "profile", "recent"])
            #expect(snapshot["launchCount"] as? Int == 4)
            #expect(snapshot["recent"] as? [String] == ["a"])
            #expect(snapshot["profile"] as? String == #"{"age":36,"name":"Ada"}"#)
        }
    }

    @Test(arguments: Backend.allCases)
    func removeAllRemovesValuesUnderThePrefixAndKeepsDefaults(_ backend: Backend) {
        withStore(backend) { store in
            let prefixed = DefaultsStore(storage: store.storage, keyPrefix: "p.")
            store[.launchCount] = 1
            prefixed[.launchCount] = 2
            prefixed[.theme] = .dark
            prefixed.removeAll()
            #expect(prefixed[.launchCount] == 0)
            #expect(prefixed[.theme] == .system)
            #expect(prefixed.snapshot().isEmpty)
            #expect(store[.launchCount] == 1)
            store.removeAll()
            #expect(store.snapshot().isEmpty)
            #expect(store[.launchCount] == 0)
        }
    }
}

@Suite("Old names without keys")
struct OldNameTests {
    /// A migration reads, moves and removes an old name through the store: observers hear it, and on
    /// Linux it is saved (a plain process reads the result). Through the plain API the store's observers
    /// heard nothing, and on Linux the removal was never saved.
    @Test func oldNamesAreReadMovedAndRemovedThroughTheStore() throws {
        try withSuite { suite, store in
            let plain = try #require(UserDefaults(suiteName: suite))
            plain.set(5, forKey: "kOld")
            plain.set("x", forKey: "kGone")
            let heard = Recorder<String>()
            let token = store.observe(UserDefaultTypedKey<String?>("kGone")) { heard.append("\($0.newValue ?? "nil")") }
            defer { token.cancel() }
            #expect(store.object(forName: "kOld") as? Int == 5)
            #expect(store.moveObject(fromName: "kOld", toName: "newCount"))
            #expect(!store.moveObject(fromName: "kOld", toName: "newCount"))
            #expect(store[UserDefaultTypedKey<Int>("newCount", defaultValue: 0)] == 5)
            store.removeObject(forName: "kGone")
            #expect(heard.all == ["nil"])
            #expect(store.object(forName: "kOld") == nil && store.object(forName: "kGone") == nil)
            try store.flush()
            #if os(Linux)
                let saved = try ProbeProcess.run(["plain-read", suite, "kOld", "kGone", "newCount"]).lines
                #expect(saved == ["nil", "nil", "5"])
            #endif
        }
    }
}
