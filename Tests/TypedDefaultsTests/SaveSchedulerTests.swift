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
#endif
