import Foundation

/// Syncs the chosen names of one storage through a cloud key-value store. Shared by every platform and
/// tested on Linux with a simulated cloud; only the cloud itself is Apple's.
///
/// - A change made on this device (through any store over the storage, `withoutPropagation` included,
///   and on Apple platforms the plain API) gets a version newer than every version this device has
///   seen, and is pushed after `debounce`, or at once by `flush()`.
/// - A cloud value is applied here only when it is newer than this device's version of the name, and
///   is not pushed back. A cloud value older than this device's is answered by pushing this device's.
/// - A name never changed on this device since syncing began has no version: it never pushes its
///   default, and takes the cloud's value when one comes (a new install pulls first).
/// - Versions are kept in the storage beside the values (`recordName`), so a change made offline is
///   pushed at the next launch, and judged by when it was made.
///
/// A client of the change log (`ChangeLog`), which knows it only as a `LocalChangeTap`: the log tells it
/// of each local change in the write order, and it brings cloud values in through `ChangeLog.bringIn`.
final class CloudSync: LocalChangeTap, @unchecked Sendable {
    // @unchecked: the mutable state lives in `state`, which owns its lock; `cloud` is thread-safe.

    /// Where the versions are kept in the synced storage.
    static let recordName = "TypedDefaults.cloudSync"

    struct Record {
        var stamp: SyncStamp
        /// Still to be pushed.
        var pending: Bool
        /// The object this version stands for (nil: removed), for the push.
        var object: Any?
        /// `CloudSync.digest` of that object, kept with the version: at the next `start`, a stored value
        /// that differs was changed while the names were not synced (another run, an app extension).
        /// nil for a version an earlier release kept without one, which tells nothing.
        var digest: Int?

        init(stamp: SyncStamp, pending: Bool, object: Any?) {
            self.stamp = stamp
            self.pending = pending
            self.object = object
            digest = CloudSync.digest(object)
        }
    }

    let cloud: any CloudKeyValueStore
    private weak var context: StorageContext?
    private let debounce: TimeInterval?
    private let clock: @Sendable () -> Double
    /// The synced names and their versions (`SyncState`), behind their lock.
    private let state: Locked<SyncState>

    init(
        cloud: any CloudKeyValueStore, context: StorageContext, debounce: TimeInterval?,
        clock: @escaping @Sendable () -> Double
    ) {
        self.cloud = cloud
        self.context = context
        self.debounce = debounce
        self.clock = clock
        var state = SyncState(device: UUID().uuidString)
        if let saved = context.storage.object(forKey: Self.recordName) as? [String: Any] {
            state.load(saved, now: clock())
        }
        self.state = Locked(state)
        cloud.onChange { [weak self] reason, keys in self?.cloudChanged(reason, keys: keys) }
    }

    // MARK: Starting

    /// Syncs `names` of `context`'s storage through `cloud` from now on. The first call chooses the
    /// cloud; later calls add names.
    static func sync(
        _ names: [String], of context: StorageContext, cloud: any CloudKeyValueStore, debounce: TimeInterval?,
        clock: @escaping @Sendable () -> Double
    ) {
        let prepared = context.prepareDomain()
        let engine = context.log.tap {
            CloudSync(cloud: cloud, context: context, debounce: debounce, clock: clock)
        }
        engine?.start(names)
        // A change made by other means (the plain API, an app extension: Apple platforms) is pushed too.
        for name in names { context.log.reports.keepWatching(name, of: context, prepared) }
    }

    /// Syncs `newNames` from now on: a value stored here with no version (stored before syncing
    /// began) counts as the oldest change there is; then the cloud is read first, and only what is
    /// newer here is pushed.
    func start(_ newNames: [String]) {
        guard let context else { return }
        let added = state.withLockedValue { state in newNames.filter { !state.names.contains($0) } }
        guard !added.isEmpty else { return }
        let prepared = context.prepareDomain()
        let stored = added.map { (name: $0, object: context.storedObject(forName: $0, prepared)) }
        let now = clock()
        state.withLockedValue { state in
            for (name, object) in stored {
                state.names.insert(name)
                if let digest = state.records[name]?.digest, digest != Self.digest(object) {
                    // Changed while the name was not synced: a change of this device's, made now.
                    state.records[name] = Record(stamp: state.nextStamp(now: now), pending: true, object: object)
                } else if state.records[name] != nil {
                    state.records[name]?.object = object
                    state.records[name]?.digest = Self.digest(object)
                } else if let object {
                    state.records[name] = Record(
                        stamp: SyncStamp(time: 0, device: state.device), pending: true, object: object)
                }
            }
        }
        cloud.synchronize()
        reconcile(added)
        schedulePush()
    }

    // MARK: Changes made here

