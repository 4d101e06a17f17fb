#if canImport(SwiftUI)
    import SwiftUI

    // SwiftUI, on the systems that have it. A `@UserDefault` property in a view is the value, and
    // `$property.binding` the `Binding` a control takes. The view redraws when the value changes from
    // anywhere because its body tracks the reads it makes with Swift's Observation, which a store reports
    // (SwiftObservation.swift); changes made by other means reach Observation once the key is watched for
    // them (`trackChangesElsewhere`, tested on Linux with a fake storage). So the bindings need the
    // systems Observation needs, the same list as in SwiftObservation.swift; the package's minimum
    // platforms do not rise. This file only adapts: it holds no logic of its own.

    extension UserDefault: DynamicProperty {
        /// SwiftUI calls this before each update of a view that holds the property: the view then also
        /// hears changes made to the key by other means (another process, the plain API).
        public func update() {
            store.trackChangesElsewhere(of: key)
        }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    extension UserDefault {
        /// The stored value as a `Binding`, for a control: `Toggle("Avatars", isOn: $showAvatars.binding)`.
        /// Setting it writes the store.
        public var binding: Binding<Value> { store.binding(key) }
    }

    @available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
    extension DefaultsStore {
        /// `key`'s value as a `Binding`, for a control in a view that reads the store directly:
        /// `Stepper("Size", value: Defaults.binding(.fontSize))`. Setting it writes the store; a view
        /// that reads it redraws when the value changes from anywhere.
        ///
        /// - Parameter key: The key the binding reads and writes.
        public func binding<Value>(_ key: UserDefaultTypedKey<Value>) -> Binding<Value> {
            Binding(
                get: {
                    self.trackChangesElsewhere(of: key)
                    return self[key]
                },
                set: { self[key] = $0 })
        }
    }
#endif
