/// The names bound in one storage, each with its value type: the table every read and write looks a
/// key up in.
///
/// An open-addressing table found by the hash a key computed once for its name, instead of a
/// `Dictionary`: a `Dictionary` runs the name's hash through `Hasher` again on every lookup, the largest
/// part of the library's share of a read it would be (figures in Performance.md). Names are
/// never removed: a storage binds each name once.
struct BindingTable<Entry> {
    private struct Slot {
        let storedName: String
        let nameHash: Int
        let valueType: ObjectIdentifier
        let entry: Entry
    }

    /// A power of two, at most half full, so that a search ends at an empty slot after a few steps.
    private var slots: [Slot?] = Array(repeating: nil, count: 16)
    private var count = 0

    /// The entry of `storedName` with `valueType`; `nameHash` is `storedName.hashValue`.
    func entry(for storedName: String, nameHash: Int, valueType: ObjectIdentifier) -> Entry? {
        let mask = slots.count - 1
        var index = nameHash & mask
        while let slot = slots[index] {
            if slot.nameHash == nameHash, slot.valueType == valueType, slot.storedName == storedName {
                return slot.entry
            }
            index = (index &+ 1) & mask
        }
        return nil
    }

    /// Every name with an entry.
    var storedNames: Set<String> {
        Set(slots.compactMap { $0?.storedName })
    }

    /// Adds an entry for a name and type that have none.
    mutating func insert(_ entry: Entry, for storedName: String, nameHash: Int, valueType: ObjectIdentifier) {
        if (count + 1) * 2 > slots.count {
            let old = slots
            slots = Array(repeating: nil, count: old.count * 2)
            count = 0
            for case let slot? in old {
                insert(slot.entry, for: slot.storedName, nameHash: slot.nameHash, valueType: slot.valueType)
            }
        }
        let mask = slots.count - 1
        var index = nameHash & mask
        while slots[index] != nil { index = (index &+ 1) & mask }
        slots[index] = Slot(storedName: storedName, nameHash: nameHash, valueType: valueType, entry: entry)
        count += 1
    }
}
