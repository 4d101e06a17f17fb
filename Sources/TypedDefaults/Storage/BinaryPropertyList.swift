import Foundation

/// A reference between the objects of a keyed archive: an index into its `$objects`.
struct ArchiveUID {
    let index: Int
}

/// Reads and writes the binary property lists (`bplist00`) the Linux saver keeps a suite in.
///
/// Why not `PropertyListSerialization`: swift-corelibs-foundation's binary writer and reader go through
/// bridged objects and cost several microseconds a key, so a save of a big suite took longer than the
/// second in which a killed process must have saved (figures in Performance.md). These cost what a Swift dictionary walk costs. Only the value kinds a
/// `UserDefaults` domain holds are handled (string, integer, real, boolean, date, data, array,
/// dictionary with string keys); for anything else, or a file it cannot vouch for, each function
/// returns nil and the caller uses `PropertyListSerialization`, which stays the reference: Foundation
/// reads what this writes exactly as it reads its own files (tested).
enum BinaryPropertyList {
    /// The file for `dictionary`, or nil when a value is not a plain Swift property-list value (an
    /// `NSNumber`, a value type Foundation would refuse).
    ///
    /// A domain's names are kept by their bytes (``ExactText``): a file may hold two forms of one text
    /// that Swift takes for equal, and Foundation keeps both.
    static func encode(_ dictionary: [ExactText: Any]) -> [UInt8]? {
        var flattener = Flattener()
        // A suite's file: a key and a value for each entry, and the dictionary.
        flattener.objects.reserveCapacity(2 * dictionary.count + 1)
        guard let top = flattener.add(entries: dictionary.lazy.map { ($0.key.text, $0.value) }) else { return nil }
        var writer = Writer(objects: flattener.objects)
        return writer.file(top: top)
    }

    /// The dictionary in `bytes`, or nil when `bytes` is not a binary property list of a dictionary
    /// made only of the kinds above, or is malformed in any way.
    static func decode(_ bytes: [UInt8]) -> [ExactText: Any]? {
        guard var reader = Reader(bytes) else { return nil }
        return reader.domain()
    }

    /// The property list in `bytes` with a keyed archive's UIDs read as ``ArchiveUID``s, or nil when it
    /// is not a binary property list of the kinds above, or is malformed in any way.
    static func decodeArchive(_ bytes: [UInt8]) -> Any? {
        guard var reader = Reader(bytes) else { return nil }
        reader.readsUIDs = true
        return reader.object(at: reader.top, depth: 0)
    }

    /// Whether `bytes` is a binary property list with a set or a UID among its objects, which no
    /// `UserDefaults` write makes: swift-corelibs-foundation 6.3.1's `PropertyListSerialization` crashes
    /// on a set, and reads a domain holding a UID as empty, so such a file is one the library cannot
    /// read (moved aside and reported at the next save), never handed to that parser.
    static func holdsSetOrUID(_ bytes: [UInt8]) -> Bool {
        guard let reader = Reader(bytes) else { return false }
        return reader.holdsSetOrUID()
    }

    /// One object of the file: leaves hold their value, collections the indexes of their elements.
    private enum Object {
        case string(String)
        case integer(Int64)
        case bigInteger(UInt64)
        case float(Float)
        case double(Double)
        case date(Double)
        case boolean(Bool)
        case data(Data)
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
        /// Kinds no `UserDefaults` write makes but a file may hold (another tool wrote it), which
        /// Foundation reads (as `NSNull` and a set) and its own writer refuses: written back as they were.
        case null
        case set([Int])
    }

    // MARK: Writing

    /// Turns a value into the file's flat list of objects; equal strings (a key that repeats in the
    /// dictionaries of an array) are written once, equal by their Unicode scalars: two forms of one
    /// text that Swift takes for equal stay two strings, as Foundation keeps them.
    private struct Flattener {
        var objects: [Object] = []
        private var stringIndexes: [ExactText: Int] = [:]

