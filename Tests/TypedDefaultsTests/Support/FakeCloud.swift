import Foundation
import TypedDefaults

/// A simulated iCloud key-value store: a server that keeps, for each key, the last value that reached
/// it (as iCloud does: by arrival), and a network whose messages a test delivers when it chooses: late,
/// out of order, twice, or dropped and replayed later. Each device has a local copy of the cloud's
/// values, changed at once by its own `set` and by deliveries before its handler is called.
final class FakeCloud: @unchecked Sendable {
    // @unchecked: all state is guarded by `lock`; devices are called with it released.
    enum Message {
        case upload(from: Int, changes: [(key: String, object: Any?)])
        case deliver(to: Int, changes: [(key: String, object: Any?)], reason: CloudChangeReason)
    }

    private let lock = NSLock()
    private var server: [String: Any] = [:]
    private var inFlight: [Message] = []
    private var dropped: [Message] = []
    private var devices: [Device] = []
    private var uploadedKeys: Set<String> = []
    private var uploadsFrom: [Int: Int] = [:]

    /// Every key any device ever sent.
    var everUploaded: Set<String> { lock.withLock { uploadedKeys } }
    /// How many uploads `device` sent.
    func uploads(from device: Int) -> Int { lock.withLock { uploadsFrom[device, default: 0] } }
    /// The server's values.
    var serverValues: [String: Any] { lock.withLock { server } }
    var messagesInFlight: Int { lock.withLock { inFlight.count + dropped.count } }

    /// A new device, as on a new install: its copy is empty, and the first fetch of the server's values
    /// (an initial sync) is on its way.
    func connect() -> Device {
        lock.withLock {
            let device = Device(index: devices.count, cloud: self)
            devices.append(device)
            let snapshot = server.map { (key: $0.key, object: Optional($0.value)) }
            inFlight.append(.deliver(to: device.index, changes: snapshot, reason: .initialSync))
            return device
        }
    }

    fileprivate func send(_ message: Message) {
        lock.withLock {
            if case .upload(let from, let changes) = message {
                uploadedKeys.formUnion(changes.map(\.key))
                uploadsFrom[from, default: 0] += 1
            }
            inFlight.append(message)
        }
    }

    /// Delivers message `index` (of those in flight) and, with `keepingCopy`, leaves a copy to arrive
    /// again later.
    func deliver(at index: Int, keepingCopy: Bool = false) {
        let message = lock.withLock { keepingCopy ? inFlight[index] : inFlight.remove(at: index) }
        switch message {
        case .upload(let from, let changes):
            let others = lock.withLock { () -> [Int] in
                for (key, object) in changes { server[key] = object }
                return devices.map(\.index).filter { $0 != from }
            }
            for index in others { send(.deliver(to: index, changes: changes, reason: .serverChange)) }
        case .deliver(let to, let changes, let reason):
            let device = lock.withLock { devices[to] }
            device.receive(changes, reason: reason)
        }
    }

    /// Drops message `index`, to be replayed by `settle`.
    func drop(at index: Int) {
        lock.withLock { dropped.append(inFlight.remove(at: index)) }
    }

    /// One step of a schedule: delivers, duplicates or drops a message chosen by `random`.
    func step(_ random: inout some RandomNumberGenerator) {
        let count = lock.withLock { inFlight.count }
        guard count > 0 else { return }
        let index = Int.random(in: 0..<count, using: &random)
        switch Int.random(in: 0..<10, using: &random) {
        case 0: deliver(at: index, keepingCopy: true)
        case 1: drop(at: index)
        default: deliver(at: index)
        }
    }

    /// Replays what was dropped and delivers everything in flight in a random order, until nothing is.
    func settle(_ random: inout some RandomNumberGenerator) {
        lock.withLock {
            inFlight += dropped
            dropped = []
        }
        while let count = lock.withLock({ inFlight.isEmpty ? nil : inFlight.count }) {
            deliver(at: Int.random(in: 0..<count, using: &random))
        }
    }

    /// Delivers everything in flight, in order.
    func deliverAll() {
        while lock.withLock({ !inFlight.isEmpty }) { deliver(at: 0) }
    }

    /// The user signs in to another account on `device`: its copy holds that account's values.
    func changeAccount(of device: Device, to values: [String: Any]) {
        device.receive(
            device.dictionaryRepresentation().keys.map { ($0, nil) } + values.map { ($0.key, $0.value) },
            reason: .accountChange)
    }

    /// One device's copy of the cloud.
    final class Device: CloudKeyValueStore, @unchecked Sendable {
        // @unchecked: all state is guarded by `lock`.
        let index: Int
        private unowned let cloud: FakeCloud
        private let lock = NSLock()
        private var values: [String: Any] = [:]
        private var outbox: [(key: String, object: Any?)] = []
        private var handler: (@Sendable (CloudChangeReason, [String]) -> Void)?

        fileprivate init(index: Int, cloud: FakeCloud) {
            self.index = index
            self.cloud = cloud
        }

        func object(forKey key: String) -> Any? { lock.withLock { values[key] } }

        func set(_ object: Any?, forKey key: String) {
            lock.withLock {
                values[key] = object
                outbox.append((key, object))
            }
        }

        func dictionaryRepresentation() -> [String: Any] { lock.withLock { values } }

        func synchronize() {
            let changes = lock.withLock { () -> [(key: String, object: Any?)] in
                defer { outbox = [] }
                return outbox
            }
            if !changes.isEmpty { cloud.send(.upload(from: index, changes: changes)) }
        }

        /// The last engine's handler: a relaunched app replaces the one before.
        func onChange(_ handler: @escaping @Sendable (CloudChangeReason, [String]) -> Void) {
            lock.withLock { self.handler = handler }
        }

        /// A change reported with no values (a quota violation).
        func report(_ reason: CloudChangeReason) {
            let handler = lock.withLock { self.handler }
            handler?(reason, [])
        }

        /// Values that arrive from the server: in the copy, then reported.
        func receive(_ changes: [(key: String, object: Any?)], reason: CloudChangeReason) {
            let handler = lock.withLock { () -> (@Sendable (CloudChangeReason, [String]) -> Void)? in
                for (key, object) in changes { values[key] = object }
                return self.handler
            }
            handler?(reason, changes.map(\.key))
        }
    }
}

/// A device's clock in a simulation: the simulated time plus the device's skew.
final class SimulatedClock: @unchecked Sendable {
    // @unchecked: `time` is guarded by `lock`.
    private let lock = NSLock()
    private var time: Double

    init(_ start: Double = 1_000) { time = start }

    var now: Double { lock.withLock { time } }
    func advance(by seconds: Double) { lock.withLock { time += seconds } }
    func reading(skew: Double) -> @Sendable () -> Double { { [self] in now + skew } }
}
