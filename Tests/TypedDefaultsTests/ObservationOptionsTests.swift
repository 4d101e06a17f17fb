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

    @Test func updatesOfSeveralKeysYieldsAtOnceThenForEachChange() async {
        await withStore { store in
            var iterator = store.updates(.theme, .launchCount).makeAsyncIterator()
            #expect(await iterator.next() != nil)
            store[.theme] = .dark
            store[.launchCount] = 1
            #expect(await iterator.next() != nil)
            #expect(await iterator.next() != nil)
        }
    }
}