        mutating func add(_ value: Any) -> Int? {
            let type = type(of: value)
            if type == String.self { return add(string: value as! String) }
            if type == Int.self { return append(.integer(Int64(value as! Int))) }
            if type == Bool.self { return append(.boolean(value as! Bool)) }
            if type == Double.self { return append(.double(value as! Double)) }
            if type == Date.self { return append(.date((value as! Date).timeIntervalSinceReferenceDate)) }
            if type == Data.self { return append(.data(value as! Data)) }
            if type == Float.self { return append(.float(value as! Float)) }
            if let set = value as? Set<AnyHashable> { return add(set: set.map(\.base)) }
            // A class instance (NSNumber, NSString, ...) could pass for several of the kinds below: a
            // bridged cast may read an NSNumber 1 as `true`. Each is taken as what it is, or left to
            // Foundation.
            if type is AnyClass { return add(object: value as AnyObject) }
            if let dictionary = value as? [String: Any] { return add(dictionary: dictionary) }
            if let array = value as? [Any] { return add(array: array) }
            if let integer = value as? any FixedWidthInteger {
                if let signed = Int64(exactly: integer) { return append(.integer(signed)) }
                if let unsigned = UInt64(exactly: integer) { return append(.bigInteger(unsigned)) }
            }
            return nil
        }

        private mutating func append(_ object: Object) -> Int {
            objects.append(object)
            return objects.count - 1
        }

        private mutating func add(string: String) -> Int {
            // One lookup, which inserts the next index when the string is new.
            let next = objects.count
            let index = Self.take(&stringIndexes[ExactText(string), default: next])
            if index == next { objects.append(.string(string)) }
            return index
        }

        private static func take(_ slot: inout Int) -> Int { slot }

        private mutating func add(array: [Any]) -> Int? {
            var elements: [Int] = []
            elements.reserveCapacity(array.count)
            for element in array {
                guard let index = add(element) else { return nil }
                elements.append(index)
            }
            return append(.array(elements))
        }

        /// Foundation's objects, as a file Foundation parsed gives them (a file holding a null or a set,
        /// which Foundation's own writer then refuses).
        private mutating func add(object: AnyObject) -> Int? {
            switch object {
            case is NSNull: return append(.null)
            case let set as NSSet: return add(set: set.allObjects)
            case let number as NSNumber:
                switch PropertyListNumber(number) {
                case .bool(let value)?: return append(.boolean(value))
                case .integer(let value)?: return append(.integer(Int64(value)))
                case .real(let value)?: return append(.double(value))
                case nil:
                    return Int64(exactly: number.uint64Value) == nil ? append(.bigInteger(number.uint64Value)) : nil
                }
            case let string as NSString: return add(string: string as String)
            case let date as NSDate: return append(.date(date.timeIntervalSinceReferenceDate))
            case let data as NSData: return append(.data(data as Data))
            case let dictionary as NSDictionary:
                var entries: [String: Any] = [:]
                for (key, value) in dictionary {
                    guard let key = key as? String else { return nil }
                    entries[key] = value
                }
                return add(dictionary: entries)
            case let array as NSArray: return add(array: array.map { $0 })
            default: return nil
            }
        }

        private mutating func add(set elements: [Any]) -> Int? {
            var indexes: [Int] = []
            for element in elements {
                guard let index = add(element) else { return nil }
                indexes.append(index)
            }
            return append(.set(indexes))
        }

        private mutating func add(dictionary: [String: Any]) -> Int? {
            add(entries: dictionary.lazy.map { ($0.key, $0.value) })
        }

        mutating func add(entries: some Collection<(String, Any)>) -> Int? {
            var keys: [Int] = []
            var values: [Int] = []
            keys.reserveCapacity(entries.count)
            values.reserveCapacity(entries.count)
            for (key, value) in entries {
                keys.append(add(string: key))
                guard let index = add(value) else { return nil }
                values.append(index)
            }
            return append(.dictionary(keys: keys, values: values))
        }
    }

    /// Lays the objects out: header, objects, offset table, trailer.
    private struct Writer {
        let objects: [Object]
        /// Bytes in a reference to an object: enough for the last index.
        let referenceSize: Int
        var bytes: [UInt8] = []

