import Foundation

/// What a `CloudSync` knows, owned by its lock and taken `inout` by the code that runs under it: the
/// synced names, this device's version of each, and the clock of versions.
struct SyncState {
    var names: Set<String> = []
    var records: [String: CloudSync.Record] = [:]
    var device: String
    /// The newest time this device has made or seen: the next local change is newer still, whatever the
    /// device's clock says.
    var newestTime: Double = 0
    var pushScheduled = false

    init(device: String) {
        self.device = device
    }

    /// A version newer than every one this device made or saw, `now` by the device's clock.
    mutating func nextStamp(now: Double) -> SyncStamp {
        newestTime = now > newestTime ? now : newestTime.nextUp.nextUp
        return SyncStamp(time: newestTime, device: device)
    }

    /// Whether a push must be scheduled now (a timer started outside the lock): there is a debounce,
    /// none is scheduled, and a change waits.
    mutating func schedulePush(debounce: TimeInterval?) -> Bool {
        guard debounce != nil, !pushScheduled, records.values.contains(where: \.pending) else { return false }
        pushScheduled = true
        return true
    }

    /// The versions as kept in the storage.
    func savedForm() -> [String: Any] {
        [
            "device": device, "newest": newestTime,
            "records": records.mapValues { record -> [String: Any] in
                var saved: [String: Any] = [
                    "time": record.stamp.time, "device": record.stamp.device, "pending": record.pending,
                ]
                saved["digest"] = record.digest
                return saved
            },
        ]
    }

    /// Takes the versions kept in the storage (`savedForm`), where another process or a hand edit may
    /// have put anything: what is not plausible is left out.
    mutating func load(_ saved: [String: Any], now: Double) {
        if let device = saved["device"] as? String { self.device = device }
        newestTime = SyncStamp.plausibleTime(saved["newest"], now: now) ?? 0
        for case (let name, let record as [String: Any]) in saved["records"] as? [String: Any] ?? [:] {
            guard let time = SyncStamp.plausibleTime(record["time"], now: now), let device = record["device"] as? String
            else { continue }
            let pending = record["pending"].flatMap { Bool(userDefaultsObject: $0) } ?? true
            var loaded = CloudSync.Record(stamp: SyncStamp(time: time, device: device), pending: pending, object: nil)
            // Without a digest (kept by an earlier release) nothing tells whether the value changed since:
            // it is taken as unchanged, never as a new change that would push an old value over newer ones.
            loaded.digest = record["digest"].flatMap { Int(userDefaultsObject: $0) }
            records[name] = loaded
        }
    }
}
