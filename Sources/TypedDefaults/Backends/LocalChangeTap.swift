import Foundation

/// Follows every change made on this device to a storage, in its write order, and may keep a record of
/// it beside the values, in the same step (the cloud sync, in Sync/, is one). The log knows
/// only this protocol.
protocol LocalChangeTap: AnyObject, Sendable {
    /// `name` changed to `object` on this device (a write through the library, or a change by other means
    /// the storage reported), in the write order (`held`). Returns a write to store beside it in the same
    /// step, if any.
    func localChange(_ name: String, object: Any?, _ held: borrowing WriteOrderHeld) -> (name: String, object: Any?)?
    /// What `flush()` must do too, once the storage's writes are saved; the errors it must throw.
    func flush() -> [DefaultsError]
}
