import Foundation
import Testing
import TypedDefaults

@Suite("Stores and storages nobody holds are freed")
struct StoreLifetimeTests {
    @Test func aStorageIsFreedWithTheLastStoreWrapperAndObservationOverIt() {
        weak var weakStorage: InMemoryStorage?
        do {
            let storage = InMemoryStorage()
            weakStorage = storage
            let store = DefaultsStore(storage: storage)
            store[.launchCount] = 3
            _ = store[.sessions]
            let wrapper = UserDefault(.theme, store: store)
            wrapper.wrappedValue = .dark
            let token = store.observe(.launchCount) { _ in }
            store[.launchCount] = 4
            token.cancel()
            #expect(weakStorage != nil)
        }
        #expect(weakStorage == nil)
    }

    @Test func aNewStoreOverAFreedStoragesAddressStartsClean() {
        // Many short-lived storages: an address may be reused, and must not find another's state.
        for round in 0..<200 {
            let store = DefaultsStore(storage: InMemoryStorage())
            #expect(store[.launchCount] == 0, "round \(round)")
            #expect(store.snapshot().isEmpty, "round \(round)")
            store[.launchCount] = round + 1
        }
    }

    @Test func anObservationOutlivesTheStoreItWasMadeThrough() {
        let storage = InMemoryStorage()
        let received = Recorder<Int>()
        var token: ObservationToken? = DefaultsStore(storage: storage).observe(.launchCount) { change in
            received.append(change.newValue)
        }
        DefaultsStore(storage: storage)[.launchCount] = 7
        #expect(received.all == [7])
        token?.cancel()
        token = nil
        DefaultsStore(storage: storage)[.launchCount] = 8
        #expect(received.all == [7])
    }
}
