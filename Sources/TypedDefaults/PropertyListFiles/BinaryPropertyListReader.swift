import Foundation

// Reading a binary property list from untrusted bytes: every offset, count and reference checked.
/// Reads objects by index, checking every offset, count and reference against the bytes.
struct BinaryPropertyListReader {
    typealias Object = BinaryPropertyList.Object

    let bytes: [UInt8]
    let top: Int
    let objectCount: Int
    private let offsetSize: Int
    let referenceSize: Int
    private let tableOffset: Int
    /// Whether a UID (the references of a keyed archive) reads, as an `ArchiveUID`; a domain's file
    /// never holds one.
    var readsUIDs = false
    /// The texts, data and collections built so far, by index, with what each costs a reader that
    /// builds every reference in full (Foundation's), as the judge counts it (`expansion(limit:)`):
    /// such an object referred to again is the value built the first time (Swift's strings, data,
    /// arrays and dictionaries share their storage), so reading a file builds each of them once,
    /// however often it is referred to, and costs what the file holds. Numbers, dates and short texts
    /// are built at each reference: at most 32 bytes for each reference's byte or more in the file.
    private var shared: [Int: (value: Any, cost: Int)] = [:]
    /// The collections being built now: one referred to from inside itself is a cycle, and refused.
    private var building: [Int] = []
    /// The dictionary keys built so far, by index.
    private var keys: [Int: String] = [:]
    /// The top dictionary's cost, once `domain()` has read it: the library's own reading of a file is
    /// its judgement too (`BinaryPropertyList.decodeJudging`).
    private(set) var domainCost = 0

    init?(_ bytes: [UInt8]) {
        let count = bytes.count
        guard count >= 40, bytes.starts(with: Array("bplist00".utf8)) else { return nil }
        self.bytes = bytes
        let trailer = count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard [1, 2, 4, 8].contains(offsetSize), [1, 2, 4, 8].contains(referenceSize),
            let objects = Self.bigEndian(bytes, at: trailer + 8, size: 8),
            let top = Self.bigEndian(bytes, at: trailer + 16, size: 8),
            let table = Self.bigEndian(bytes, at: trailer + 24, size: 8),
            objects < count, top < objects, table >= 8, table <= trailer,
            (trailer - table) / offsetSize >= objects
        else { return nil }
        objectCount = objects
        self.top = top
        tableOffset = table
    }

    /// Where object `index` starts, checked against the bytes; nil for a bad index or offset.
    func offset(ofObject index: Int) -> Int? {
        guard index < objectCount,
            let offset = Self.bigEndian(bytes, at: tableOffset + index * offsetSize, size: offsetSize),
            offset >= 8, offset < tableOffset
        else { return nil }
        return offset
    }

    /// Whether any object's marker is a set's.
    func holdsSetOrUID() -> Bool {
        (0..<objectCount).contains { index in
            offset(ofObject: index).map { bytes[$0] >> 4 == 0xC || bytes[$0] >> 4 == 0x8 } ?? false
        }
    }

    /// Where object `index` starts, checked against the depth limit.
    private func offset(ofObject index: Int, depth: Int) -> Int? {
        guard depth < 512 else { return nil }
        return offset(ofObject: index)
    }

    /// Object `index`: a text, data or collection built the first time it is referred to and the
    /// same value every time after; its cost added to `cost`.
    mutating func object(at index: Int, depth: Int, cost: inout Int) -> Any? {
        guard let offset = offset(ofObject: index, depth: depth) else { return nil }
        let marker = bytes[offset]
        // A text or data of 15 units or more (its count follows the marker), or a collection.
        let isShared = marker >> 4 >= 0xA || (marker >> 4 >= 0x4 && marker >> 4 <= 0x6 && marker & 0x0F == 0x0F)
        guard isShared else {
            var own = 16
            defer { cost = Self.adding(cost, own) }
            return build(at: index, depth: depth, cost: &own)
        }
        if let (value, own) = shared[index] {
            cost = Self.adding(cost, own)
            return value
        }
        guard !building.contains(index) else { return nil }
        building.append(index)
        defer { building.removeLast() }
        var own = 16
        guard let value = build(at: index, depth: depth, cost: &own) else { return nil }
        shared[index] = (value, own)
        cost = Self.adding(cost, own)
        return value
    }

