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
        public nonisolated func update() {
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

#if canImport(SwiftUI) && canImport(Combine)
    import Combine

    /// A stored setting as a view's property, on every system SwiftUI runs on: the view redraws when the
    /// value changes from anywhere, and `$property` is the `Binding` a control takes.
    ///
    /// ```swift
    /// struct SettingsView: View {
    ///     @UserDefaultState(.showAvatars) var showAvatars
    ///     var body: some View { Toggle("Avatars", isOn: $showAvatars) }
    /// }
    /// ```
    /// From iOS 17, macOS 14, tvOS 17 and watchOS 10, `@UserDefault` does the same through Observation
    /// (with `$property.binding`); this wrapper is for apps that also run on earlier systems, where
    /// `@AppStorage` or Defaults' `@Default` did it. It redraws through SwiftUI's own storage for an
    /// observed object, which SwiftUI keeps with the view.
    @propertyWrapper
    public struct UserDefaultState<Value: UserDefaultConvertible>: @unchecked Sendable {
        // @unchecked: the one part that is not `Sendable`, the object that tells SwiftUI to redraw, is
        // used only by SwiftUI on the main actor and by the main-actor watch `update()` starts.
        @ObservedObject private var redraw: RedrawSignal
        /// The same object as `redraw`, for `update()`: the SDK isolates an observed object's
        /// `wrappedValue` to the main actor, and `DynamicProperty.update()` is not isolated in the iOS 18
        /// SDK, so `update()` must not read `redraw`.
        private let signal: RedrawSignal
        /// What the property reads and writes: the same as a `@UserDefault` of the key.
        private let property: UserDefault<Value>

        /// The key the property reads and writes.
        public var key: UserDefaultTypedKey<Value> { property.key }
        /// The store the property reads and writes.
        public var store: DefaultsStore { property.store }

        /// A view property for `key` in `store` (the app-wide store unless you give one).
        public init(_ key: UserDefaultTypedKey<Value>, store: DefaultsStore = Defaults) {
            let signal = RedrawSignal()
            self.signal = signal
            _redraw = ObservedObject(wrappedValue: signal)
            property = UserDefault(key, store: store)
        }

        /// The stored value; setting it writes the store.
        public var wrappedValue: Value {
            get { property.wrappedValue }
            nonmutating set { property.wrappedValue = newValue }
        }

        /// The value as a `Binding`, for a control.
        public var projectedValue: Binding<Value> {
            let store = store
            let key = key
            return Binding(get: { store[key] }, set: { store[key] = $0 })
        }

        /// The key's default: what the property reads when nothing is stored (`_x.defaultValue`, as with
        /// Defaults' `@Default`).
        public var defaultValue: Value { key.defaultValue }

        /// Whether a value is stored: `store.hasKey(key)`.
        public var hasKey: Bool { store.hasKey(key) }

        /// Removes the stored value, so the property shows the key's default: `store.remove(key)`.
        public func remove() { store.remove(key) }

        /// Unavailable: the store's verb, `remove`, is the wrapper's too (Defaults' `_x.reset()`).
        @available(
            *, unavailable, renamed: "remove()",
            message: "TypedDefaults calls it remove, on the wrapper as on the store"
        )
        public func reset() { remove() }
    }

    extension UserDefaultState where Value: Equatable {
        /// Whether the property reads its default: nothing is stored, or the stored value equals it
        /// (`_x.isDefaultValue`, as with Defaults' `@Default`).
        public var isDefaultValue: Bool { store.isDefaultValue(key) }
    }

    // The conformance is declared here, not on the type: an SDK that isolated `DynamicProperty` to the main
    // actor would then isolate the whole type (its `init` too, so a view holding one could no longer be
    // made from a nonisolated context). The iOS 18 SDK does not isolate it; this compiles either way.
    extension UserDefaultState: DynamicProperty {
        /// SwiftUI calls this before each update of the view: the first call starts watching the key.
        ///
        /// Not isolated, whether or not an SDK isolates `DynamicProperty` to the main actor: the watch
        /// starts on the main actor from here.
        public nonisolated func update() {
            let signal = signal
            signal.watch.startFromAnyContext(key, in: store) { signal.objectWillChange.send() }
        }
    }

    extension DefaultsStore {
        /// A switch for a `Bool` key, titled `title`: Defaults' `Defaults.Toggle("Title", key: .x)`, on
        /// every system SwiftUI runs on. It redraws when the value changes from anywhere.
        ///
        /// ```swift
        /// Defaults.Toggle("Show avatars", key: .showAvatars)
        /// ```
        /// - Parameters:
        ///   - title: The switch's title.
        ///   - key: The key the switch reads and writes.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        public func Toggle(_ title: some StringProtocol, key: UserDefaultTypedKey<Bool>) -> DefaultsToggle<Text> {
            let text = Text(title)
            return DefaultsToggle(key: key, store: self) { text }
        }

        /// A switch for a `Bool` key, with `label`: Defaults' `Defaults.Toggle(key: .x) { label }`, on every
        /// system SwiftUI runs on. It redraws when the value changes from anywhere.
        ///
        /// ```swift
        /// Defaults.Toggle(key: .showAvatars) { Label("Avatars", systemImage: "person") }
        /// ```
        /// - Parameters:
        ///   - key: The key the switch reads and writes.
        ///   - label: The switch's label.
        // swift-format-ignore: AlwaysUseLowerCamelCase
        public func Toggle<Label: View>(
            key: UserDefaultTypedKey<Bool>, @ViewBuilder label: @escaping () -> Label
        ) -> DefaultsToggle<Label> {
            DefaultsToggle(key: key, store: self, label: label)
        }
    }

    /// A switch for a `Bool` key of a store, made by ``DefaultsStore/Toggle(_:key:)`` or
    /// ``DefaultsStore/Toggle(key:label:)``, as Defaults' `Defaults.Toggle`.
    public struct DefaultsToggle<Label: View>: View, @unchecked Sendable {
        // @unchecked: the label is the app's view code, which SwiftUI calls on the main actor; every
        // other field is `Sendable`.
        @UserDefaultState private var isOn: Bool
        private let key: UserDefaultTypedKey<Bool>
        private let store: DefaultsStore
        private let label: () -> Label
        private var action: (@MainActor (Bool) -> Void)?

        init(key: UserDefaultTypedKey<Bool>, store: DefaultsStore, label: @escaping () -> Label) {
            _isOn = UserDefaultState(key, store: store)
            self.key = key
            self.store = store
            self.label = label
        }

        /// Calls `action` with the new value after each change of the key, from the switch or from
        /// anywhere else, on the main thread: Defaults' `.onChange(_:)` of its `Toggle`.
        ///
        /// - Parameter action: Called with each new value.
        public func onChange(_ action: @escaping @MainActor (Bool) -> Void) -> Self {
            var toggle = self
            toggle.action = action
            return toggle
        }

        public var body: some View {
            let action = action
            SwiftUI.Toggle(isOn: $isOn, label: label)
                .onReceive(store.publisher(key, initial: false).receive(on: DispatchQueue.main)) { value in
                    // Received on the main queue.
                    guard let action else { return }
                    MainActor.assumeIsolated { action(value) }
                }
        }
    }

    /// What redraws a view that holds a ``UserDefaultState``: SwiftUI redraws it when this object says it
    /// will change, which `watch` makes it say after each change of the key.
    // @unchecked: `objectWillChange` is sent only on the main actor (from the watch's calls), and `watch`
    // is a main-actor object; neither is stored after `init`.
    private final class RedrawSignal: ObservableObject, @unchecked Sendable {
        let objectWillChange = ObservableObjectPublisher()
        let watch = MainActorWatch()
    }
#endif
