// The TypedDefaults code of Coming From Other Libraries' Foil and @AppStorage sections, as written
// there (`GuideSnippetTests` checks that each block is here): CI builds it on Linux, and the iOS
// type-check kit checks it against the real SDK, SwiftUI included.
import Foundation
import TypedDefaults

// TypedDefaults: the keys, once, and the wrappers driven by them
extension UserDefaultTypedKeys {
    static let flagEnabled = UserDefaultTypedKey<Bool>("flagEnabled", defaultValue: true)
    static let user = UserDefaultTypedKey<String?>("user")
}
struct Preferences: Sendable {
    static let shared = Preferences()
    @UserDefault(.flagEnabled) var flagEnabled: Bool
    @UserDefault(.user) var user: String?
}

// TypedDefaults: the wrapper as a value, over another UserDefaults
func migrateFlag(from defaults: UserDefaults) {
    let flag = UserDefault(.flagEnabled, store: DefaultsStore(storage: defaults))
    if !flag.hasKey { flag.wrappedValue = Preferences.shared.flagEnabled }
}

// TypedDefaults: a bridge of Foil's shape
struct Point: UserDefaultConvertible, Equatable {
    var x: Double
    var y: Double
    init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
    init?(userDefaultsObject object: Any) {
        guard let pair = object as? [Double], pair.count == 2 else { return nil }
        self.init(x: pair[0], y: pair[1])
    }
    var userDefaultsObject: Any? { [x, y] }
}

#if canImport(SwiftUI)
    import SwiftUI

    // TypedDefaults: the keys, once
    extension UserDefaultTypedKeys {
        static let displayName = UserDefaultTypedKey<String>("displayName", defaultValue: "Anonymous")
        static let showAvatars = UserDefaultTypedKey<Bool>("showAvatars", defaultValue: true)
    }

    // On every system SwiftUI runs on: `$x` is the Binding, as before
    struct ProfileView: View {
        @UserDefaultState(.displayName) var displayName
        @UserDefaultState(.showAvatars) var showAvatars
        var body: some View {
            Form {
                TextField("Name", text: $displayName)
                Toggle("Avatars", isOn: $showAvatars)
            }
        }
    }

    // From iOS 17 and macOS 14 (Observation): `$x.binding`
    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    struct ModernProfileView: View {
        @UserDefault(.displayName) var displayName: String
        @UserDefault(.showAvatars) var showAvatars: Bool
        var body: some View {
            Form {
                TextField("Name", text: $displayName.binding)
                Toggle("Avatars", isOn: $showAvatars.binding)
            }
        }
    }
#endif
