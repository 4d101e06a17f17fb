import Foundation
import Observation
import Testing
import TypedDefaults

/// Counts the times `withObservationTracking` around `read` reports a change.
private func tracking(_ read: () -> Void) -> Recorder<Int> {
    let fired = Recorder<Int>()
    withObservationTracking(read) { fired.append(1) }
    return fired
}

@Observable
private final class SettingsModel {
    @ObservationIgnored @UserDefault(.theme) var theme: Theme

    init(store: DefaultsStore) {
        _theme = UserDefault(.theme, store: store)
    }
}

@Suite("Reads take part in Swift's Observation; several keys, initial values, no propagation")
struct SwiftObservationTests {
    @Test func aTrackedReadHearsOfAWriteThroughAnotherStoreOverTheSameSuiteOnce() throws {
        let suite = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suite) }
        let store = try #require(DefaultsStore(suiteName: suite))
        let other = try #require(DefaultsStore(suiteName: suite))
        let fired = tracking { _ = store[.theme] }
        other[.theme] = .dark
        other[.theme] = .light
        #expect(fired.all == [1])
    }

    @Test func aTrackedReadDoesNotHearOfAnotherKeyOrAnotherSuite() throws {
        let (suite, elsewhere) = (uniqueSuiteName(), uniqueSuiteName())
        defer { [suite, elsewhere].forEach(DefaultsStore.removeSuite(named:)) }
        let store = try #require(DefaultsStore(suiteName: suite))
        let fired = tracking { _ = store[.theme] }
        store[.launchCount] = 3
        try #require(DefaultsStore(suiteName: elsewhere))[.theme] = .dark
        #expect(fired.all.isEmpty)
    }

    @Test(arguments: ["remove", "removeAll", "migrate", "modify", "set"])
    func aTrackedReadHearsOfEveryKindOfChange(_ change: String) throws {
        try withStore(.inMemory) { store in
            store.storage.set("dark", forKey: "oldTheme")
            store[.theme] = .light
            let fired = tracking { _ = store[.theme] }
            switch change {
            case "remove": store.remove(.theme)
            case "removeAll": store.removeAll()
            case "migrate":
                store.remove(.theme)
                #expect(store.migrate(from: "oldTheme", to: .theme))
            case "modify": try store.modify(.theme) { $0 = .dark }
            default: try store.set(.dark, for: .theme)
            }
            #expect(fired.all == [1])
        }
    }

    @Test func aTrackedReadOfAWrapperPropertyInAnObservableClassHearsOfTheChange() {
        withStore { store in
            let model = SettingsModel(store: store)
            let fired = tracking { _ = model.theme }
            store[.theme] = .dark
            #expect(fired.all == [1])
            #expect(model.theme == .dark)
        }
    }

    @Test func writesInsideWithoutPropagationNotifyNobody() {
        withStore { store in
            let calls = Recorder<Theme>()
            let token = store.observe(.theme) { calls.append($0.newValue) }
            let fired = tracking { _ = store[.theme] }
            store.withoutPropagation { store[.theme] = .dark }
            #expect(calls.all.isEmpty && fired.all.isEmpty)
            #expect(store[.theme] == .dark)
            store[.theme] = .light
            #expect(calls.all == [.light] && fired.all == [1])
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
