import Testing
import TypedDefaults

@Suite("The lock order is checked, not only written down")
struct LockOrderTests {
    #if DEBUG
        /// Taking a lock while holding one of a higher rank (here the write order, then the saver's turn to
        /// save, which a save takes first) could deadlock against a thread taking them in order: a debug
        /// build stops at once.
        @Test func aLockTakenOutOfOrderStopsADebugBuild() async {
            let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
                let writeOrder = Locked(.writeOrder, 0)
                let saving = Locked(.saving, 0)
                writeOrder.withLockedValue { _ in saving.withLockedValue { _ in } }
            }
            let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
            #expect(message.contains("lock order: saving taken while holding writeOrder"), "\(message)")
        }

        @Test func locksTakenInOrderAndAgainAfterReleaseAreFine() {
            let saving = Locked(.saving, 0)
            let writeOrder = Locked(.writeOrder, 0)
            saving.withLockedValue { _ in writeOrder.withLockedValue { _ in } }
            writeOrder.withLockedValue { _ in }
            saving.withLockedValue { _ in }
        }
    #endif
}
