// What only Apple platforms have: key-value observing of `UserDefaults`, and SwiftUI. These run in the
// hosted workflow's macOS job; the logic behind them is shared and tested on Linux
// (ExternalChangeTests, with a fake storage that reports as key-value observing does).
#if canImport(ObjectiveC)
    import Foundation
    import Observation
    import Testing
    import TypedDefaults
    #if canImport(SwiftUI)
        import SwiftUI
    #endif

    @Suite("Apple platforms: observers hear every writer of a suite")
    struct KeyValueObservingTests {
        /// The plain API and a second `UserDefaults` object of the suite are heard once each; the
        /// library's own write once, not twice.
        @Test func aPlainAPIWriteAndASecondDefaultsObjectAreEachHeardOnce() throws {
            try withSuite { suite, store in
                let heard = Recorder<Int>()
                let token = store.observe(.launchCount) { heard.append($0.newValue) }
                defer { token.cancel() }
                let plain = try #require(UserDefaults(suiteName: suite))
                plain.set(5, forKey: "launchCount")
                #expect(heard.waitForCount(1), "\(heard.all)")
                let second = try #require(UserDefaults(suiteName: suite))
                second.set(6, forKey: "launchCount")
                #expect(heard.waitForCount(2), "\(heard.all)")
                store[.launchCount] = 7
                #expect(heard.waitForCount(3), "\(heard.all)")
                plain.removeObject(forKey: "launchCount")
                #expect(heard.waitForCount(4), "\(heard.all)")
                #expect(heard.all == [5, 6, 7, 0])
            }
        }

        /// With no observer, Swift's Observation hears the plain API once the key is tracked.
        @Test @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
        func swiftObservationHearsThePlainAPIOnceTracked() throws {
            try withSuite { suite, store in
                store.trackChangesElsewhere(of: .theme)
                let fired = Recorder<Int>()
                withObservationTracking {
                    _ = store[.theme]
                } onChange: {
                    fired.append(1)
                }
                try #require(UserDefaults(suiteName: suite)).set("dark", forKey: "theme")
                #expect(fired.waitForCount(1))
                #expect(store[.theme] == .dark)
            }
        }
    }

    /// Whether this process may use iCloud's key-value store: a test runner without the iCloud
    /// entitlement keeps nothing in it.
    private let ubiquitousStoreKeepsValues: Bool = {
        guard #available(watchOS 9, *) else { return false }
        let store = NSUbiquitousKeyValueStore.default
        let probe = "typedDefaultsProbe.\(UUID().uuidString)"
        store.set(1, forKey: probe)
        defer { store.removeObject(forKey: probe) }
        return store.object(forKey: probe) != nil
    }()

    @Suite("Apple platforms: sync through the real iCloud key-value store")
    struct UbiquitousStoreTests {
        /// A synced key's change reaches `NSUbiquitousKeyValueStore` at `flush()`, with its version; a key
        /// that is not synced does not.
        @Test(
            .enabled(
                if: ubiquitousStoreKeepsValues,
                "this test runner has no iCloud key-value store (no entitlement): the engine is tested on "
                    + "Linux against a simulated cloud"))
        func aSyncedChangeReachesTheKeyValueStoreAtFlush() throws {
            guard #available(watchOS 9, *) else { return }
            try withSuite { _, store in
                let synced = UserDefaultTypedKey<Int>(
                    "typedDefaultsSynced.\(UUID().uuidString.prefix(8))", defaultValue: 0)
                let local = UserDefaultTypedKey<Int>(
                    "typedDefaultsLocal.\(UUID().uuidString.prefix(8))", defaultValue: 0)
                let cloud = NSUbiquitousKeyValueStore.default
                defer {
                    cloud.removeObject(forKey: synced.name)
                    cloud.removeObject(forKey: local.name)
                }
                store.sync(synced)
                store[synced] = 5
                store[local] = 6
                try store.flush()
                let entry = try #require(cloud.object(forKey: synced.name) as? [String: Any])
                #expect(entry["value"] as? Int == 5)
                #expect(cloud.object(forKey: local.name) == nil)
            }
        }
    }

    #if canImport(SwiftUI)
        @Suite("Apple platforms: SwiftUI bindings")
        @MainActor
        struct SwiftUIBindingTests {
            @Test func aBindingReadsAndWritesTheStore() throws {
                guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else { return }
                try withSuite { _, store in
                    let theme = UserDefault(.theme, store: store).binding
                    #expect(theme.wrappedValue == .system)
                    theme.wrappedValue = .dark
                    #expect(store[.theme] == .dark)
                    store[.theme] = .light
                    #expect(theme.wrappedValue == .light)
                    let count = store.binding(.launchCount)
                    count.wrappedValue += 2
                    #expect(store[.launchCount] == 2)
                }
            }

            /// What a view holding `@UserDefault` does: SwiftUI calls `update()`, then `body` reads the
            /// binding under Observation; a write through the plain API then redraws it.
            @Test func aViewsReadHearsThePlainAPIAfterItsUpdate() throws {
                guard #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) else { return }
                try withSuite { suite, store in
                    let property = UserDefault(.launchCount, store: store)
                    property.update()
                    let fired = Recorder<Int>()
                    withObservationTracking {
                        _ = property.binding.wrappedValue
                    } onChange: {
                        fired.append(1)
                    }
                    try #require(UserDefaults(suiteName: suite)).set(9, forKey: "launchCount")
                    #expect(fired.waitForCount(1))
                    #expect(property.wrappedValue == 9)
                }
            }
        }
    #endif
#endif
