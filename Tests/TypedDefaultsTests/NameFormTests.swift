import Foundation
import Testing
import TypedDefaults

/// One rule for a name's two Unicode forms on every backend: a key of either spelling ("café" composed,
/// "cafe\u{301}" decomposed) stores under the composed form, so both spellings read what the last write
/// stored, `hasKey` agrees, and a listing holds the name once. Before, a suite's composed key read its
/// default after a decomposed write (while `hasKey` said true), and the in-memory store read the write.
@Suite("A name's two Unicode forms are one name on every backend")
struct NameFormTests {
    static let composed = "caf\u{E9}Form"
    static let decomposed = "cafe\u{301}Form"

    @Test(arguments: Backend.allCases)
    func bothSpellingsReadTheLastWrite(_ backend: Backend) {
        withStore(backend) { store in
            let composedKey = UserDefaultTypedKey<Int>(Self.composed, defaultValue: 0)
            let decomposedKey = UserDefaultTypedKey<Int>(Self.decomposed, defaultValue: 0)
            store[decomposedKey] = 2
            #expect(store[composedKey] == 2 && store[decomposedKey] == 2)
            #expect(store.hasKey(composedKey) && store.hasKey(decomposedKey))
            store[composedKey] = 3
            #expect(store[decomposedKey] == 3)
            let listed = store.snapshot().keys.filter { $0 == Self.composed }
            #expect(listed.map { Array($0.unicodeScalars) } == [Array(Self.composed.unicodeScalars)])
            store.remove(decomposedKey)
            #expect(!store.hasKey(composedKey) && store[composedKey] == 0)
        }
    }

    /// A value other code stored under the decomposed spelling (Apple's Foundation keeps it apart from
    /// the composed one) moves to the form keys store under: the names are compared by their bytes.
    /// Before this was mended, `moveObject` compared them with Swift's `==`, took them for one name and
    /// moved nothing, which GettingStarted says it does.
    @Test func aValueStoredUnderTheDecomposedSpellingMovesToTheComposedOne() throws {
        // Names of its own: corelibs keeps registered defaults for the whole process, and the test above
        // registers its names' default in parallel.
        let composed = "caf\u{E9}Moved"
        let decomposed = "cafe\u{301}Moved"
        try withSuite { suite, store in
            store.storage.set(7, forKey: decomposed)
            #expect(store.moveObject(fromName: decomposed, toName: decomposed))
            #expect(store[UserDefaultTypedKey<Int>(composed, defaultValue: 0)] == 7)
            #expect(store.snapshot().keys.map { Array($0.unicodeScalars) } == [Array(composed.unicodeScalars)])
            #if os(Linux)
                try store.flush()
                let next = try ProbeProcess.run(["plain-read", suite, composed, decomposed]).lines
                #expect(next == ["7", "nil"])
            #endif
        }
    }

    #if os(Linux)
        /// The next launch reads the same: the file holds the composed form.
        @Test func theNextLaunchReadsTheComposedForm() throws {
            try withSuite { suite, store in
                store[UserDefaultTypedKey<Int>(Self.decomposed, defaultValue: 0)] = 5
                try store.flush()
                let next = try ProbeProcess.run(["plain-read", suite, Self.composed, Self.decomposed]).lines
                #expect(next == ["5", "nil"])
            }
        }
    #endif
}
