// Defaults' `@Default` called it `_x.reset()`; `@UserDefaultState`'s verb is the store's, `remove()`.
// The guide's row renames it; a call the row missed stops with the answer. The last line compiles.
#if canImport(SwiftUI) && canImport(Combine)
    import SwiftUI
    import TypedDefaults

    struct DefaultsResetSpelling {
        @UserDefaultState(UserDefaultTypedKey("appleDiagnosticsLimit", defaultValue: 10)) var limit
        func use() -> Bool {
            _limit.reset()  // expect: 'reset()' has been renamed to 'remove()': TypedDefaults calls it remove, on the wrapper as on the store
            _limit.remove()
            return _limit.isDefaultValue && limit == _limit.defaultValue && !_limit.hasKey
        }
    }
#endif
