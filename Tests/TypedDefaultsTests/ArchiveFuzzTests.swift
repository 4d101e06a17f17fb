import Foundation
import ProbeSettings
import Testing
import TypedDefaults

// Any bytes stored for an archived key read as the key's default, never a crash: keyed archives built
// and then broken at random, structurally (classes, references, counts, cycles, field kinds, nesting)
// and byte by byte, each read by a child process as a `Swatch`, an array of them and a URL. A crash
// would repeat at every launch of an app, since the value stays stored.

/// A keyed archive as objects, written as a binary property list by `bytes`, so that a test can build
/// one no archiver would write.
struct ArchiveModel {
    /// A property-list value of an archive: UIDs among them.
    indirect enum Value {
        case string(String)
        case integer(Int)
        case real(Double)
        case data([UInt8])
        case boolean(Bool)
        case uid(Int)
        case array([Value])
        case dictionary([(String, Value)])
    }

    /// `$objects`: 0 is `$null`.
    var objects: [Value]
    var root: Value = .uid(1)

    /// A swatch as `NSKeyedArchiver` writes one: root, its name, its class.
    static func swatch(name: String, level: Int) -> ArchiveModel {
        ArchiveModel(objects: [
            .string("$null"),
            .dictionary([("name", .uid(2)), ("level", .integer(level)), ("$class", .uid(3))]),
            .string(name),
            classEntry(swatchClassName, [swatchClassName, "NSObject"]),
        ])
    }

    /// The name archives give the tests' `Swatch` (its module's name first).
    static let swatchClassName = NSStringFromClass(Swatch.self)

    static func classEntry(_ name: String, _ chain: [String]) -> Value {
        .dictionary([("$classname", .string(name)), ("$classes", .array(chain.map { .string($0) }))])
    }

    var top: Value {
        .dictionary([
            ("$archiver", .string("NSKeyedArchiver")), ("$version", .integer(100_000)),
            ("$top", .dictionary([("root", root)])), ("$objects", .array(objects)),
        ])
    }

    /// The binary property list of `top`: two-byte offsets and references.
    var bytes: [UInt8] {
        var flat: [[UInt8]] = []
        func add(_ value: Value) -> Int {
            let index = flat.count
            flat.append([])
            func reference(_ index: Int) -> [UInt8] { [UInt8(index >> 8), UInt8(index & 0xFF)] }
            func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
                count < 15
                    ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x11, UInt8(count >> 8), UInt8(count & 0xFF)]
            }
            var encoded: [UInt8]
            switch value {
            case .string(let text):
                if text.utf8.allSatisfy({ $0 < 0x80 }) {
                    encoded = marker(0x5, text.utf8.count) + Array(text.utf8)
                } else {
                    encoded = marker(0x6, text.utf16.count) + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
                }
            case .integer(let number):
                encoded = [0x13] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: number >> ($0 * 8)) }
            case .real(let number):
                encoded = [0x23] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: number.bitPattern >> ($0 * 8)) }
            case .data(let bytes): encoded = marker(0x4, bytes.count) + bytes
            case .boolean(let flag): encoded = [flag ? 0x09 : 0x08]
            case .uid(let target):
                encoded = [0x87] + (0..<8).reversed().map { UInt8(truncatingIfNeeded: target >> ($0 * 8)) }
            case .array(let elements):
                let references = elements.map(add)
                encoded = marker(0xA, references.count) + references.flatMap(reference)
            case .dictionary(let entries):
                let keys = entries.map { add(.string($0.0)) }
                let values = entries.map { add($0.1) }
                encoded = marker(0xD, entries.count) + (keys + values).flatMap(reference)
            }
            flat[index] = encoded
            return index
        }
        _ = add(top)
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in flat {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += [UInt8(truncatingIfNeeded: offset >> 8), UInt8(truncatingIfNeeded: offset)] }
        func bigEndian(_ value: Int) -> [UInt8] {
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
        }
        bytes += [0, 0, 0, 0, 0, 0, 2, 2] + bigEndian(flat.count) + bigEndian(0) + bigEndian(tableOffset)
        return bytes
    }
}

/// Archives broken at random, reproducibly from a seed.
struct ArchiveMutator {
    var random: SplitMix64

    private static let classNames: [String] = [
        ArchiveModel.swatchClassName, "Swatch", "NSString", "NSMutableString", "NSArray", "NSDictionary", "NSURL",
        "NSDate", "NSData", "NSUUID",
        "NSObject", "NSNumber", "NoSuchClass", "Swift._SwiftValue", "",
    ]

    private mutating func pick(_ count: Int) -> Int { Int(random.next() % UInt64(max(count, 1))) }

    /// A value of a random kind, referring to objects among `count`.
    private mutating func anyValue(_ count: Int, depth: Int = 0) -> ArchiveModel.Value {
        switch pick(depth > 2 ? 6 : 8) {
        case 0: return .string(["x", "", "NS.string", "é"][pick(4)])
        case 1: return .integer([0, -1, 1 << 40, Int.max][pick(4)])
        case 2: return .real([0.5, .nan, .infinity][pick(3)])
        case 3: return .data([0, 1, 2])
        case 4: return .boolean(pick(2) == 0)
        case 5: return .uid([0, 1, 2, 3, count - 1, count, count + 5, Int.max][pick(8)])
        case 6: return .array((0..<pick(4)).map { _ in anyValue(count, depth: depth + 1) })
        default: return .dictionary([("$class", .uid(pick(count))), ("NS.string", anyValue(count, depth: depth + 1))])
        }
    }

