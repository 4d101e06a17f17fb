import Foundation

/// What the process keeps for all its stores, behind one leaf lock: each value type's name and stored
/// form, found once (`DeclaredType`); decoded JSON by type and text (`DecodedJSONCache`); what was reported
/// once (`ConflictReporting`); the store ``Defaults`` stands for (`BootstrappedStore`); and the changes
/// each thread made inside user code that were not next then, which it delivers once out (`Observer`).
/// Taken alone and briefly: never across a decode, a report or a delivery.
enum ProcessState {
    struct State {
        var declaredTypes: [ObjectIdentifier: (name: String, form: StoredForm)] = [:]
        var decodedJSON: [DecodedJSONCache.Key: any Sendable] = [:]
        var reported: Set<String> = []
        var bootstrap = BootstrappedStore.State()
        var heldBack: [ObjectIdentifier: [(observer: Observer, change: ObjectChange)]] = [:]
    }

    private static let state = Locked(State())

    static func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLockedValue(body)
    }
}
