import Foundation
import Testing
import TypedDefaults

#if os(Linux)
    import Glibc

    @Suite("A suite whose lock another process holds delays only its own saves")
    struct SaveSchedulerTests {
        private let key = UserDefaultTypedKey<Int>("scheduledCount", defaultValue: 0)

        /// Another process holds suite one's file lock (stopped, or in a debugger, mid-save): suite one's
        /// save waits, and suite two's write is saved by the timer as any write is. Before, every
        /// suite's save ran on the one timer thread, so suite two's write waited behind suite one's lock
        /// and was lost by a SIGKILL 0.5 s and more later (3 of 3); here it was never saved while the lock
        /// was held. Suite one's write is saved once the lock is free.
        @Test func anotherSuitesSaveDoesNotWaitForALockedSuite() throws {
            try withSuite(label: "lockedSuite") { lockedSuite, locked in
                try withSuite(label: "freeSuite") { freeSuite, free in
                    locked[key] = 1
                    try locked.flush()
                    // The lock another process would hold: `flock` locks belong to an open file, so a
                    // descriptor of this process's own excludes the saver's.
                    let lockPath = testConfigHome.appendingPathComponent("." + lockedSuite + ".plist.lock").path
                    let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
                    try #require(descriptor >= 0)
                    var held = true
                    func release() {
                        if held { _ = flock(descriptor, LOCK_UN) }
                        held = false
                    }
                    defer {
                        release()
                        close(descriptor)
                    }
                    try #require(flock(descriptor, LOCK_EX) == 0)
                    locked[key] = 2
                    free[key] = 3
                    let freeFile = testConfigHome.appendingPathComponent(freeSuite + ".plist")
                    #expect(
                        pollUntil { propertyList(at: freeFile)?["scheduledCount"] as? Int == 3 },
                        "the free suite's write was not saved while another suite was locked")
                    let lockedFile = testConfigHome.appendingPathComponent(lockedSuite + ".plist")
                    #expect(propertyList(at: lockedFile)?["scheduledCount"] as? Int == 1)
                    release()
                    #expect(
                        pollUntil { propertyList(at: lockedFile)?["scheduledCount"] as? Int == 2 },
                        "the locked suite's write was not saved once the lock was free")
                }
            }
        }
    }

    /// The threads of this process (Foundation on Linux gives a thread no system name to count by).
    private func threadCount() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []).count
    }

    /// Many suites written at once are saved by a few threads. Before, each saver's save started a thread
    /// of its own: 1,000 suites written at once started up to 894 (here, with 300 suites, sampled while
    /// they were saved, 275, 279 and 286 threads more at once in three runs).
    @Suite("Saves run on a bounded number of threads")
    struct SaveThreadTests {
        @Test func threeHundredSuitesWrittenAtOnceAreSavedByAFewThreads() throws {
            let key = UserDefaultTypedKey<Int>("threadBound", defaultValue: 0)
            let suites = (0..<300).map { uniqueSuiteName("threadBound\($0)") }
            defer { suites.forEach(DefaultsStore.removeSuite(named:)) }
            let stores = try suites.map { try #require(DefaultsStore(suiteName: $0)) }
            for store in stores { _ = store[key] }
            let before = threadCount()
            for (index, store) in stores.enumerated() { store[key] = index + 1 }
            var most = before
            let allSaved = pollUntil {
                most = max(most, threadCount())
                return suites.indices.allSatisfy { index in
                    propertyList(at: testConfigHome.appendingPathComponent(suites[index] + ".plist"))?["threadBound"]
                        as? Int == index + 1
                }
            }
            #expect(allSaved)
            // The save threads, and a margin for the threads other tests running meanwhile start.
            #expect(most - before <= 4 + 16, "\(most - before) threads more at once")
        }
    }
#endif
