// Keys, a wrapper and a subscript in a module of their own, for the probe: an app's settings module,
// which must use the store the app chose at launch (`DefaultsStore.bootstrap`) without knowing of it.
import Foundation
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

/// An `NSSecureCoding` class of the tests' own, as an app has one: stored as a keyed archive, made
/// storable by one declared line.
public final class Swatch: NSObject, NSSecureCoding, @unchecked Sendable {
    // @unchecked: immutable after init.
    public static var supportsSecureCoding: Bool { true }
    public let name: String
    public let level: Int

    public init(name: String, level: Int) {
        self.name = name
        self.level = level
    }

    public required init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name") else { return nil }
        self.name = name as String
        level = coder.decodeInteger(forKey: "level")
    }

    public func encode(with coder: NSCoder) {
        coder.encode(name as NSString, forKey: "name")
        coder.encode(level, forKey: "level")
    }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? Swatch).map { $0.name == name && $0.level == level } ?? false
    }

    public override var description: String { "\(name):\(level)" }
}

extension Swatch: UserDefaultConvertible {}

extension UserDefaultTypedKeys {
    public static let swatch = UserDefaultTypedKey<Swatch?>("swatch")
    public static let swatches = UserDefaultTypedKey<[Swatch]>("swatches", defaultValue: [])
    public static let swatchesByName = UserDefaultTypedKey<[String: Swatch]>("swatchesByName", defaultValue: [:])
}
