import Observation

// Reads and changes as Swift's Observation framework sees them, so that `withObservationTracking`, an
// `@Observable` model and a SwiftUI view that read a key through a store learn when that key changes.
//
// The one place that knows Observation's availability on Apple platforms (macOS 14, iOS 17, tvOS 17,
// watchOS 10, visionOS 1): older systems get names that report nothing, and the package keeps its
// minimum platforms. On Linux the framework is always there.

/// One stored name of one storage, as Observation sees it: a read reports an access to it, a change a
/// mutation of it. One observable object per name, so that tracking a read of one name is not told of
/// changes to another.
protocol TrackedName: AnyObject, Sendable {
    /// A read of the name: a `withObservationTracking` around it will hear of its next change.
    func access()
    /// The name's value changed: whoever tracked a read of it hears of it now.
    func change()
}

extension TrackedName {
    /// Swift's Observation as a receiver of a name's changes: only that it changed.
    func receive(_ change: ObjectChange) {
        self.change()
    }
}

/// The tracked name for this system: observable where Observation is, silent where it is not.
func makeTrackedName() -> any TrackedName {
    if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *) {
        return ObservableName()
    }
    return SilentName()
}

private final class SilentName: TrackedName {
    func access() {}
    func change() {}
}

@available(macOS 14, iOS 17, tvOS 17, watchOS 10, visionOS 1, *)
private final class ObservableName: TrackedName, Observable {
    private let registrar = ObservationRegistrar()
    /// What a read stands for; the value lives in the storage.
    private var value: Int { 0 }
    private static let valuePath = \ObservableName.value

    func access() {
        registrar.access(self, keyPath: Self.valuePath)
    }

    func change() {
        // What `withMutation` does around an empty body, without its generic closure call.
        registrar.willSet(self, keyPath: Self.valuePath)
        registrar.didSet(self, keyPath: Self.valuePath)
    }
}
