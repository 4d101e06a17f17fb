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
    ///
    /// Equal texts and data are written once, each place referring to it: a value the library's reader
    /// shared stays shared, so a save never writes more than it read. A reader that builds every reference
    /// in full (Foundation's) builds more from such a file than it holds; where that is more than the
    /// judge accepts (`expandsBeyondBudget`: an array of 10,000 equal 10 KB texts), the file gets an
    /// unreferenced data object of zeros that brings its size to what the budget asks (which no reader
    /// builds), still far smaller than a copy at each place. So whatever this writes, the judge accepts.
    static func encode(_ dictionary: [ExactText: Any]) -> [UInt8]? {
        var flattener = BinaryPropertyListWriter.Flattener()
        // A suite's file: a key and a value for each entry, and the dictionary.
        flattener.objects.reserveCapacity(2 * dictionary.count + 1)
        guard let top = flattener.add(entries: dictionary.lazy.map { ($0.key.text, $0.value) }) else { return nil }
        var writer = BinaryPropertyListWriter(objects: flattener.objects)
        var bytes = writer.file(top: top)
        var padding = 0
        // Twice at most: the padding object can widen the file's offsets, which the second pass covers.
        for _ in 0..<3 {
            let budget = expansionBudget(forFileOf: bytes.count)
            guard flattener.expandedSize > budget else { return bytes }
            padding += (flattener.expandedSize - budget) / 64 + 64
            var padded = BinaryPropertyListWriter(objects: flattener.objects + [.data(Data(count: padding))])
            bytes = padded.file(top: top)
        }
        return nil
    }

    /// The dictionary in `bytes`, or nil when `bytes` is not a binary property list of a dictionary
    /// made only of the kinds above, or is malformed in any way.
    static func decode(_ bytes: [UInt8]) -> [ExactText: Any]? {
        guard case .read(let dictionary) = decodeJudging(bytes) else { return nil }
        return dictionary
    }

    /// What reading `bytes` as a suite gives.
    enum Reading {
        /// The file's dictionary.
        case read([ExactText: Any])
        /// A file no reader may be handed (`isRefusedOutright`).
        case refused
        /// A file this reader leaves to Foundation's, judged not to be refused: an XML file, or kinds
        /// this reader does not take (a null).
        case notRead
    }

    /// `bytes` read by the library's reader, which judges the file as it reads it: it builds each object
    /// once however often it is referred to, so reading costs what the file holds, and it counts what a
    /// reader that builds every reference (Foundation's) would build, which the budget judges
    /// (`expandsBeyondBudget`). A file it cannot read is judged by `isRefusedOutright` before any other
    /// reader sees it. One walk of the file for a suite's own files, at every look at them.
    static func decodeJudging(_ bytes: [UInt8]) -> Reading {
        guard var reader = BinaryPropertyListReader(bytes) else {
            return isRefusedOutright(bytes) ? .refused : .notRead
        }
        guard let dictionary = reader.domain() else { return isRefusedOutright(bytes) ? .refused : .notRead }
        return reader.domainCost > expansionBudget(forFileOf: bytes.count) ? .refused : .read(dictionary)
    }

    /// The property list in `bytes` with a keyed archive's UIDs read as ``ArchiveUID``s, or nil when it
    /// is not a binary property list of the kinds above, or is malformed in any way.
    static func decodeArchive(_ bytes: [UInt8]) -> Any? {
        guard !expandsBeyondBudget(bytes), var reader = BinaryPropertyListReader(bytes) else { return nil }
        reader.readsUIDs = true
        var cost = 0
        return reader.object(at: reader.top, depth: 0, cost: &cost)
    }

    /// Whether `bytes` is a binary property list with a set or a UID among its objects, which no
    /// `UserDefaults` write makes: swift-corelibs-foundation 6.3.1's `PropertyListSerialization` crashes
    /// on a set, and reads a domain holding a UID as empty, so such a file is one the library cannot
    /// read (moved aside and reported at the next save), never handed to that parser.
    static func holdsSetOrUID(_ bytes: [UInt8]) -> Bool {
        guard let reader = BinaryPropertyListReader(bytes) else { return false }
        return reader.holdsSetOrUID()
    }

    /// Whether `bytes` is a file no reader may be handed, however long one waits for it: a binary
    /// property list with a set (Foundation's parser crashes) or a UID (it reads the domain as empty),
    /// or one that expands far beyond its size, cycles or nests too deep (Foundation builds it in full
    /// or overflows its stack; `expandsBeyondBudget`). The Linux saver judges a suite's file by it, and
    /// `PropertyListDocument` a file to import.
    static func isRefusedOutright(_ bytes: [UInt8]) -> Bool {
        holdsSetOrUID(bytes) || expandsBeyondBudget(bytes)
    }

    /// One object of the file: leaves hold their value, collections the indexes of their elements.
    enum Object {
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
}

// Judging a binary property list before anyone builds it: what its objects expand to.
extension BinaryPropertyList {
    /// Whether reading `bytes` would build far more than the file holds, or could not end: objects
    /// shared by reference (one 1 MB data object in an array a thousand times, 1 GB), a reference cycle,
    /// or nesting deeper than any reader's stack. Foundation's own reader builds such a file in full (a
    /// 1 MB file took 2 GB and more than 30 s; cycles and deep nesting overflow its stack), so such a
    /// file is one the library cannot read: refused, moved aside at a save and reported, and never
    /// handed to Foundation. The check walks each object once, in memory a few words an object.
    ///
    /// The budget: 16 a value built plus the bytes of its text or data, at most 64 times the file's
    /// size and 16 MiB more. A suite Foundation wrote stays far below it (it shares nothing it would
    /// build more than once), and so does one the library wrote: its writer shares equal texts and data
    /// only while the file stays within the budget (`encode`). The library's own reader builds each
    /// object once, however often it is referred to; the budget is what Foundation's reader, which
    /// builds every reference in full, may be handed.
    static func expandsBeyondBudget(_ bytes: [UInt8]) -> Bool {
        guard let reader = BinaryPropertyListReader(bytes) else { return false }
        return reader.expansion(limit: expansionBudget(forFileOf: bytes.count)) == nil
    }

    /// What a file of `size` bytes may build: 64 times its size and 16 MiB more.
    static func expansionBudget(forFileOf size: Int) -> Int {
        64 * size + 16 << 20
    }
}