    /// `total` and `cost`, or `Int.max` past it: a cost is only compared with a budget.
    private static func adding(_ total: Int, _ cost: Int) -> Int {
        let (sum, overflow) = total.addingReportingOverflow(cost)
        return overflow ? .max : sum
    }

    /// Object `index`, with `cost` (16 on entry) raised by its text's or data's bytes, or by its
    /// elements' costs.
    private mutating func build(at index: Int, depth: Int, cost: inout Int) -> Any? {
        guard let offset = offset(ofObject: index, depth: depth) else { return nil }
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return false
            case 0x09: return true
            default: return nil
            }
        case 0x1:
            return integer(at: offset)?.value
        case 0x2:
            if low == 2, let bits = Self.unsigned(bytes, at: offset + 1, size: 4) {
                return Float(bitPattern: UInt32(bits))
            }
            if low == 3, let bits = Self.unsigned(bytes, at: offset + 1, size: 8) {
                return Double(bitPattern: bits)
            }
            return nil
        case 0x3:
            guard marker == 0x33, let bits = Self.unsigned(bytes, at: offset + 1, size: 8) else { return nil }
            return Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))
        case 0x4:
            guard let (start, count) = contents(at: offset, unitSize: 1) else { return nil }
            cost += count
            return Data(bytes[start..<start + count])
        case 0x5, 0x6:
            // Bytes as UTF-16 for the wide kind, as the judge counts them.
            let unitSize = marker >> 4 == 0x5 ? 1 : 2
            cost += unitSize * (contents(at: offset, unitSize: unitSize)?.count ?? 0)
            return string(atOffset: offset)
        case 0xA:
            return array(at: offset, depth: depth, cost: &cost)
        case 0x8 where readsUIDs:
            // A UID of 8 or 16 bytes may not fit an `Int`: no archive refers that far, so it reads as
            // nothing (a conversion that traps would stop the process at every launch).
            return Self.unsigned(bytes, at: offset + 1, size: low + 1).flatMap(Int.init(exactly:))
                .map(ArchiveUID.init(index:))
        case 0xD:
            return dictionary(at: offset, depth: depth, cost: &cost, key: { $0 })
        default:
            // Null, UIDs, sets: not in a domain Foundation writes.
            return nil
        }
    }

    /// The array whose marker is at `offset`, each element read.
    private mutating func array(at offset: Int, depth: Int, cost: inout Int) -> [Any]? {
        guard let (start, count) = contents(at: offset, unitSize: referenceSize) else { return nil }
        var array: [Any] = []
        array.reserveCapacity(count)
        for position in 0..<count {
            guard let element = reference(at: start + position * referenceSize, depth: depth, cost: &cost) else {
                return nil
            }
            array.append(element)
        }
        return array
    }

    /// The top object, a dictionary, with its keys as their bytes are.
    mutating func domain() -> [ExactText: Any]? {
        guard let offset = offset(ofObject: top), bytes[offset] >> 4 == 0xD else { return nil }
        var cost = 16
        defer { domainCost = cost }
        return dictionary(at: offset, depth: 0, cost: &cost, key: ExactText.init)
    }

    private mutating func dictionary<Key: Hashable>(
        at offset: Int, depth: Int, cost: inout Int, key makeKey: (String) -> Key
    ) -> [Key: Any]? {
        guard let (start, count) = contents(at: offset, unitSize: 2 * referenceSize) else { return nil }
        var dictionary: [Key: Any] = [:]
        dictionary.reserveCapacity(count)
        // From the last entry to the first, each replacing what a later one gave: a key given twice
        // keeps its first value, which Foundation reads and so must a save, at one lookup an entry.
        for position in (0..<count).reversed() {
            guard let key = string(atReference: start + position * referenceSize, depth: depth, cost: &cost),
                let value = reference(at: start + (count + position) * referenceSize, depth: depth, cost: &cost)
            else { return nil }
            dictionary.updateValue(value, forKey: makeKey(key))
        }
        return dictionary
    }

    /// The string a dictionary's key refers to; nil for any other object. As `reference(at:depth:)`
    /// reads it, without going through `Any` (a big suite's file has a key for every value).
    private mutating func string(atReference position: Int, depth: Int, cost: inout Int) -> String? {
        guard let index = Self.bigEndian(bytes, at: position, size: referenceSize), index < objectCount,
            let offset = offset(ofObject: index, depth: depth + 1)
        else { return nil }
        // Kept as text, not through `object(at:)`, whose `Any` a key would have to be cast back from
        // at every key of a big suite. A long key is built once (the writers share a key every
        // dictionary of an array has).
        let unitSize = bytes[offset] >> 4 == 0x6 ? 2 : 1
        cost = Self.adding(cost, 16 + unitSize * (contents(at: offset, unitSize: unitSize)?.count ?? 0))
        guard bytes[offset] & 0x0F == 0x0F else { return string(atOffset: offset) }
        if let key = keys[index] { return key }
        let key = string(atOffset: offset)
        keys[index] = key
        return key
    }

    /// The string object at `offset`, ASCII or UTF-16; nil for any other object.
    private func string(atOffset offset: Int) -> String? {
        switch bytes[offset] >> 4 {
        case 0x5:
            guard let (start, count) = contents(at: offset, unitSize: 1) else { return nil }
            let ascii = bytes[start..<start + count]
            guard ascii.allSatisfy({ $0 < 0x80 }) else { return nil }
            return String(decoding: ascii, as: UTF8.self)
        case 0x6:
            guard let (start, count) = contents(at: offset, unitSize: 2) else { return nil }
            return utf16String(from: start, count: count)
        default:
            return nil
        }
    }

    /// The object a reference at `position` refers to, its cost added to `cost` (at each reference).
    private mutating func reference(at position: Int, depth: Int, cost: inout Int) -> Any? {
        guard let index = Self.bigEndian(bytes, at: position, size: referenceSize) else { return nil }
        return object(at: index, depth: depth + 1, cost: &cost)
    }

    /// An integer object: 1, 2 and 4 bytes are unsigned, 8 signed, 16 the unsigned value of its lower
    /// half when the upper half is all zeros or all ones, as Foundation reads it (a negative value in
    /// 16 bytes reads as a large unsigned one there too). Returns the value and where it ends.
    private func integer(at offset: Int) -> (value: Any, end: Int)? {
        let marker = bytes[offset]
        guard marker & 0xF0 == 0x10 else { return nil }
        switch marker & 0x0F {
        case 0, 1, 2:
            let size = 1 << Int(marker & 0x0F)
            guard let value = Self.bigEndian(bytes, at: offset + 1, size: size) else { return nil }
            return (value, offset + 1 + size)
        case 3:
            guard let bits = Self.unsigned(bytes, at: offset + 1, size: 8) else { return nil }
            return (Int(Int64(bitPattern: bits)), offset + 9)
        case 4:
            guard let high = Self.unsigned(bytes, at: offset + 1, size: 8),
                let low = Self.unsigned(bytes, at: offset + 9, size: 8)
            else { return nil }
            guard high == 0 || high == UInt64.max else { return nil }
            return (low <= UInt64(Int.max) ? Int(low) : low as Any, offset + 17)
        default:
            return nil
        }
    }

    /// Where the contents of a string, data or collection object start and how many units they
    /// have, checked to lie before the offset table.
    func contents(at offset: Int, unitSize: Int) -> (start: Int, count: Int)? {
        var count = Int(bytes[offset] & 0x0F)
        var start = offset + 1
        if count == 0x0F {
            guard start < tableOffset, let (value, end) = integer(at: start), let length = value as? Int,
                length >= 0
            else { return nil }
            count = length
            start = end
        }
        let (size, overflow) = count.multipliedReportingOverflow(by: unitSize)
        guard !overflow, size <= tableOffset - start else { return nil }
        return (start, count)
    }

    private func utf16String(from start: Int, count: Int) -> String? {
        var units: [UInt16] = []
        units.reserveCapacity(count)
        for position in stride(from: start, to: start + 2 * count, by: 2) {
            units.append(UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1]))
        }
        // A lone surrogate cannot live in a Swift String: leave such a file to Foundation rather than
        // change the text.
        var iterator = units.makeIterator()
        var decoder = UTF16()
        var scalars = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): scalars.append(scalar)
            case .emptyInput: return String(scalars)
            case .error: return nil
            }
        }
    }

    /// The unsigned big-endian number of `size` bytes at `position`, as an `Int`; nil when it is
    /// out of bounds or does not fit.
    static func bigEndian(_ bytes: [UInt8], at position: Int, size: Int) -> Int? {
        guard let value = unsigned(bytes, at: position, size: size), value <= UInt64(Int.max) else {
            return nil
        }
        return Int(value)
    }

    private static func unsigned(_ bytes: [UInt8], at position: Int, size: Int) -> UInt64? {
        guard position >= 0, size <= bytes.count, position <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for byte in bytes[position..<position + size] {
            value = value << 8 | UInt64(byte)
        }
        return value
    }
}

