import Foundation
import Testing
import TypedDefaults

/// Stores `object` with the storage's own API and reads it through a key of type `Value`.
func read<Value: UserDefaultConvertible>(
    _ object: Any, as type: Value.Type, default defaultValue: Value, in store: DefaultsStore
) -> Value {
    // A name per read: one name with two types or defaults is a conflict the library reports.
    let name = "probe.\(UUID().uuidString)"
    store.storage.set(object, forKey: name)
    return store[UserDefaultTypedKey<Value>(name, defaultValue: defaultValue)]
}

@Suite("Numbers convert exactly, never trap")
struct NumberConversionTests {
    @Test(arguments: Backend.allCases)
    func floatingPointKeysReadIntegersAndFittingDoubles(_ backend: Backend) {
        withStore(backend) { store in
            #expect(read(3, as: Double.self, default: -1, in: store) == 3)
            #expect(read(Int64.max, as: Double.self, default: -1, in: store) == Double(Int64.max))
            #expect(read(2.5, as: Float.self, default: -1, in: store) == 2.5)
            #expect(read(1e300, as: Float.self, default: -1, in: store) == -1)
            #expect(read(7, as: Float.self, default: -1, in: store) == 7)
        }
    }

    @Test(arguments: Backend.allCases)
    func integerKeysReadWholeDoublesAndRefuseFractions(_ backend: Backend) {
        withStore(backend) { store in
            #expect(read(3.0, as: Int.self, default: -1, in: store) == 3)
            #expect(read(2.5, as: Int.self, default: -1, in: store) == -1)
            #expect(read(-0.0, as: Int.self, default: -1, in: store) == 0)
        }
    }

    @Test(arguments: Backend.allCases)
    func integerKeysOfAnyWidthReadAnyInRangeIntegerAndRefuseTheRest(_ backend: Backend) {
        withStore(backend) { store in
            #expect(read(127, as: Int8.self, default: 0, in: store) == 127)
            #expect(read(300, as: Int8.self, default: 0, in: store) == 0)
            #expect(read(-1, as: UInt64.self, default: 9, in: store) == 9)
            #expect(read(-1, as: UInt8.self, default: 9, in: store) == 9)
            #expect(read(UInt64.max, as: UInt64.self, default: 0, in: store) == UInt64.max)
            #expect(read(UInt64.max, as: Int64.self, default: 0, in: store) == 0)
            #expect(read(Int64(Int32.max) + 1, as: Int32.self, default: 0, in: store) == 0)
            #expect(read(65_535, as: UInt16.self, default: 0, in: store) == 65_535)
            #expect(read(1e19, as: Int64.self, default: 0, in: store) == 0)
            for invalid in [Double.nan, .infinity, -.infinity] {
                #expect(read(invalid, as: Int.self, default: 5, in: store) == 5)
                #expect(read(invalid, as: UInt8.self, default: 5, in: store) == 5)
                #expect(read(invalid, as: Int64.self, default: 5, in: store) == 5)
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func boolReadsZeroOneAndItsTextForms(_ backend: Backend) {
        withStore(backend) { store in
            #expect(read(1, as: Bool.self, default: false, in: store) == true)
            #expect(read(0, as: Bool.self, default: true, in: store) == false)
            #expect(read(2, as: Bool.self, default: false, in: store) == false)
            for text in ["YES", "yes", "true", "TRUE", "1"] {
                #expect(read(text, as: Bool.self, default: false, in: store) == true)
            }
            for text in ["NO", "no", "false", "False", "0"] {
                #expect(read(text, as: Bool.self, default: true, in: store) == false)
            }
            #expect(read("perhaps", as: Bool.self, default: true, in: store) == true)
        }
    }

    @Test(arguments: Backend.allCases)
    func numbersReadTheirTextForms(_ backend: Backend) {
        withStore(backend) { store in
            #expect(read("42", as: Int.self, default: 0, in: store) == 42)
            #expect(read(" -7 ", as: Int16.self, default: 0, in: store) == -7)
            #expect(read("3.0", as: Int.self, default: 0, in: store) == 3)
            #expect(read("3.5", as: Int.self, default: 0, in: store) == 0)
            #expect(read("2.5", as: Double.self, default: 0, in: store) == 2.5)
            #expect(read("99999999999999999999", as: Int.self, default: 0, in: store) == 0)
        }
    }
}

@Suite("URLs and dates round-trip exactly")
struct URLAndDateTests {
    static let urls: [URL] =
        [
            "https://example.com/p?q=1&r=a%20b#frag",
            "http://example.com:8080/a/b/?x=%2F&y=%E2%9C%93",
            "https://bücher.example/straße?q=ä",
            "https://xn--bcher-kva.example/",
            "mailto:ada@example.com?subject=Hi%20there",
            "ftp://user@ftp.example.com:2121/pub/file.txt",
        ].compactMap(URL.init(string:)) + [
            URL(fileURLWithPath: "/tmp/a dir/ünï cødé.txt"),
            URL(fileURLWithPath: "/tmp/folder", isDirectory: true),
        ]

    @Test(arguments: Backend.allCases)
    func urlsRoundTripAloneAndInCollections(_ backend: Backend) {
        withStore(backend) { store in
            for (index, url) in Self.urls.enumerated() {
                #expect(roundTrip(url, default: URL(fileURLWithPath: "/"), in: store, name: "url\(index)") == url)
            }
            #expect(roundTrip(Self.urls, default: [], in: store, name: "urls") == Self.urls)
            let byName = Dictionary(uniqueKeysWithValues: Self.urls.enumerated().map { ("u\($0.offset)", $0.element) })
            #expect(roundTrip(byName, default: [:], in: store, name: "byName") == byName)
        }
    }

    @Test func urlsInOtherStoredFormsStillRead() throws {
        try withStore(.inMemory) { store in
            let url = try #require(URL(string: "https://example.com/x?y=1"))
            // The archived form Apple's `UserDefaults.set(_: URL, forKey:)` writes.
            let archived = try NSKeyedArchiver.archivedData(withRootObject: url as NSURL, requiringSecureCoding: true)
            #expect(read(archived, as: URL?.self, default: nil, in: store) == url)
            #expect(
                read("/tmp/plain path", as: URL?.self, default: nil, in: store)
                    == URL(fileURLWithPath: "/tmp/plain path"))
            #expect(read("~/notes.txt", as: URL?.self, default: nil, in: store)?.path.hasSuffix("/notes.txt") == true)
            #expect(read("no scheme here", as: URL?.self, default: nil, in: store) == nil)
        }
    }

    @Test func datesWrittenByThePlainAPIRead() throws {
        let suiteName = uniqueSuiteName()
        defer { DefaultsStore.removeSuite(named: suiteName) }
        let store = try #require(DefaultsStore(suiteName: suiteName))
        let date = Date(timeIntervalSince1970: 1_700_000_000.5)
        try #require(UserDefaults(suiteName: suiteName)).set(date, forKey: "when")
        #expect(store[UserDefaultTypedKey<Date?>("when")] == date)
    }
}
