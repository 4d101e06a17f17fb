import Foundation
import Testing

#if os(Linux)
    private func reference(_ index: Int) -> [UInt8] { [UInt8(index >> 8), UInt8(index & 0xFF)] }

    /// A collection marker with its count (`0xA` array, `0xD` dictionary).
    private func collection(_ kind: UInt8, count: Int) -> [UInt8] {
        count < 15
            ? [kind << 4 | UInt8(count)]
            : [kind << 4 | 0xF, 0x12] + (0..<4).reversed().map { UInt8(truncatingIfNeeded: count >> ($0 * 8)) }
    }

    /// Files that are small on disk and that no reader may build: each is a dictionary `{kept: 7, big: X}`.
    enum ExpandingFile: String, CaseIterable, CustomTestStringConvertible, Sendable {
        /// One 1 MB data object referred to 2,000 times: 2 GB built from a 1 MB file.
        case sharedData
        /// An array that holds itself.
        case cycle
        /// 600 arrays, each inside the next.
        case deepNesting

        var testDescription: String { rawValue }

        var bytes: Data {
            // 0: the top dictionary, 1: "kept", 2: "big", 3: 7, 4: X, then X's parts.
            let top: [[UInt8]] = [
                [0xD2] + reference(1) + reference(2) + reference(3) + reference(4),
                [0x54] + Array("kept".utf8), [0x53] + Array("big".utf8), [0x10, 7],
            ]
            switch self {
            case .sharedData:
                let data = [0x4F, 0x12] + [0x00, 0x10, 0x00, 0x00] + [UInt8](repeating: 0xAB, count: 1 << 20)
                let array = collection(0xA, count: 2_000) + (0..<2_000).flatMap { _ in reference(5) }
                return binaryPropertyList(top + [array, data])
            case .cycle:
                return binaryPropertyList(top + [[0xA1] + reference(4)])
            case .deepNesting:
                return binaryPropertyList(top + (0..<600).map { level in [0xA1] + reference(5 + level) } + [[0xA0]])
            }
        }
    }

    /// A small file that expands to gigabytes, a reference cycle, nesting past any stack: judged before
    /// anything builds it (Foundation's reader included), moved aside and reported, in a process limited
    /// to 1.5 GB of address space. Before, the 1 MB file took 2 GB and aborted such a process.
    @Suite("Files that expand far beyond their size are refused before anything builds them")
    struct ExpansionFileTests {
        @Test(arguments: ExpandingFile.allCases)
        func aFileThatExpandsIsMovedAsideInBoundedMemory(_ kind: ExpandingFile) throws {
            let bytes = kind.bytes
            let suite = uniqueSuiteName()
            try withProbeOverFile(bytes, suite: suite, arguments: ["dump", suite]) { first, folder, _ in
                #expect(first.status == 0, "\(first.reason) \(first.standardError.suffix(300))")
                #expect(
                    first.standardError.contains("was not a property list; it is kept as"), "\(first.standardError)")
                #expect(first.lines.first == "count=0", "\(first.lines.prefix(2))")
                let kept = try FileManager.default.contentsOfDirectory(atPath: folder.path)
                    .filter { $0.hasPrefix(suite + ".plist.unreadable-") }
                #expect(kept.count == 1)
                #expect(try kept.first.map { try Data(contentsOf: folder.appendingPathComponent($0)) } == bytes)
                // The suite goes on: a write is saved and read by the next process.
                let written = try ProbeProcess.run(
                    ["write", suite], environment: ["XDG_CONFIG_HOME": folder.path], wrapper: addressSpaceLimited)
                #expect(written.status == 0, "\(written.standardError.suffix(300))")
                #expect(
                    try ProbeProcess.run(["dump", suite], environment: ["XDG_CONFIG_HOME": folder.path]).lines
                        == fixtureLines)
            }
        }
    }
#endif
