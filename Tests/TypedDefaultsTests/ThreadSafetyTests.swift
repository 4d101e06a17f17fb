import Foundation
import Testing
import TypedDefaults

@Suite("Many threads, one store")
struct ThreadSafetyTests {
    /// 100,000 operations in the long run (`runsLongTests`), 40,000 in `swift test`.
    @Test(arguments: Backend.allCases)
    func eightThreadsOverlappingKeysLoseNoWrite(_ backend: Backend) {
        withStore(backend) { store in
            let threads = 8
            let operationsPerThread = (runsLongTests ? 100_000 : 40_000) / threads
            let keyCount = 16
            let keys = (0..<keyCount).map { UserDefaultTypedKey<Int>("shared\($0)", defaultValue: -1) }
            let done = DispatchGroup()
            for thread in 0..<threads {
                done.enter()
                Thread.detachNewThread {
                    for operation in 0..<operationsPerThread {
                        let key = keys[(operation / 2) % keyCount]
                        if operation.isMultiple(of: 2) {
                            store[key] = thread * 1_000_000 + operation
                        } else {
                            _ = store[key]
                        }
                    }
                    done.leave()
                }
            }
            done.wait()
            for (index, key) in keys.enumerated() {
                let value = store[key]
                let thread = value / 1_000_000
                let operation = value % 1_000_000
                // The value is one a thread wrote to this very key.
                #expect((0..<threads).contains(thread) && operation.isMultiple(of: 2))
                #expect((operation / 2) % keyCount == index, "key \(index) holds \(value)")
            }
        }
    }
}