    /// Applies one to three structural changes: a field of another kind, another class, an object of
    /// Foundation's with fields of any kind, a reference to anywhere (the root: a cycle), nesting.
    mutating func mutate(_ model: inout ArchiveModel) {
        for _ in 0...pick(3) {
            let index = pick(model.objects.count)
            switch pick(7) {
            case 0:
                guard case .dictionary(var entries) = model.objects[index], !entries.isEmpty else { continue }
                entries[pick(entries.count)].1 = anyValue(model.objects.count)
                model.objects[index] = .dictionary(entries)
            case 1:
                let name = Self.classNames[pick(Self.classNames.count)]
                model.objects.append(ArchiveModel.classEntry(name, [name, "NSObject"]))
                let classIndex = model.objects.count - 1
                guard case .dictionary(var entries) = model.objects[1] else { continue }
                entries.removeAll { $0.0 == "$class" }
                entries.append(("$class", .uid(classIndex)))
                model.objects[1] = .dictionary(entries)
            case 2:
                // The name as an object of a Foundation class, with fields of any kind.
                let name = Self.classNames[pick(Self.classNames.count)]
                model.objects.append(ArchiveModel.classEntry(name, [name, "NSObject"]))
                let classIndex = model.objects.count - 1
                let fields = ["NS.string", "NS.objects", "NS.keys", "NS.relative", "NS.base", "NS.time", "NS.data"]
                var entries: [(String, ArchiveModel.Value)] = [("$class", .uid(classIndex))]
                for _ in 0...pick(3) { entries.append((fields[pick(fields.count)], anyValue(model.objects.count + 1))) }
                model.objects.append(.dictionary(entries))
                model.objects[2] = .uid(model.objects.count - 1)
                if pick(2) == 0, case .dictionary(var root) = model.objects[1] {
                    root.removeAll { $0.0 == "name" }
                    root.append(("name", .uid(model.objects.count - 1)))
                    model.objects[1] = .dictionary(root)
                }
            case 3:
                guard case .dictionary(var root) = model.objects[1] else { continue }
                root.removeAll { $0.0 == "name" }
                root.append(("name", .uid([1, 0, model.objects.count, Int.max >> 1][pick(4)])))
                model.objects[1] = .dictionary(root)
            case 4:
                model.root = anyValue(model.objects.count)
            case 5:
                var nested = ArchiveModel.Value.uid(1)
                for _ in 0..<pick(600) { nested = .array([nested]) }
                model.objects[index] = nested
            default:
                model.objects[index] = anyValue(model.objects.count)
            }
        }
    }

    /// Flips a few bytes of `bytes`.
    mutating func flip(_ bytes: inout [UInt8]) {
        for _ in 0...pick(4) where !bytes.isEmpty {
            bytes[pick(bytes.count)] ^= UInt8(truncatingIfNeeded: random.next() | 1)
        }
    }
}

@Suite("Archived values: any bytes read as the default, never a crash")
struct ArchiveFuzzTests {
    /// Cases: hundreds in `swift test`, thousands in `.ci/run`'s long runs.
    private static let cases = runsLongTests ? 4_000 : 300

    /// Reads `archives` in child processes, one line each, as long as a process answers; a process that
    /// ends before it answers has crashed on that case, and a new one goes on from the next.
    private func crashes(reading archives: [[UInt8]]) throws -> [Int] {
        var crashed: [Int] = []
        var probe = try ProbeProcess(["read-archives", "-"])
        for (index, archive) in archives.enumerated() {
            if try probe.ask(archive.map { String(format: "%02x", $0) }.joined()) == "ok" { continue }
            let output = probe.finish()
            print(
                "archive fuzz: case \(index) stopped the reader (\(output.reason), status \(output.status)): "
                    + output.standardError.suffix(300))
            crashed.append(index)
            if crashed.count > 20 { return crashed }
            probe = try ProbeProcess(["read-archives", "-"])
        }
        try probe.closeInput()
        _ = probe.finish()
        return crashed
    }

    @Test func brokenArchivesReadAsTheDefaultWithoutACrash() throws {
        // Another seed explores other cases: TYPED_DEFAULTS_FUZZ_SEED=N.
        let seed = ProcessInfo.processInfo.environment["TYPED_DEFAULTS_FUZZ_SEED"].flatMap { UInt64($0) }
        var mutator = ArchiveMutator(random: SplitMix64(state: seed ?? 20_261_124))
        let valid = try NSKeyedArchiver.archivedData(
            withRootObject: Swatch(name: "teal", level: 3), requiringSecureCoding: true)
        let validArray = try NSKeyedArchiver.archivedData(
            withRootObject: [Swatch(name: "a", level: 1), Swatch(name: "b", level: 2)], requiringSecureCoding: false)
        var archives: [[UInt8]] = []
        for index in 0..<Self.cases {
            switch index % 3 {
            case 0:
                var model = ArchiveModel.swatch(name: "teal", level: 3)
                mutator.mutate(&model)
                archives.append(model.bytes)
            case 1:
                var bytes = [UInt8](valid)
                mutator.flip(&bytes)
                archives.append(bytes)
            default:
                var model = ArchiveModel.swatch(name: "teal", level: 3)
                mutator.mutate(&model)
                var bytes = index % 2 == 0 ? model.bytes : [UInt8](validArray)
                mutator.flip(&bytes)
                archives.append(bytes)
            }
        }
        let crashed = try crashes(reading: archives)
        print("archive fuzz: \(archives.count) archives, \(crashed.count) crashes")
        #expect(crashed.isEmpty, "cases that stopped the reader: \(crashed)")
        // The builder writes what the library reads: an unbroken model is a swatch.
        let store = DefaultsStore(storage: InMemoryStorage())
        store.storage.set(Data(ArchiveModel.swatch(name: "teal", level: 3).bytes), forKey: "swatch")
        #expect(store[.swatch] == Swatch(name: "teal", level: 3))
    }
}
