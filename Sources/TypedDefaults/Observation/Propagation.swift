/// Whether changes made on this thread (or in tasks it waits for) notify observers:
/// ``DefaultsStore/withoutPropagation(_:)`` turns it off for the writes inside it. Read on every write
/// of a name bound in the storage (every name a key has used), since Swift's Observation may be tracking
/// any of them: about 15 ns.
enum Propagation {
    @TaskLocal static var isOn = true
}
