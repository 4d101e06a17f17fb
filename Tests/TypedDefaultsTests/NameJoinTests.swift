import Foundation
import Testing
import TypedDefaults

/// One name rule at every join: the stored name is the canonical form of the whole joined name (a
/// store's prefix and a key's name, a family's prefix and an id, a move's new name, a name a tool
/// writes), and every listing compares names by canonical equivalence, not by the bytes of each half.
@Suite("A prefix joined to a name is one canonical name")
struct NameJoinTests {
    /// A store with the prefix "e" and its key "\u{301}x" store the name "éx", the plain key "éx"'s: one
    /// value, read and written through either. Before, each half was composed alone: the prefixed key
    /// stored "e\u{301}x", and its write deleted the plain key's value (Linux keeps one form of a name),
    /// while each key read only its own form (deterministic).
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aPrefixAndANameThatComposeAcrossTheJoinAreTheComposedName(_ backend: Backend) throws {
        let composed = UserDefaultTypedKey<Int>("\u{E9}xJoined", defaultValue: 0)
        let markFirst = UserDefaultTypedKey<Int>("\u{301}xJoined", defaultValue: 0)
        try withSuiteOrMemory(backend) { plain, prefixed in
            plain[composed] = 1
            #expect(prefixed[markFirst] == 1)
            prefixed[markFirst] = 2
            #expect(plain[composed] == 2)
            #expect(plain.snapshot().keys.sorted() == ["\u{E9}xJoined"])
            #expect(prefixed.snapshot()["\u{301}xJoined"] as? Int == 2, "\(prefixed.snapshot())")
            #expect(plain.hasKey(composed) && prefixed.hasKey(markFirst))
            prefixed.removeAll()
            #expect(plain[composed] == 0 && !plain.hasKey(composed))
        }
    }

    /// A family whose prefix is written decomposed, or whose last letter composes with an id's leading
    /// mark, lists its members. Before, `members(in:)` compared bytes: it listed none of them.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aFamilyListsItsMembersWhateverFormItsPrefixIsWrittenIn(_ backend: Backend) {
        let decomposedPrefix = UserDefaultKeyFamily<Int>("cafe\u{301}.", defaultValue: { _ in 0 })
        let composingPrefix = UserDefaultKeyFamily<Int>("famille", defaultValue: { _ in 0 })
        withStore(backend) { store in
            store[decomposedPrefix["a"]] = 1
            store[decomposedPrefix["b\u{301}"]] = 2
            store[composingPrefix["\u{301}s"]] = 3
            #expect(store.snapshot()["caf\u{E9}.a"] as? Int == 1)
            #expect(decomposedPrefix.members(in: store) == ["a", "b\u{301}"])
            #expect(composingPrefix.members(in: store) == ["\u{301}s"])
            #expect(store.snapshot()["famill\u{E9}s"] as? Int == 3)
            #expect(store[composingPrefix["\u{301}s"]] == 3)
        }
    }

    /// A move's new name in a prefixed store is the whole joined name's canonical form: a key of that
    /// name reads the moved value. Before, the prefix and the new name were joined after each was
    /// composed alone.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aMovesNewNameIsTheJoinedNamesCanonicalForm(_ backend: Backend) throws {
        try withSuiteOrMemory(backend) { plain, prefixed in
            plain.storage.set(5, forKey: "eOldName")
            #expect(prefixed.moveObject(fromName: "OldName", toName: "\u{301}tMoved"))
            #expect(plain[UserDefaultTypedKey<Int>("\u{E9}tMoved", defaultValue: 0)] == 5)
        }
    }

    /// A name a tool writes (`typed-defaults write` or `import` go through this) in its decomposed form is
    /// stored composed: the app's key reads it. Before, it was stored as spelled, and the app's key of
    /// the composed name read its default.
    @Test(arguments: [Backend.userDefaultsSuite, .inMemory])
    func aNameAToolWritesDecomposedIsTheAppsComposedKey(_ backend: Backend) throws {
        try withStore(backend) { store in
            try store.editObjects(names: ["re\u{301}sume\u{301}"]) { $0["re\u{301}sume\u{301}"] = 7 }
            #expect(store[UserDefaultTypedKey<Int>("r\u{E9}sum\u{E9}", defaultValue: 0)] == 7)
            #expect(store.snapshot().keys.sorted() == ["r\u{E9}sum\u{E9}"])
        }
    }

    /// Two stores over one storage: no prefix, and the prefix "e".
    private func withSuiteOrMemory(
        _ backend: Backend, label: String = #function, _ body: (DefaultsStore, DefaultsStore) throws -> Void
    ) throws {
        switch backend {
        case .inMemory:
            let storage = InMemoryStorage()
            try body(DefaultsStore(storage: storage), DefaultsStore(storage: storage, keyPrefix: "e"))
        default:
            try withSuite(label: label) { suite, plain in
                try body(plain, try #require(DefaultsStore(suiteName: suite, keyPrefix: "e")))
            }
        }
    }
}
