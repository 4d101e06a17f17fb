import Foundation
import ProbeSettings
import Testing
import TypedDefaults

// Files whose objects are referred to many times: what the library writes itself (its writer shares
// equal texts and data) is read back whole by the next process; what another writer shares is built
// once by the library's reader, judged before anything builds it, and never written back larger.
#if os(Linux)

    /// The value kinds whose leaves the writer shares.
    enum SharedKind: String, CaseIterable, Sendable {
        case texts, data, dictionaries
    }

    /// One suite the library writes: an array of `count` equal leaves of `size` bytes.
    struct SharedValue: CustomTestStringConvertible, Sendable {
        let kind: SharedKind
        let count: Int
        let size: Int
        var testDescription: String { "\(count) × \(size) B \(kind)" }

        /// A name for each kind: one name with two value types is a conflict.
        var name: String { "shared-" + kind.rawValue }

        func write(to store: DefaultsStore) {
            let text = String(repeating: "t", count: size)
            switch kind {
            case .texts:
                store[UserDefaultTypedKey<[String]>(name, defaultValue: [])] = Array(repeating: text, count: count)
            case .data:
                store[UserDefaultTypedKey<[Data]>(name, defaultValue: [])] = Array(
                    repeating: Data(text.utf8), count: count)
            case .dictionaries:
                store[UserDefaultTypedKey<[[String: String]]>(name, defaultValue: [])] = Array(
                    repeating: ["name": text], count: count)
            }
        }

        var plainValue: Any {
            let text = String(repeating: "t", count: size)
            switch kind {
            case .texts: return Array(repeating: text, count: count)
            case .data: return Array(repeating: Data(text.utf8), count: count)
            case .dictionaries: return Array(repeating: ["name": text], count: count)
            }
        }
    }

    /// Counts below and above the old reader's budget (about 1,000 references in such a file), sizes
    /// whose sharing stays within the judge's budget and sizes past it (12,000 × 2,000 B: 24 MB built
    /// from a 26 KB file, where the writer writes each copy). Data past the budget only in the long run
    /// (`runsLongTests`): Foundation's `set` and listing of 10 MB and more of data objects on Linux take
    /// seconds (31 s of the suite's 33). `swift test` runs each kind below and above the old reader's
    /// budget and within the judge's, and texts past it (12,000 × 2,000 B); the long run every size.
    private let sharedValues: [SharedValue] = SharedKind.allCases.flatMap { kind in
        [(1_000, 8), (1_100, 8), (5_000, 200), (12_000, 8), (5_000, 2_000), (12_000, 2_000)]
            .filter {
                runsLongTests
                    ? kind != .data || $0.1 < 2_000
                    : $0.0 < 12_000 && $0.1 < 2_000 || kind == .texts && $0 == (12_000, 2_000)
            }
            .map { SharedValue(kind: kind, count: $0.0, size: $0.1) }
    }

    /// A file another writer made: the top dictionary `{kept: 7, big: [data × references]}`, the data
    /// object of `size` bytes, and `padding` integers nothing refers to, which only make the file larger.
    struct CraftedFile: CustomTestStringConvertible, Sendable {
        let references: Int
        let size: Int
        let padding: Int
        var testDescription: String { "\(references) references to \(size) B, \(padding) padding objects" }

        var bytes: Data {
            func marker(_ kind: UInt8, _ count: Int) -> [UInt8] {
                count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0xF, 0x12] + bigEndianBytes(count, 4)
            }
            let reference = { bigEndianBytes($0, 4) }
            // 0: top, 1: "kept", 2: "big", 3: 7, 4: the array, 5: the data, then the padding.
            var objects: [[UInt8]] = [
                [0xD2] + reference(1) + reference(2) + reference(3) + reference(4),
                [0x54] + Array("kept".utf8), [0x53] + Array("big".utf8), [0x10, 7],
                marker(0xA, references) + (0..<references).flatMap { _ in reference(5) },
                marker(0x4, size) + [UInt8](repeating: 0xAB, count: size),
            ]
            objects += (0..<padding).map { [0x10, UInt8(truncatingIfNeeded: $0)] }
            return binaryPropertyList(objects, referenceSize: 4)
        }

        /// Whether a reader that builds every reference (Foundation's) stays within the judge's budget:
        /// 16 a value plus its data's bytes, at most 64 times the file's size and 16 MiB more.
        var isWithinBudget: Bool {
            let built = 16 * 5 + "kept".count + "big".count + references * (16 + size)
            return built <= 64 * bytes.count + 16 << 20
        }
    }

    /// Reference counts below and above the old reader's budget (4 a object and 1,000 more), with and
    /// without padding, within the judge's budget (3,000 references to 4 KB) and past it (5,000). The
    /// padded file within the judge's budget is 1,100 references in `swift test` (the old reader built
    /// every one and the save wrote each copy: 4.5 MB from an 89 KB file) and 5,000 more in the long run
    /// (`runsLongTests`; 20 MB of data read and fingerprinted).
    private let craftedFiles: [CraftedFile] =
        [
            CraftedFile(references: 900, size: 4_096, padding: 0),
            CraftedFile(references: 1_100, size: 4_096, padding: 0),
            CraftedFile(references: 3_000, size: 4_096, padding: 0),
            CraftedFile(references: 5_000, size: 4_096, padding: 0),
            CraftedFile(references: 1_100, size: 4_096, padding: 20_000),
            CraftedFile(references: 1_000, size: 1 << 20, padding: 0),
            CraftedFile(references: 1_000, size: 1 << 20, padding: 200_000),
        ] + (runsLongTests ? [CraftedFile(references: 5_000, size: 4_096, padding: 20_000)] : [])

    @Suite("Files whose objects are referred to many times: read whole, built once, never written larger")
    struct SharedObjectFileTests {
        /// The library writes a suite whose array holds one text, data or dictionary many times, and saves
        /// it; a new process reads every value back, and nothing is moved aside. Before, its writer shared
        /// the equal leaves and the next process's reader gave up past about 1,000 references (or the
        /// judge refused a shared text counted in full at every reference): the file was moved aside as
        /// "not a property list" and every value read its default (every run).
        @Test(arguments: sharedValues)
        func whatTheLibraryWritesTheNextProcessReadsWhole(_ value: SharedValue) throws {
            try withSuite { suite, store in
                value.write(to: store)
                try store.flush()
                let read = try ProbeProcess.run(["fingerprints", suite])
                #expect(read.status == 0, "\(read.standardError.suffix(300))")
                #expect(!read.standardError.contains("not a property list"), "\(read.standardError.suffix(300))")
                #expect(read.lines == [value.name + " " + propertyListFingerprint(value.plainValue)])
                let folder = try FileManager.default.contentsOfDirectory(atPath: testConfigHome.path)
                #expect(!folder.contains { $0.hasPrefix(suite + ".plist.unreadable-") })
            }
        }

        /// Another writer's file that refers to one data object many times: within the judge's budget,
        /// the library's reader builds the object once (a process limited to 1.5 GB of address space
        /// reads it), and the save that follows writes it once, so the file is no larger than it was;
        /// past the budget, it is refused before anything builds it and moved aside. Before, a file past
        /// about 1,000 references was moved aside whatever it built, and with padding objects the reader
        /// built every reference and the next save wrote each copy (1,000 references to 1 MB: 1 GB).
        @Test(arguments: craftedFiles)
        func anotherWritersSharedObjectIsBuiltOnceAndNeverWrittenLarger(_ crafted: CraftedFile) throws {
            let bytes = crafted.bytes
            let suite = uniqueSuiteName()
            try withProbeOverFile(bytes, suite: suite, arguments: ["fingerprints", suite, "write"]) {
                read, folder, file in
                #expect(read.status == 0, "\(read.reason) \(read.standardError.suffix(300))")
                let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .filter { $0.hasPrefix(suite + ".plist.unreadable-") }
                let saved = try Data(contentsOf: file)
                if crafted.isWithinBudget {
                    let data = Data(repeating: 0xAB, count: crafted.size)
                    #expect(
                        read.lines == [
                            "big " + propertyListFingerprint(Array(repeating: data, count: crafted.references)),
                            "kept " + propertyListFingerprint(7), "touched " + propertyListFingerprint(1),
                        ], "\(read.standardError.suffix(300))")
                    #expect(kept.isEmpty)
                    #expect(saved.count <= bytes.count, "the save wrote \(saved.count) bytes, read \(bytes.count)")
                } else {
                    #expect(read.standardError.contains("was not a property list; it is kept as"))
                    #expect(read.lines == ["touched " + propertyListFingerprint(1)])
                    #expect(kept.count == 1)
                    #expect(saved.count < 1_000)
                }
            }
        }
    }
#endif