        init(objects: [Object]) {
            self.objects = objects
            referenceSize = Self.byteCount(UInt64(objects.count))
        }

        mutating func file(top: Int) -> [UInt8] {
            bytes.reserveCapacity(objects.count * 16 + 64)
            bytes.append(contentsOf: Array("bplist00".utf8))
            var offsets: [Int] = []
            offsets.reserveCapacity(objects.count)
            for object in objects {
                offsets.append(bytes.count)
                write(object)
            }
            let tableOffset = bytes.count
            let offsetSize = Self.byteCount(UInt64(tableOffset))
            for offset in offsets {
                appendBigEndian(UInt64(offset), size: offsetSize)
            }
            bytes.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
            appendBigEndian(UInt64(objects.count), size: 8)
            appendBigEndian(UInt64(top), size: 8)
            appendBigEndian(UInt64(tableOffset), size: 8)
            return bytes
        }

        private mutating func write(_ object: Object) {
            switch object {
            case .string(let string):
                if isASCII(string) {
                    appendMarker(0x50, count: string.utf8.count)
                    bytes.append(contentsOf: string.utf8)
                } else {
                    let units = Array(string.utf16)
                    appendMarker(0x60, count: units.count)
                    for unit in units {
                        appendBigEndian(UInt64(unit), size: 2)
                    }
                }
            case .integer(let value):
                appendInteger(value)
            case .bigInteger(let value):
                // Above Int64.max: the 16-byte form, whose upper half is zero.
                bytes.append(0x14)
                appendBigEndian(0, size: 8)
                appendBigEndian(value, size: 8)
            case .float(let value):
                bytes.append(0x22)
                appendBigEndian(UInt64(value.bitPattern), size: 4)
            case .double(let value):
                bytes.append(0x23)
                appendBigEndian(value.bitPattern, size: 8)
            case .date(let seconds):
                bytes.append(0x33)
                appendBigEndian(seconds.bitPattern, size: 8)
            case .boolean(let value):
                bytes.append(value ? 0x09 : 0x08)
            case .data(let data):
                appendMarker(0x40, count: data.count)
                bytes.append(contentsOf: data)
            case .array(let elements):
                appendMarker(0xA0, count: elements.count)
                appendReferences(elements)
            case .dictionary(let keys, let values):
                appendMarker(0xD0, count: keys.count)
                appendReferences(keys)
                appendReferences(values)
            case .null:
                bytes.append(0x00)
            case .set(let elements):
                appendMarker(0xC0, count: elements.count)
                appendReferences(elements)
            }
        }

        /// Integers from 0 take the fewest of 1, 2 or 4 bytes (read as unsigned); others take 8.
        private mutating func appendInteger(_ value: Int64) {
            let size = value < 0 ? 8 : Self.byteCount(UInt64(value))
            bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
            appendBigEndian(UInt64(bitPattern: value), size: size)
        }

        /// A kind's marker with a count: in the marker below 15, else as an integer object after it.
        private mutating func appendMarker(_ marker: UInt8, count: Int) {
            if count < 15 {
                bytes.append(marker | UInt8(count))
            } else {
                bytes.append(marker | 0x0F)
                appendInteger(Int64(count))
            }
        }

        private mutating func appendReferences(_ indexes: [Int]) {
            for index in indexes {
                appendBigEndian(UInt64(index), size: referenceSize)
            }
        }

        private mutating func appendBigEndian(_ value: UInt64, size: Int) {
            // A loop on the shift rather than a stride: this runs for every reference and offset in the
            // file, and the stride cost more than the bytes it wrote (measured).
            var shift = UInt64(size * 8)
            while shift > 0 {
                shift -= 8
                bytes.append(UInt8(truncatingIfNeeded: value >> shift))
            }
        }

        /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
        private static func byteCount(_ value: UInt64) -> Int {
            switch value {
            case ..<0x100: 1
            case ..<0x1_0000: 2
            case ..<0x1_0000_0000: 4
            default: 8
            }
        }
    }

    // MARK: Reading

