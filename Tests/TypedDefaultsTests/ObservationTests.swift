import Foundation
import Testing
import TypedDefaults

@Suite("Observing changes")
struct ObservationTests {
    @Test(arguments: Backend.allCases)
    func everyChangeFiresOnceWithOldAndNewValueInOrder(_ backend: Backend) {
        withStore(backend) { store in
            let changes = Recorder<String>()
            let token = store.observe(.launchCount) { changes.append("\($0.oldValue)→\($0.newValue)") }
            store[.launchCount] = 1
            store[.launchCount] += 1
            store.remove(.launchCount)
            store[.launchCount] = 0
            #expect(changes.all == ["0→1", "1→2", "2→0", "0→0"])
            token.cancel()
        }
    }

    @Test(arguments: Backend.allCases)
    func nilAssignmentRemoveAllAndMigrateAreChangesToo(_ backend: Backend) {
        withStore(backend) { store in
            let names = Recorder<String>()
            let theme = store.observe(.theme) { names.append("theme \($0.oldValue)→\($0.newValue)") }
            let user = store.observe(.username) { names.append("user \($0.oldValue ?? "nil")→\($0.newValue ?? "nil")") }
            store[.username] = "ada"
            store[.username] = nil
            store.storage.set("dark", forKey: "legacy_theme")
            store.migrate(from: "legacy_theme", to: .theme)
            store.removeAll()
            #expect(names.all == ["user nil→ada", "user ada→nil", "theme system→dark", "theme dark→system"])
            _ = (theme, user)
        }
    }

    @Test func changesThroughAnotherStoreOrKeyObjectOfTheSameNameAreSeen() throws {
        try withSuite { suiteName, observed in
            let other = try #require(DefaultsStore(suiteName: suiteName))
            let values = Recorder<Int>()
            let token = observed.observe(.launchCount) { values.append($0.newValue) }
            other[.launchCount] = 4
            other[UserDefaultTypedKey<Int>("launchCount", defaultValue: 0)] = 5
            // A store over another suite, or with another prefix, is another name.
            DefaultsStore(suiteName: suiteName, keyPrefix: "x.")?[.launchCount] = 6
            #expect(values.all == [4, 5])
            token.cancel()
        }
    }

