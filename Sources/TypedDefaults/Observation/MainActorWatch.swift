import Foundation

/// Calls `onChange` on the main actor after each change of one key, from the first `start` until it is
/// released: how a SwiftUI property on systems before Observation redraws its view
/// (`UserDefaultState`, Platform/Apple/SwiftUI.swift). Changes made by other means count, as for any
/// observer.
@MainActor package final class MainActorWatch {
    private var token: ObservationToken?

    package nonisolated init() {}

    /// Starts watching `key` in `store`; later calls, SwiftUI's next updates, change nothing.
    package func start<Value>(
        _ key: UserDefaultTypedKey<Value>, in store: DefaultsStore, onChange: @escaping @MainActor () -> Void
    ) {
        guard token == nil else { return }
        token = store.observe(key, isolation: MainActor.shared) { _ in onChange() }
    }

    /// `start` from code that is not isolated to the main actor, such as `DynamicProperty.update()`:
    /// the iOS 18 SDK does not isolate that protocol, and an SDK that does must compile the same call.
    /// SwiftUI calls `update()` on the main actor, where the watch starts before this returns; a call
    /// from anywhere else starts it on the main actor soon after, instead of stopping the program.
    package nonisolated func startFromAnyContext<Value>(
        _ key: UserDefaultTypedKey<Value>, in store: DefaultsStore, onChange: @escaping @MainActor @Sendable () -> Void
    ) {
        if MainActorCheck.isCurrent {
            MainActor.assumeIsolated { start(key, in: store, onChange: onChange) }
        } else {
            Task { @MainActor in start(key, in: store, onChange: onChange) }
        }
    }
}
