import Foundation

/// A property-list file of a whole suite, read from bytes nobody vouches for and written in either
/// format: for tools that export and import a suite (the `typed-defaults` command). Not public API.
///
/// Reading judges the bytes before any parser builds them, as the Linux saver judges a suite's file: a
/// binary file the library's own reader takes is read by it; one that holds a set or a UID, expands far
/// beyond its size, cycles or nests too deep is refused (Foundation's reader on Linux crashes on a set,
/// builds an expansion in full and overflows its stack on deep nesting); an XML file nested deeper than
/// `PropertyListValue.maximumNesting` is refused before Foundation's recursive parser sees it.
package enum PropertyListDocument {
    package enum Format: String, Sendable, CaseIterable {
        case binary = "binary1"
        case xml = "xml1"
    }

    /// Why bytes were not read as a suite.
    package struct Refusal: Error, CustomStringConvertible, Sendable {
        package let description: String
    }

    /// The largest file read: a suite holds settings, not media.
    package static let maximumSize = 64 << 20

    /// The suite's values in `bytes`, each name as spelled there (two Unicode forms of a name stay two
    /// entries, in the file's order for the binary format), and the file's format.
    package static func values(in bytes: [UInt8]) throws -> (
        values: [(name: String, object: Any)], format: Format
    ) {
        guard bytes.count <= maximumSize else {
            throw Refusal(description: "it is larger than \(maximumSize >> 20) MB")
        }
        if bytes.starts(with: Array("bplist".utf8)) {
            // Judged by the library's reader as it reads (it builds no more than the file holds), or
            // before Foundation's reader sees it.
            switch BinaryPropertyList.decodeJudging(bytes) {
            case .read(let decoded):
                let values = decoded.map { ($0.key.text, $0.value) }
                try refuseUnstorable(values)
                return (values, .binary)
            case .refused:
                throw Refusal(
                    description: "it is a binary property list no reader may be handed (a set, a UID, "
                        + "an expansion far beyond its size, a cycle or nesting deeper than "
                        + "\(PropertyListValue.maximumNesting) levels)")
            case .notRead:
                return (try parsedByFoundation(bytes), .binary)
            }
        }
        guard isXMLPropertyList(bytes) else {
            throw Refusal(description: "it is not a property list (binary or XML)")
        }
        guard xmlNestingDepth(bytes) <= PropertyListValue.maximumNesting else {
            throw Refusal(description: "it nests deeper than \(PropertyListValue.maximumNesting) levels")
        }
        return (try parsedByFoundation(bytes), .xml)
    }

    /// The file for `values` in `format`. Dates keep their sub-second part in the binary format; the XML
    /// format writes whole seconds (the format's own rule).
    package static func bytes(of values: [String: Any], format: Format) throws -> [UInt8] {
        do {
            return try encoded(
                Dictionary(uniqueKeysWithValues: values.map { (ExactText($0.key), $0.value) }), format: format)
        } catch {
            throw Refusal(description: "the values cannot be written as a property list (\(error))")
        }
    }

    /// `contents` as a file in `format`, names kept by their bytes: the library's own binary writer where
    /// it can (plain Swift values), else Foundation's, whose error is thrown. The Linux saver writes a
    /// suite's file with it too.
    static func encoded(_ contents: [ExactText: Any], format: Format) throws -> [UInt8] {
        if format == .binary, let bytes = BinaryPropertyList.encode(contents) { return bytes }
        let dictionary = NSMutableDictionary()
        for (name, object) in contents { dictionary[NSString(string: name.text)] = object }
        return [UInt8](
            try PropertyListSerialization.data(
                fromPropertyList: dictionary, format: format == .xml ? .xml : .binary, options: 0))
    }

    private static func parsedByFoundation(_ bytes: [UInt8]) throws -> [(name: String, object: Any)] {
        let parsed: Any
        do {
            parsed = try PropertyListSerialization.propertyList(from: Data(bytes), format: nil)
        } catch {
            throw Refusal(description: "it is not a readable property list (\(error))")
        }
        guard let dictionary = parsed as? [String: Any] else {
            throw Refusal(description: "its top is not a dictionary of names and values")
        }
        let values = dictionary.map { ($0.key, $0.value) }
        try refuseUnstorable(values)
        return values
    }

    private static func refuseUnstorable(_ values: [(name: String, object: Any)]) throws {
        for (name, object) in values where !isStorablePropertyList(object) {
            throw Refusal(description: "the value of \"\(name)\" is not one a suite can hold (a null or a set)")
        }
    }

    /// Whether `bytes` begin, past white space and a byte-order mark, with an XML declaration or a
    /// `<plist` element.
    private static func isXMLPropertyList(_ bytes: [UInt8]) -> Bool {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        let rest = bytes[start...]
        return rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<!DOCTYPE plist".utf8))
            || rest.starts(with: Array("<plist".utf8))
    }

    /// The deepest nesting of `<array>` and `<dict>` elements in XML `bytes`, counted in one pass
    /// without parsing (an element that closes itself, `<array/>`, does not nest).
    static func xmlNestingDepth(_ bytes: [UInt8]) -> Int {
        var depth = 0
        var deepest = 0
        var index = 0
        let open = UInt8(ascii: "<")
        while let found = bytes[index...].firstIndex(of: open) {
            index = found + 1
            let closing = index < bytes.count && bytes[index] == UInt8(ascii: "/")
            let nameStart = closing ? index + 1 : index
            var nameEnd = nameStart
            while nameEnd < bytes.count, nameEnd - nameStart < 6,
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[nameEnd])
            {
                nameEnd += 1
            }
            let name = bytes[nameStart..<nameEnd]
            guard name.elementsEqual("array".utf8) || name.elementsEqual("dict".utf8) else { continue }
            // `<array/>` closes itself; `<array>` and `<array attr>` open.
            var end = nameEnd
            while end < bytes.count, bytes[end] != UInt8(ascii: ">") { end += 1 }
            let selfClosing = end > nameEnd && bytes[end - 1] == UInt8(ascii: "/")
            if closing {
                depth = max(0, depth - 1)
            } else if !selfClosing {
                depth += 1
                deepest = max(deepest, depth)
            }
        }
        return deepest
    }
}