    @Test func theCallbackRunsOnTheWritingThreadAfterTheValueIsReadable() {
        withStore(.userDefaultsSuite) { store in
            let writerName = "writer-\(UUID().uuidString)"
            let seen = Recorder<String>()
            let token = store.observe(.launchCount) { change in
                seen.append(
                    "\(Thread.current.threadDictionary["name"] as? String == writerName) \(store[.launchCount] == change.newValue)"
                )
            }
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                Thread.current.threadDictionary["name"] = writerName
                store[.launchCount] = 7
                done.signal()
            }
            done.wait()
            #expect(seen.all == ["true true"])
            token.cancel()
        }
    }

    @Test(arguments: Backend.allCases)
    func aCallbackMayReadAndWriteTheStoreItObserves(_ backend: Backend) {
        withStore(backend) { store in
            let values = Recorder<Int>()
            let token = store.observe(.launchCount) { change in
                values.append(change.newValue)
                // Re-entrant write to the observed key: fires again, no deadlock.
                if change.newValue < 3 { store[.launchCount] = change.newValue + 1 }
                _ = store[.theme]
            }
            store[.launchCount] = 1
            #expect(values.all == [1, 2, 3])
            #expect(store[.launchCount] == 3)
            token.cancel()
        }
    }

    @Test func noCallbackAfterCancelOrRelease() {
        withStore(.inMemory) { store in
            let count = Recorder<Int>()
            let token = store.observe(.launchCount) { count.append($0.newValue) }
            store[.launchCount] = 1
            token.cancel()
            store[.launchCount] = 2
            var released: ObservationToken? = store.observe(.launchCount) { count.append($0.newValue * 100) }
            store[.launchCount] = 3
            released = nil
            store[.launchCount] = 4
            #expect(count.all == [1, 300])
            _ = released
        }
    }

    @Test func aCallbackMayCancelItsOwnToken() {
        withStore(.inMemory) { store in
            let count = Recorder<Int>()
            let holder = Recorder<ObservationToken>()
            holder.append(
                store.observe(.launchCount) { change in
                    count.append(change.newValue)
                    holder.all.first?.cancel()
                })
            store[.launchCount] = 1
            store[.launchCount] = 2
            #expect(count.all == [1])
        }
    }

    @Test func cancelWaitsForACallbackRunningOnAnotherThread() {
        withStore(.inMemory) { store in
            let inCallback = DispatchSemaphore(value: 0)
            let mayFinish = DispatchSemaphore(value: 0)
            let events = Recorder<String>()
            let token = store.observe(.launchCount) { _ in
                inCallback.signal()
                mayFinish.wait()
                events.append("callback ended")
            }
            let writerDone = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                store[.launchCount] = 1
                writerDone.signal()
            }
            inCallback.wait()
            // Let the callback finish only after cancel() has begun waiting for it.
            Thread.detachNewThread { mayFinish.signal() }
            token.cancel()
            events.append("cancel returned")
            writerDone.wait()
            #expect(events.all == ["callback ended", "cancel returned"])
        }
    }

    @Test func twoCallbacksOnTwoThreadsMayCancelEachOther() {
        withStore(.inMemory) { store in
            let first = UserDefaultTypedKey<Int>("first", defaultValue: 0)
            let second = UserDefaultTypedKey<Int>("second", defaultValue: 0)
            let tokens = Recorder<ObservationToken>()
            let firstIn = DispatchSemaphore(value: 0)
            let secondIn = DispatchSemaphore(value: 0)
            // Each callback waits until the other is running too, then cancels the other's observation.
            tokens.append(
                store.observe(first) { _ in
                    firstIn.signal()
                    secondIn.wait()
                    tokens.all[1].cancel()
                })
            tokens.append(
                store.observe(second) { _ in
                    secondIn.signal()
                    firstIn.wait()
                    tokens.all[0].cancel()
                })
            let writers = DispatchGroup()
            for key in [first, second] {
                writers.enter()
                Thread.detachNewThread {
                    store[key] = 1
                    writers.leave()
                }
            }
            // Not a timing assumption: the writers return at once unless they wait for each other forever.
            #expect(writers.wait(timeout: .now() + 30) == .success, "the two callbacks deadlocked")
        }
    }

    @Test func observersComeAndGoWhileManyThreadsWrite() {
        withStore(.userDefaultsSuite) { store in
            let received = Recorder<Int>()
            let done = DispatchGroup()
            for thread in 0..<4 {
                done.enter()
                Thread.detachNewThread {
                    for index in 0..<500 {
                        if thread.isMultiple(of: 2) {
                            store[.launchCount] = index
                        } else {
                            let token = store.observe(.launchCount) { received.append($0.newValue) }
                            if index.isMultiple(of: 2) { token.cancel() }
                        }
                    }
                    done.leave()
                }
            }
            done.wait()
            let final = store[.launchCount]
            #expect(final == 499)
            #expect(received.all.allSatisfy { (0..<500).contains($0) })
        }
    }

    @Test func updatesStartWithTheCurrentValueThenEachChange() async {
        await withStore(.userDefaultsSuite) { store in
            store[.theme] = .light
            var iterator = store.updates(.theme).makeAsyncIterator()
            #expect(await iterator.next() == .light)
            store[.theme] = .dark
            store.remove(.theme)
            #expect(await iterator.next() == .dark)
            #expect(await iterator.next() == .system)
        }
    }

    @Test func theWrappersProjectedValueGivesItsUpdates() async {
        await withStore(.inMemory) { store in
            struct Settings: Sendable {
                @UserDefault<Int> var launchCount: Int
                init(store: DefaultsStore) { _launchCount = UserDefault(.launchCount, store: store) }
            }
            let settings = Settings(store: store)
            // The sequence takes the current value when it is made, before the writes below.
            let stream = settings.$launchCount.updates
            settings.launchCount = 1
            settings.launchCount = 2
            var values: [Int] = []
            for await value in stream {
                values.append(value)
                if values.count == 3 { break }
            }
            #expect(values == [0, 1, 2])
        }
    }
}