    /// A change of `name` made on this device, in the storage's write order (`held`): versioned and
    /// marked for the push. Returns what to keep under `recordName` beside it, or nil when `name` is not
    /// synced.
    func localChange(_ name: String, object: Any?, _ held: borrowing WriteOrderHeld) -> (
        name: String, object: Any?
    )? {
        // Its own record is not a synced value.
        guard name != Self.recordName else { return nil }
        let now = clock()
        let (saved, schedule) = state.withLockedValue { state -> ([String: Any]?, Bool) in
            guard state.names.contains(name) else { return (nil, false) }
            state.records[name] = Record(stamp: state.nextStamp(now: now), pending: true, object: object)
            return (state.savedForm(), state.schedulePush(debounce: debounce))
        }
        if schedule { scheduleTimer() }
        return saved.map { (Self.recordName, $0) }
    }

    /// Whether `entry` may replace this device's value of `name`: it is newer than this device's
    /// version, or this device has none. In the storage's write order (`held`), so no local change
    /// slips in between the decision and the write. Returns what to keep under `recordName`.
    func acceptCloud(_ entry: CloudEntry, forName name: String, _ held: borrowing WriteOrderHeld) -> [String: Any]? {
        let (saved, schedule) = state.withLockedValue { state -> ([String: Any]?, Bool) in
            guard state.names.contains(name) else { return (nil, false) }
            state.newestTime = max(state.newestTime, entry.stamp.time)
            if let record = state.records[name], record.stamp >= entry.stamp {
                // The cloud holds an older version than this device (it kept a later-arriving push of an
                // older change): push this device's again.
                if record.stamp > entry.stamp, !record.pending {
                    state.records[name]?.pending = true
                    return (nil, state.schedulePush(debounce: debounce))
                }
                return (nil, false)
            }
            state.records[name] = Record(stamp: entry.stamp, pending: false, object: entry.object)
            return (state.savedForm(), false)
        }
        if schedule { scheduleTimer() }
        return saved
    }

    // MARK: Changes from the cloud

    private func cloudChanged(_ reason: CloudChangeReason, keys: [String]) {
        switch reason {
        case .serverChange, .initialSync:
            reconcile(state.withLockedValue { state in keys.filter(state.names.contains) })
            schedulePush()
        case .quotaViolation:
            ErrorReporting.report(
                DefaultsError.syncRefused(
                    key: nil,
                    reason: "iCloud's key-value store refused values over its quota (1 MB, 1,024 keys); "
                        + "they are kept on this device"))
        case .accountChange:
            // Another account's cloud: every value here stays, as the oldest version there is, so that
            // the new cloud's values win and the names it lacks are pushed to it.
            let all = state.withLockedValue { state -> [String] in
                for (name, record) in state.records {
                    if record.object == nil {
                        state.records[name] = nil
                    } else {
                        state.records[name] = Record(
                            stamp: SyncStamp(time: 0, device: state.device), pending: true, object: record.object)
                    }
                }
                return Array(state.names)
            }
            reconcile(all)
            schedulePush()
        }
    }

    /// Applies the cloud's values of `names` that are newer than this device's.
    private func reconcile(_ names: [String]) {
        guard let context else { return }
        for name in names {
            guard let raw = cloud.object(forKey: name) else { continue }
            let entry = CloudEntry(cloudObject: raw, now: clock())
            // A value `UserDefaults` cannot hold (a null, a set): this device keeps its own.
            if let object = entry.object, !isStorablePropertyList(object) { continue }
            context.log.bringIn(name) { held in
                acceptCloud(entry, forName: name, held).map { (entry.object, (Self.recordName, $0)) }
            }
        }
    }

    // MARK: Pushing

    /// `flush()`: pushes now.
    func flush() -> [DefaultsError] {
        push()
    }

    /// Pushes every change not pushed yet, then asks the cloud to send them. Returns the changes the
    /// cloud's limits refused (kept on this device, not pushed).
    @discardableResult
    func push() -> [DefaultsError] {
        let batch = state.withLockedValue { state -> [(name: String, record: Record)] in
            state.pushScheduled = false
            return state.records.filter(\.value.pending).map { ($0.key, $0.value) }.sorted { $0.name < $1.name }
        }
        guard !batch.isEmpty else { return [] }
        var refused: [DefaultsError] = []
        var cloudNewer: [String] = []
        // The bytes of each entry the cloud holds (its name's included), and their sum, kept up to date
        // as entries are pushed: each entry is measured once.
        var sizes = cloud.dictionaryRepresentation().reduce(into: [String: Int]()) { sizes, entry in
            sizes[entry.key] = Self.size(entry.value) + entry.key.utf8.count
        }
        var total = sizes.values.reduce(0, +)
        for (name, record) in batch {
            defer {
                state.withLockedValue { state in
                    if state.records[name]?.stamp == record.stamp { state.records[name]?.pending = false }
                }
            }
            if let raw = cloud.object(forKey: name), CloudEntry(cloudObject: raw, now: clock()).stamp > record.stamp {
                cloudNewer.append(name)
                continue
            }
            let entry = CloudEntry(stamp: record.stamp, object: record.object).cloudObject
            let size = Self.size(entry) + name.utf8.count
            let others = total - (sizes[name] ?? 0)
            if let reason = Self.limitExceeded(
                name: name, size: size, isNew: sizes[name] == nil, keys: sizes.count, others: others)
            {
                refused.append(.syncRefused(key: name, reason: reason))
                continue
            }
            sizes[name] = size
            total = others + size
            cloud.set(entry, forKey: name)
        }
        cloud.synchronize()
        reconcile(cloudNewer)
        return refused
    }