// A suite's own file, as the Linux saver reads it: the library's reader where it can.
extension PropertyListDocument {
    /// The dictionary in a suite's file: the library's own reader for the binary files it writes, and
    /// Foundation's for anything else (an XML file from `synchronize()`, kinds the reader leaves).
    /// Names are kept by their bytes (``ExactText``): a file may hold two forms of one text that Swift
    /// takes for equal, and Foundation keeps both.
    static func suiteContents(_ bytes: [UInt8]) -> [ExactText: Any]? {
        suiteContentsJudging(bytes).parsed
    }

    /// `suiteContents`, and whether the file is one no reader may be handed
    /// (`BinaryPropertyList.isRefusedOutright`): judged once, by the library's reader as it reads
    /// (which builds no more than the file holds), or before Foundation's reader sees it.
    static func suiteContentsJudging(_ bytes: [UInt8]) -> (parsed: [ExactText: Any]?, refusedOutright: Bool) {
        switch BinaryPropertyList.decodeJudging(bytes) {
        case .read(let dictionary): return (dictionary, false)
        case .refused: return (nil, true)
        case .notRead: return (suiteParsedByFoundation(bytes), false)
        }
    }

    /// What Foundation's parser reads from `bytes`, which the library's own reader left.
    private static func suiteParsedByFoundation(_ bytes: [UInt8]) -> [ExactText: Any]? {
        guard let parsed = try? PropertyListSerialization.propertyList(from: Data(bytes), format: nil),
            let dictionary = parsed as? [String: Any]
        else { return nil }
        // Foundation's objects (NSNumber, ...) are left to Foundation's slow encoder, save after save:
        // take them through its binary form once, which the library's reader turns into Swift values.
        if let binary = try? PropertyListSerialization.data(fromPropertyList: parsed, format: .binary, options: 0),
            let dictionary = BinaryPropertyList.decode([UInt8](binary))
        {
            return dictionary
        }
        return Dictionary(uniqueKeysWithValues: dictionary.map { (ExactText($0), $1) })
    }
}
