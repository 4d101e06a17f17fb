import Foundation
import Testing
import TypedDefaults

@Suite("Observing several keys, the initial value, and writes that notify nobody")
struct ObservationOptionsTests {
    @Test func writesInsideWithoutPropagationNotifyNobody() {
        withStore { store in
            let calls = Recorder<Theme>()
            let token = store.observe(.theme) { calls.append($0.newValue) }
            store.withoutPropagation { store[.theme] = .dark }
            #expect(calls.all.isEmpty)
            #expect(store[.theme] == .dark)
            store[.theme] = .light
            #expect(calls.all == [.light])
            token.cancel()
        }
    }

    @Test func oneClosureObservesKeysOfDifferentTypes() {
        withStore { store in
            let calls = Recorder<Int>()
            let token = store.observe(.theme, .launchCount) { calls.append(1) }
            store[.theme] = .dark
            store[.launchCount] = 2
            store[.username] = "ada"
            #expect(calls.all.count == 2)
            token.cancel()
            store[.theme] = .light
            #expect(calls.all.count == 2)
        }
    }

    @Test func initialCallsOnceAtOnceWithTheCurrentValue() {
        withStore { store in
            store[.launchCount] = 7
            let calls = Recorder<String>()
            let token = store.observe(.launchCount, initial: true) { calls.append("\($0.oldValue)->\($0.newValue)") }
            let several = store.observe(.theme, .launchCount, initial: true) { calls.append("any") }
            #expect(calls.all == ["7->7", "any"])
            store[.launchCount] = 8
            #expect(calls.all == ["7->7", "any", "7->8", "any"])
            token.cancel()
            several.cancel()
        }
    }

    @Test func updatesOfSeveralKeysYieldsAtOnceThenForEachChange() async throws {
        try await withStore { store in
            let stream = store.updates(.theme, .launchCount)
            let seen = Recorder<String>()
            let reader = Task {
                for await _ in stream { seen.append("\(store[.theme]) \(store[.launchCount])") }
            }
            defer { reader.cancel() }
            try await waitUntil { seen.all == ["system 0"] }
            store[.theme] = .dark
            try await waitUntil { seen.all == ["system 0", "dark 0"] }
            store[.launchCount] = 1
            try await waitUntil { seen.all == ["system 0", "dark 0", "dark 1"] }
            // A key not in the list yields nothing: the next element is the next change of a listed key.
            store[.recent] = ["x"]
            store[.launchCount] = 2
            try await waitUntil { seen.all.count == 4 }
            #expect(seen.all.last == "dark 2")
        }
    }
}
