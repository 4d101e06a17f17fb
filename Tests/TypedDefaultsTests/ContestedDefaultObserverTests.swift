import Foundation
import Testing
import TypedDefaults

/// Two keys of one name with different defaults (an `Int` key and an enum key whose raw value is an
/// `Int`: no conflict, each reads its own default). `UserDefaults` registers a name's default once for
/// the whole process, the first key's, shared by every suite: where nothing is stored, the storage reads
/// that default. Each observer hears what its key's reads give: its own default for nothing stored.
/// Before, an observer of the second key heard the first key's default as the initial value and as the
/// old value of the first write (`[1, 1, …]` where reads gave 0, then 1), and a removal was not heard.
@Suite("An observer hears its own key's default where another key of the name registered another")
struct ContestedDefaultObserverTests {
    /// Pairs (old, new) an observer heard.
    private static func observe(
        _ key: UserDefaultTypedKey<Int>, in store: DefaultsStore, into heard: Recorder<[Int]>
    ) -> ObservationToken {
        store.observe(key, initial: true) { heard.append([$0.oldValue, $0.newValue]) }
    }

    /// Both keys in one store: the enum key binds the name first (its default, raw value 1, is the
    /// registered one); the `Int` key's observer starts, is written, and is removed.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func inOneStore(_ backend: Backend) {
        withStore(backend) { store in
            let name = "contested\(UUID().uuidString.prefix(8))"
            let level = UserDefaultTypedKey<Level>(name, defaultValue: .low)
            let count = UserDefaultTypedKey<Int>(name, defaultValue: 0)
            #expect(store[level] == .low)
            #expect(store[count] == 0)
            let heard = Recorder<[Int]>()
            let token = Self.observe(count, in: store, into: heard)
            defer { token.cancel() }
            store[count] = 1
            store.remove(count)
            store[count] = 2
            #expect(heard.waitForCount(4))
            #expect(heard.all == [[0, 0], [0, 1], [1, 0], [0, 2]])
            #expect(store[count] == 2)
            #expect(store[level] == .high)
        }
    }

    /// The keys in two suites, as two parts of an app may declare them: the first suite's key registers
    /// the name's default for the process; the second suite's observer hears its own default, and the
    /// second suite's values as its reads give them. `updates` starts from the same value.
    @Test(.timeLimit(.minutes(1))) func inTwoSuites() async {
        let name = "contested\(UUID().uuidString.prefix(8))"
        await withStore(.userDefaultsSuite) { firstStore in
            #expect(firstStore[UserDefaultTypedKey<Level>(name, defaultValue: .low)] == .low)
            await withStore(.userDefaultsSuite) { store in
                let count = UserDefaultTypedKey<Int>(name, defaultValue: 0)
                let heard = Recorder<[Int]>()
                let token = Self.observe(count, in: store, into: heard)
                defer { token.cancel() }
                var values = store.updates(count).makeAsyncIterator()
                #expect(await values.next() == 0)
                store[count] = 1
                #expect(await values.next() == 1)
                store.remove(count)
                #expect(await values.next() == 0)
                #expect(heard.waitForCount(3))
                #expect(heard.all == [[0, 0], [0, 1], [1, 0]])
                #expect(store[count] == 0)
            }
        }
    }
}