// Judging a binary property list before anyone builds it: what its objects expand to.
extension BinaryPropertyListReader {
    /// What reading the top object builds (16 a value plus its text's or data's bytes), or nil when it is
    /// more than `limit`, a reference cycles, or the nesting is deeper than `maximumDepth`. Objects the
    /// reader would refuse count as leaves: this judges size, not form.
    func expansion(limit: Int, maximumDepth: Int = 512) -> Int? {
        /// 0: not seen; -1: being walked (seen again: a cycle); else its cost plus one.
        var costs = [Int](repeating: 0, count: objectCount)
        // Post-order walk without recursion: (object, its children, next child to visit, cost so far).
        var stack: [(index: Int, children: [Int], next: Int, cost: Int)] = []
        func push(_ index: Int) -> Bool {
            guard index >= 0, index < objectCount else { return true }  // a bad reference: the reader refuses it
            guard costs[index] == 0 else { return costs[index] > 0 }
            guard stack.count < maximumDepth else { return false }
            costs[index] = -1
            stack.append((index, references(ofObject: index), 0, 16 + payloadBytes(ofObject: index)))
            return true
        }
        guard push(top) else { return nil }
        var result = 0
        while let frame = stack.last {
            if frame.next < frame.children.count {
                stack[stack.count - 1].next += 1
                let child = frame.children[frame.next]
                guard push(child) else { return nil }
                if child >= 0, child < objectCount, costs[child] > 0, stack.last?.index == frame.index {
                    // Already walked: its cost again, for every reference.
                    let (sum, overflow) = stack[stack.count - 1].cost.addingReportingOverflow(costs[child] - 1)
                    guard !overflow, sum <= limit else { return nil }
                    stack[stack.count - 1].cost = sum
                }
                continue
            }
            stack.removeLast()
            guard frame.cost <= limit else { return nil }
            costs[frame.index] = frame.cost + 1
            if let parent = stack.indices.last {
                let (sum, overflow) = stack[parent].cost.addingReportingOverflow(frame.cost)
                guard !overflow, sum <= limit else { return nil }
                stack[parent].cost = sum
            } else {
                result = frame.cost
            }
        }
        return result
    }

    /// The bytes of text or data object `index` builds; 0 for other objects and bad ones.
    private func payloadBytes(ofObject index: Int) -> Int {
        guard let offset = offset(ofObject: index) else { return 0 }
        switch bytes[offset] >> 4 {
        case 0x4, 0x5: return contents(at: offset, unitSize: 1)?.count ?? 0
        case 0x6: return 2 * (contents(at: offset, unitSize: 2)?.count ?? 0)
        default: return 0
        }
    }

    /// The objects a collection object refers to (an array's or set's elements, a dictionary's keys and
    /// values); empty for other objects and bad ones. -1 stands for a reference that cannot be read.
    private func references(ofObject index: Int) -> [Int] {
        guard let offset = offset(ofObject: index) else { return [] }
        let perEntry: Int
        switch bytes[offset] >> 4 {
        case 0xA, 0xC: perEntry = 1
        case 0xD: perEntry = 2
        default: return []
        }
        guard let (start, count) = contents(at: offset, unitSize: perEntry * referenceSize) else { return [] }
        return (0..<perEntry * count).map { position in
            Self.bigEndian(bytes, at: start + position * referenceSize, size: referenceSize) ?? -1
        }
    }
}
