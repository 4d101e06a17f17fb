import Testing
import TypedDefaults

@Suite("The lock order is checked, not only written down")
struct LockOrderTests {
    #if DEBUG
        /// Taking a lock while holding one of a higher rank (the write order, then the saver's turn to
        /// save, which a save takes first) could deadlock against a thread taking them in order; so could
        /// any lock taken while holding a leaf box (any box without a rank of its own), which takes none
        /// while held: two leaves nested in opposite orders by two threads. A debug build stops at once.
        @Test(arguments: [
            (LockRank.writeOrder, LockRank.saving, "saving taken while holding writeOrder"),
            (.leaf, .leaf, "leaf taken while holding leaf"),
            (.leaf, .writeOrder, "writeOrder taken while holding leaf"),
        ])
        func aLockTakenOutOfOrderStopsADebugBuild(held: LockRank, taken: LockRank, message: String) async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                [heldRank = held.rawValue as Int, takenRank = taken.rawValue as Int] in
                let outer = Locked(LockRank(rawValue: heldRank)!, 0)
                let inner = Locked(LockRank(rawValue: takenRank)!, 0)
                outer.withLockedValue { _ in inner.withLockedValue { _ in } }
            }
            let printed = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(printed.contains("lock order: " + message), "\(printed)")
        }

        @Test func locksTakenInOrderAndAgainAfterReleaseAreFine() {
            let saving = Locked(.saving, 0)
            let writeOrder = Locked(.writeOrder, 0)
            let leaf = Locked(0)
            saving.withLockedValue { _ in writeOrder.withLockedValue { _ in leaf.withLockedValue { _ in } } }
            writeOrder.withLockedValue { _ in }
            saving.withLockedValue { _ in }
            leaf.withLockedValue { _ in }
        }
    #endif
}