    /// Reads objects by index, checking every offset, count and reference against the bytes.
    private struct Reader {
        let bytes: [UInt8]
        let top: Int
        private let objectCount: Int
        private let offsetSize: Int
        private let referenceSize: Int
        private let tableOffset: Int
        /// Whether a UID (the references of a keyed archive) reads, as an `ArchiveUID`; a domain's file
        /// never holds one.
        var readsUIDs = false
        /// Objects left to build: a file whose collections share elements could otherwise make a
        /// small file build an enormous value.
        private var budget: Int

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
            budget = 4 * objects + 1_000
        }

        /// Where object `index` starts, checked against the bytes; nil for a bad index or offset.
        private func offset(ofObject index: Int) -> Int? {
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

        /// Where object `index` starts, counted against the budget and the depth limit.
        private mutating func offset(ofObject index: Int, depth: Int) -> Int? {
            budget -= 1
            guard budget >= 0, depth < 512 else { return nil }
            return offset(ofObject: index)
        }

        mutating func object(at index: Int, depth: Int) -> Any? {
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
                return Data(bytes[start..<start + count])
            case 0x5, 0x6:
                return string(atOffset: offset)
            case 0xA:
                guard let (start, count) = contents(at: offset, unitSize: referenceSize) else { return nil }
                var array: [Any] = []
                array.reserveCapacity(count)
                for position in 0..<count {
                    guard let element = reference(at: start + position * referenceSize, depth: depth) else {
                        return nil
                    }
                    array.append(element)
                }
                return array
            case 0x8 where readsUIDs:
                // A UID of 8 or 16 bytes may not fit an `Int`: no archive refers that far, so it reads as
                // nothing (a conversion that traps would stop the process at every launch).
                guard let index = Self.unsigned(bytes, at: offset + 1, size: low + 1), let fitting = Int(exactly: index)
                else { return nil }
                return ArchiveUID(index: fitting)
            case 0xD:
                return dictionary(at: offset, depth: depth, key: { $0 })
            default:
                // Null, UIDs, sets: not in a domain Foundation writes.
                return nil
            }
        }

        /// The top object, a dictionary, with its keys as their bytes are.
        mutating func domain() -> [ExactText: Any]? {
            budget -= 1
            guard budget >= 0, let offset = offset(ofObject: top), bytes[offset] >> 4 == 0xD else { return nil }
            return dictionary(at: offset, depth: 0, key: ExactText.init)
        }

        private mutating func dictionary<Key: Hashable>(at offset: Int, depth: Int, key makeKey: (String) -> Key)
            -> [Key: Any]?
        {
            guard let (start, count) = contents(at: offset, unitSize: 2 * referenceSize) else { return nil }
            var dictionary: [Key: Any] = [:]
            dictionary.reserveCapacity(count)
            // From the last entry to the first, each replacing what a later one gave: a key given twice
            // keeps its first value, which Foundation reads and so must a save, at one lookup an entry.
            for position in (0..<count).reversed() {
                guard let key = string(atReference: start + position * referenceSize, depth: depth),
                    let value = reference(at: start + (count + position) * referenceSize, depth: depth)
                else { return nil }
                dictionary.updateValue(value, forKey: makeKey(key))
            }
            return dictionary
        }

        /// The string a dictionary's key refers to; nil for any other object. As `reference(at:depth:)`
        /// reads it, without going through `Any` (a big suite's file has a key for every value).
        private mutating func string(atReference position: Int, depth: Int) -> String? {
            guard let index = Self.bigEndian(bytes, at: position, size: referenceSize),
                let offset = offset(ofObject: index, depth: depth + 1)
            else { return nil }
            return string(atOffset: offset)
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

        private mutating func reference(at position: Int, depth: Int) -> Any? {
            guard let index = Self.bigEndian(bytes, at: position, size: referenceSize) else { return nil }
            return object(at: index, depth: depth + 1)
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
        private func contents(at offset: Int, unitSize: Int) -> (start: Int, count: Int)? {
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
        private static func bigEndian(_ bytes: [UInt8], at position: Int, size: Int) -> Int? {
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
}
