import Foundation

/// What the process works out once and remembers, behind one leaf lock: each value type's name and
/// stored form (`DeclaredType`), decoded JSON by type and text (`DecodedJSONCache`), what was reported
/// once (`ConflictReporting`), and the store ``Defaults`` stands for (`BootstrappedStore`). Taken alone, briefly, never across a decode or a report.
enum ProcessMemos {
    struct State {
        var declaredTypes: [ObjectIdentifier: (name: String, form: StoredForm)] = [:]
        var decodedJSON: [DecodedJSONCache.Key: any Sendable] = [:]
        var reported: Set<String> = []
        var bootstrap = BootstrappedStore.State()
    }

    private static let state = Locked(State())

    static func withState<Result>(_ body: (inout State) -> Result) -> Result {
        state.withLockedValue(body)
    }
}
