import Dispatch
import Foundation

/// Whether the caller runs on the main actor, without stopping the program when it does not (as
/// `MainActor.assumeIsolated` would). The main actor runs its work on the main dispatch queue: on the
/// main thread on Apple platforms and in a synchronous program, but on Linux an async program's main
/// actor runs on another thread once it has waited (swift-corelibs-libdispatch drains the main queue
/// there). So the check is the main thread, or a block of the main queue, which a value set on that
/// queue tells.
enum MainActorCheck {
    /// Marks the main queue: `DispatchQueue.getSpecific` finds it only inside a block of that queue.
    private static let marker: Marker = {
        let marker = Marker()
        DispatchQueue.main.setSpecific(key: marker.key, value: true)
        return marker
    }()

    /// True on the main actor: `MainActor.assumeIsolated` may then be called.
    static var isCurrent: Bool {
        Thread.isMainThread || DispatchQueue.getSpecific(key: marker.key) == true
    }

    private final class Marker: @unchecked Sendable {
        // @unchecked: `key` is set once, here, and only read after.
        let key = DispatchSpecificKey<Bool>()
    }
}
