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
        guard let reader = Reader(bytes) else { return false }
        return reader.expansion(limit: expansionBudget(forFileOf: bytes.count)) == nil
    }

    /// What a file of `size` bytes may build: 64 times its size and 16 MiB more.
    static func expansionBudget(forFileOf size: Int) -> Int {
        64 * size + 16 << 20
    }
}

extension BinaryPropertyList.Reader {
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
