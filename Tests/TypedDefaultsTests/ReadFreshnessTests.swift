import Foundation
import Testing
import TypedDefaults

@Suite("Reads see every change, whoever makes it")
struct ReadFreshnessTests {
    @Test(arguments: Backend.allCases)
    func aKeyReadsChangesMadeThroughTheStorageAndOtherStores(_ backend: Backend) {
        withStore(backend) { store in
            // Registered defaults are process-wide for UserDefaults: a name no other test uses.
            let name = "fresh.\(UUID().uuidString)"
            let key = UserDefaultTypedKey<Int>(name, defaultValue: 1)
            #expect(store[key] == 1)
            store.storage.set(5, forKey: name)
            #expect(store[key] == 5)
            store.storage.set("6", forKey: name)
            #expect(store[key] == 6)
            store.storage.set("six", forKey: name)
            #expect(store[key] == 1)
            store.storage.removeObject(forKey: name)
            store.storage.register(defaults: [name: 9])
            #expect(store[key] == 9)
            DefaultsStore(storage: store.storage)[key] = 3
            #expect(store[key] == 3)
            store[key] = 4
            #expect(store.storage.object(forKey: name) as? Int == 4)
            #expect(store[key] == 4)
        }
    }

    @Test(arguments: Backend.allCases)
    func readersOnOtherThreadsNeverSeeAValueGoBack(_ backend: Backend) {
        final class Shared: @unchecked Sendable {
            let lock = NSLock()
            var writerFinished = false
            var problems: [String] = []
        }
        withStore(backend) { store in
            let key = UserDefaultTypedKey<Int>("sequence", defaultValue: 0)
            let last = 2_000
            let shared = Shared()
            let readersDone = DispatchSemaphore(value: 0)
            for _ in 0..<3 {
                Thread.detachNewThread {
                    var previous = 0
                    while !shared.lock.withLock({ shared.writerFinished }) {
                        let value = store[key]
                        if value < previous {
                            shared.lock.withLock { shared.problems.append("\(previous) then \(value)") }
                        }
                        previous = value
                    }
                    let final = store[key]
                    if final != last { shared.lock.withLock { shared.problems.append("read \(final) at the end") } }
                    readersDone.signal()
                }
            }
            for value in 1...last { store[key] = value }
            shared.lock.withLock { shared.writerFinished = true }
            for _ in 0..<3 { readersDone.wait() }
            #expect(shared.problems.isEmpty)
        }
    }
}
