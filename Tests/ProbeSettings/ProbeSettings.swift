// Keys, a wrapper and a subscript in a module of their own, for the probe: an app's settings module,
// which must use the store the app chose at launch (`DefaultsStore.bootstrap`) without knowing of it.
import TypedDefaults

extension UserDefaultTypedKeys {
    public static let bootstrapCount = UserDefaultTypedKey<Int>("bootstrapCount", defaultValue: 0)
}

public struct ProbeSettings {
    @UserDefault(.bootstrapCount) public var count: Int

    public init() {}
}

/// Adds one to the count through `Defaults`.
public func countThroughDefaults() {
    Defaults[.bootstrapCount] += 1
}