    /// Why the cloud would refuse an entry of `size` bytes under `name` (a name it does not hold yet, when
    /// `isNew`), beside `keys` keys whose other entries take `others` bytes; nil if it fits.
    private static func limitExceeded(name: String, size: Int, isNew: Bool, keys: Int, others: Int) -> String? {
        if name.utf8.count > CloudLimits.nameBytes {
            return "iCloud's key-value store takes names of at most \(CloudLimits.nameBytes) bytes "
                + "(this one has \(name.utf8.count))"
        }
        if isNew, keys >= CloudLimits.keys {
            return "iCloud's key-value store holds at most \(CloudLimits.keys) keys"
        }
        if others + size > CloudLimits.totalBytes {
            return "iCloud's key-value store holds at most 1 MB in all (this value takes \(size) bytes, "
                + "the others \(others))"
        }
        return nil
    }

    /// The bytes a cloud value takes as a binary property list, counted without encoding it and without
    /// recursion: every entry the cloud holds is measured, the app's own or not, and one nested thousands
    /// of levels deep overflowed the stack of Foundation's encoder, at every push. An object takes its
    /// marker and length (2), its contents, its place in the offset table (2) and a reference from its
    /// container (2); the file, a header and trailer (40).
    static func size(_ object: Any) -> Int {
        var total = 40
        var pending: [Any] = [object]
        while let next = pending.popLast() {
            total += 6
            switch next {
            case let text as String:
                total += isASCII(text) ? text.utf8.count : 2 * text.utf16.count
            case let data as Data: total += data.count
            case let array as [Any]: pending += array
            case let dictionary as [String: Any]:
                pending += dictionary.keys.map { $0 as Any }
                pending += dictionary.values
            case is Date, is Double, is Float: total += 8
            default: total += 8  // integers and Booleans: 8 bytes at most
            }
        }
        return total
    }

    /// Pushes after `debounce`, unless a push is scheduled already; with no debounce (a simulation), only
    /// `flush()` pushes.
    private func schedulePush() {
        if state.withLockedValue({ $0.schedulePush(debounce: debounce) }) { scheduleTimer() }
    }

    private func scheduleTimer() {
        guard let debounce else { return }
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + debounce) { [weak self] in
            for error in self?.push() ?? [] { ErrorReporting.report(error) }
        }
    }

    // MARK: Versions

    /// A digest of a stored object that is the same in every process and on every launch (Swift's own
    /// hashing is seeded per process): FNV-1a over the object's kinds and contents, dictionaries in the
    /// order of their keys, walked without recursion. Equal objects as a read sees them give equal
    /// digests; nil (removed) gives 0.
    static func digest(_ object: Any?) -> Int {
        guard let object else { return 0 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ bytes: some Sequence<UInt8>) {
            for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        }
        var pending: [Any] = [object]
        while let next = pending.popLast() {
            switch next {
            case let text as String:
                mix([1])
                mix(text.utf8)
                mix([0])
            case let data as Data:
                mix([2])
                mix(String(data.count).utf8)
                mix(data)
            case let date as Date:
                mix([3])
                mix(String(date.timeIntervalSinceReferenceDate.bitPattern).utf8)
            case let array as [Any]:
                mix([4])
                mix(String(array.count).utf8)
                pending += array.reversed()
            case let dictionary as [String: Any]:
                mix([5])
                mix(String(dictionary.count).utf8)
                for (key, value) in dictionary.sorted(by: { $0.key < $1.key }).reversed() {
                    pending.append(value)
                    pending.append(key)
                }
            default:
                // Numbers and Booleans, by what a read of them gives.
                mix([6])
                mix(String(describing: PropertyListNumber(next).map { "\($0)" } ?? "\(next)").utf8)
            }
        }
        return Int(bitPattern: UInt(truncatingIfNeeded: hash))
    }
}
