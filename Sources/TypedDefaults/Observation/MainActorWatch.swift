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
}
