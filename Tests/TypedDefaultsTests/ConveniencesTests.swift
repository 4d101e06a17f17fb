import Testing
import TypedDefaults

@Suite("Conveniences the peers have: key sets, several removes, isDefaultValue")
struct ConveniencesTests {
    @Test func keysAreEqualByNameAndHashableSoTheyGoIntoSets() {
        let first = UserDefaultTypedKey<Int>("count", defaultValue: 0)
        let sameName = UserDefaultTypedKey<Int>("count", defaultValue: 5)
        let otherName = UserDefaultTypedKey<Int>("total", defaultValue: 0)
        #expect(first == sameName)
        #expect(first != otherName)
        #expect(Set([first, sameName, otherName]).count == 2)
        let labels: [UserDefaultTypedKey<Int>: String] = [first: "count", otherName: "total"]
        #expect(labels[sameName] == "count")
    }

    @Test(arguments: Backend.allCases)
    func removeTakesSeveralKeysOfDifferentTypes(_ backend: Backend) {
        withStore(backend) { store in
            store[.theme] = .dark
            store[.launchCount] = 3
            store[.username] = "ada"
            store.remove(.theme, .launchCount)
            #expect(!store.hasKey(.theme))
            #expect(!store.hasKey(.launchCount))
            #expect(store[.username] == "ada")
            store.remove(.username)
            #expect(store[.username] == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func isDefaultValueComparesWhatAReadGives(_ backend: Backend) {
        withStore(backend) { store in
            #expect(store.isDefaultValue(.launchCount))
            store[.launchCount] = 2
            #expect(!store.isDefaultValue(.launchCount))
            store[.launchCount] = 0  // stored, but equal to the default
            #expect(store.isDefaultValue(.launchCount))
            store.storage.set("not a number", forKey: "launchCount")  // unreadable: the default
            #expect(store.isDefaultValue(.launchCount))
        }
    }

    /// As in SwiftyUserDefaults, Defaults and Foil (Supported Types says so): `nil` removes the stored
    /// value, so the key reads its default again, and not `nil`.
    @Test(arguments: Backend.allCases)
    func anOptionalKeyWithADefaultReadsItsDefaultAfterNil(_ backend: Backend) {
        withStore(backend) { store in
            let nickname = UserDefaultTypedKey<String?>("nickname", defaultValue: "ada")
            store[nickname] = "grace"
            #expect(store[nickname] == "grace")
            store[nickname] = nil
            #expect(store[nickname] == "ada")
            #expect(!store.hasKey(nickname))
        }
    }
}
