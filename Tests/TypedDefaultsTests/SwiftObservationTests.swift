import Foundation
import Observation
import Testing
import TypedDefaults

/// Counts the times `withObservationTracking` around `read` reports a change.
@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
private func tracking(_ read: () -> Void) -> Recorder<Int> {
    let fired = Recorder<Int>()
    withObservationTracking(read) { fired.append(1) }
    return fired
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
@Observable
private final class SettingsModel {
    @ObservationIgnored @UserDefault(.theme) var theme: Theme

    init(store: DefaultsStore) {
        _theme = UserDefault(.theme, store: store)
    }
}

@Suite("Reads take part in Swift's Observation")
struct SwiftObservationTests {
    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func aTrackedReadHearsOfAWriteThroughAnotherStoreOverTheSameSuiteOnce() throws {
        try withSuite { suite, store in
            let other = try #require(DefaultsStore(suiteName: suite))
            let fired = tracking { _ = store[.theme] }
            other[.theme] = .dark
            other[.theme] = .light
            #expect(fired.all == [1])
        }
    }

    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func amongAThousandNamesEachTrackedReadHearsOfItsOwnKeyOnly() {
        let store = DefaultsStore(storage: InMemoryStorage())
        // A new key object on every access, as a computed key is: found by name, like any key.
        func key(_ index: Int) -> UserDefaultTypedKey<Int> { .init("among\(index)", defaultValue: 0) }
        for index in 0..<1_000 { store[key(index)] = index }
        for changed in [0, 1, 500, 998, 999] {
            let trackings = (0..<1_000).map { index in tracking { _ = store[key(index)] } }
            store[key(changed)] += 1
            let heard = trackings.indices.filter { !trackings[$0].all.isEmpty }
            #expect(heard == [changed])
        }
    }

    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func aTrackedReadDoesNotHearOfAnotherKeyOrAnotherSuite() throws {
        let (suite, elsewhere) = (uniqueSuiteName(), uniqueSuiteName())
        defer { [suite, elsewhere].forEach(DefaultsStore.removeSuite(named:)) }
        let store = try #require(DefaultsStore(suiteName: suite))
        let fired = tracking { _ = store[.theme] }
        store[.launchCount] = 3
        try #require(DefaultsStore(suiteName: elsewhere))[.theme] = .dark
        #expect(fired.all.isEmpty)
    }

    @Test(arguments: ["remove", "removeAll", "migrate", "modify", "set"])
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
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

    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func aTrackedReadOfAWrapperPropertyInAnObservableClassHearsOfTheChange() {
        withStore { store in
            let model = SettingsModel(store: store)
            let fired = tracking { _ = model.theme }
            store[.theme] = .dark
            #expect(fired.all == [1])
            #expect(model.theme == .dark)
        }
    }

    @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    func writesInsideWithoutPropagationAreNotReportedToObservation() {
        withStore { store in
            let fired = tracking { _ = store[.theme] }
            store.withoutPropagation { store[.theme] = .dark }
            #expect(fired.all.isEmpty)
            store[.theme] = .light
            #expect(fired.all == [1])
        }
    }
}
