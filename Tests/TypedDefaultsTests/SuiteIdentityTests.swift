import Foundation
import Testing
import TypedDefaults

/// One suite, one engine: however a store over a suite is made, it shares the suite's observers,
/// `modify`'s lock and saving.
@Suite("One suite, one set of observers and one saver, however the store was made")
struct SuiteIdentityTests {
    @Test func aStoreOverTheStandardUserDefaultsIsDefaults() {
        let key = UserDefaultTypedKey<Int>("identity.\(UUID().uuidString)", defaultValue: 0)
        defer { Defaults.remove(key) }
        let heard = Recorder<Int>()
        let token = Defaults.observe(key) { heard.append($0.newValue) }
        DefaultsStore(storage: UserDefaults.standard)[key] = 3
        #expect(heard.all == [3])
        token.cancel()
    }

    #if os(Linux)
        @Test func aStoreMadeFromAUserDefaultsSharesTheSuitesObserversAndLock() throws {
            try withSuite { suite, store in
                let made = DefaultsStore(storage: try #require(UserDefaults(suiteName: suite)))
                let count = UserDefaultTypedKey<Int>("count", defaultValue: 0)
                let heard = Recorder<Int>()
                let token = store.observe(count) { heard.append($0.newValue) }
                made[count] = 1
                try made.flush()
                #expect(heard.all == [1])
                // One lock: increments through both never lose one another.
                DispatchQueue.concurrentPerform(iterations: 4) { index in
                    let through = index.isMultiple(of: 2) ? store : made
                    for _ in 0..<100 { _ = try? through.modify(count) { $0 += 1 } }
                }
                #expect(store[count] == 401)
                token.cancel()
            }
        }

        @Test func removingASuiteDropsTheUnsavedWritesOfEveryStoreOverIt() throws {
            let suite = uniqueSuiteName()
            let file = testConfigHome.appendingPathComponent(suite + ".plist")
            let made = DefaultsStore(storage: try #require(UserDefaults(suiteName: suite)))
            made[UserDefaultTypedKey<Int>("count", defaultValue: 0)] = 1
            DefaultsStore.removeSuite(named: suite)
            // The removed value must not come back with the next save (nor at exit, which saves the same way).
            made[UserDefaultTypedKey<Int>("other", defaultValue: 0)] = 2
            try made.flush()
            let saved = try #require(propertyList(at: file))
            #expect(saved["count"] == nil)
            #expect(saved["other"] as? Int == 2)
            DefaultsStore.removeSuite(named: suite)
            #expect(!FileManager.default.fileExists(atPath: file.path))
        }
    #endif
}
