import Foundation

/// Lays the objects out: header, objects, offset table, trailer.
struct BinaryPropertyListWriter {
    typealias Object = BinaryPropertyList.Object

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

// Writing a binary property list: the values flattened into a list of objects, then the bytes.
extension BinaryPropertyListWriter {
    /// Turns a value into the file's flat list of objects; equal strings (a key that repeats in the
    /// dictionaries of an array) are written once, equal by their Unicode scalars: two forms of one
    /// text that Swift takes for equal stay two strings, as Foundation keeps them.
    struct Flattener {
        var objects: [Object] = []
        private var stringIndexes: [ExactText: Int] = [:]
        private var dataIndexes: [Data: Int] = [:]
        /// What a reader that builds every reference in full (Foundation's) builds from the file, as
        /// `expandsBeyondBudget` counts it: 16 a value plus its text's or data's bytes, for each reference.
        /// 16 to start with: the top dictionary, which `add(entries:)` makes without `add(_:)`.
        private(set) var expandedSize = 16

        mutating func add(_ value: Any) -> Int? {
            expandedSize &+= 16
            let type = type(of: value)
            if type == String.self { return add(string: value as! String) }
            if type == Int.self { return append(.integer(Int64(value as! Int))) }
            if type == Bool.self { return append(.boolean(value as! Bool)) }
            if type == Double.self { return append(.double(value as! Double)) }
            if type == Date.self { return append(.date((value as! Date).timeIntervalSinceReferenceDate)) }
            if type == Data.self { return add(data: value as! Data) }
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
            // At most two bytes a UTF-8 byte (UTF-16 for other text); counted so without a scan of the
            // text, which every save would pay: the count only decides whether a file needs padding.
            expandedSize &+= 2 * string.utf8.count
            // One lookup, which inserts the next index when the string is new.
            let next = objects.count
            let index = Self.take(&stringIndexes[ExactText(string), default: next])
            if index == next { objects.append(.string(string)) }
            return index
        }

        private mutating func add(data: Data) -> Int {
            expandedSize &+= data.count
            let next = objects.count
            let index = Self.take(&dataIndexes[data, default: next])
            if index == next { objects.append(.data(data)) }
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
            case let data as NSData: return add(data: data as Data)
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
                expandedSize &+= 16
                keys.append(add(string: key))
                guard let index = add(value) else { return nil }
                values.append(index)
            }
            return append(.dictionary(keys: keys, values: values))
        }
    }
}
