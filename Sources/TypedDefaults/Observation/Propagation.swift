/// Whether changes made on this thread (or in tasks it waits for) notify observers:
/// ``DefaultsStore/withoutPropagation(_:)`` turns it off for the writes inside it. Read only when a
/// written name has observers, so that a write nobody observes does not pay for it.
enum Propagation {
    @TaskLocal static var isOn = true
}
