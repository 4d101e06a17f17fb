// A stand-in for SwiftUI, for type-checking only: the declarations the library's SwiftUI adapter uses
// (Platform/Apple/SwiftUI.swift), in the shapes the Xcode 16 SDKs give them (the stricter ones where
// they differ: a main-actor `DynamicProperty`, `@isolated(any) @Sendable` binding closures). Linux has
// no SwiftUI; `Tests/Helpers/StandIns/check` builds the library against this so that the adapter meets a
// compiler here too. It is not SwiftUI: the macOS and simulator jobs of the hosted workflow are the
// real check.

import Combine

@MainActor @preconcurrency public protocol DynamicProperty {
    mutating func update()
}

extension DynamicProperty {
    public mutating func update() {}
}

@propertyWrapper public struct Binding<Value> {
    private let read: @isolated(any) @Sendable () -> Value

    public init(
        get: @escaping @isolated(any) @Sendable () -> Value,
        set: @escaping @isolated(any) @Sendable (Value) -> Void
    ) {
        read = get
    }

    public var wrappedValue: Value {
        fatalError("a stand-in for type-checking: never run")
    }
}

@propertyWrapper @frozen public struct ObservedObject<ObjectType: ObservableObject>: DynamicProperty {
    public init(wrappedValue: ObjectType) {
        self.wrappedValue = wrappedValue
    }

    public var wrappedValue: ObjectType
}
