import Foundation

/// The version of one synced value: when and on which device it was changed. The newest version wins
/// on every device, whatever order the cloud delivers them in; two changes at the same instant are
/// ordered by device.
struct SyncStamp: Comparable, Sendable {
    var time: Double
    var device: String

    /// How far ahead of this device's clock another device's clock may be.
    static let allowedSkew: Double = 24 * 60 * 60

    /// `object` as a version's time: a number (text is not one), finite, not before 2001 (the reference
    /// date the clock counts from) and at most `allowedSkew` ahead of `now`; nil otherwise.
    static func plausibleTime(_ object: Any?, now: Double) -> Double? {
        let time: Double
        switch object {
        case let double as Double: time = double
        case let integer as Int: time = Double(integer)
        case let number as NSNumber where !(object is String): time = number.doubleValue
        default: return nil
        }
        guard time.isFinite, time >= 0, time <= now + allowedSkew else { return nil }
        return time
    }

    static func < (first: SyncStamp, second: SyncStamp) -> Bool {
        (first.time, first.device) < (second.time, second.device)
    }
}

/// A synced value as it travels through the cloud: the value in the form the store keeps it (so the
/// peers' forms and the plain API's read back on the other device), its version beside it in one cloud
/// entry (never torn apart on the way), and for a removal no value.
struct CloudEntry {
    var stamp: SyncStamp
    var object: Any?

    private static let marker = "typedDefaults"
    private static let timeKey = "modified"
    private static let deviceKey = "device"
    private static let valueKey = "value"

    init(stamp: SyncStamp, object: Any?) {
        self.stamp = stamp
        self.object = object
    }

    /// Reads a cloud entry. A value that is not one (another tool put it there) is the oldest version
    /// there is: any change made here is newer, yet it is pulled onto a device that has none. So is an
    /// entry whose time is not a plausible one (see `SyncStamp.plausibleTime`): a forged `NaN`, infinity
    /// or far-future time would otherwise win over every honest change, or stop them converging.
    init(cloudObject: Any, now: Double) {
        let oldest = SyncStamp(time: 0, device: "")
        guard let entry = cloudObject as? [String: Any], (entry[Self.marker] as? Int) == 1 else {
            self.init(stamp: oldest, object: cloudObject)
            return
        }
        if let time = SyncStamp.plausibleTime(entry[Self.timeKey], now: now),
            let device = entry[Self.deviceKey] as? String
        {
            self.init(stamp: SyncStamp(time: time, device: device), object: entry[Self.valueKey])
        } else {
            self.init(stamp: oldest, object: entry[Self.valueKey])
        }
    }

    var cloudObject: [String: Any] {
        var entry: [String: Any] = [Self.marker: 1, Self.timeKey: stamp.time, Self.deviceKey: stamp.device]
        entry[Self.valueKey] = object
        return entry
    }
}
