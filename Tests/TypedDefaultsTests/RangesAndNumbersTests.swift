import Foundation
import Testing
import TypedDefaults

@Suite("Ranges, Decimal and CGFloat")
struct RangesAndNumbersTests {
    @Test(arguments: Backend.allCases)
    func rangesRoundTrip(_ backend: Backend) {
        withStore(backend) { store in
            #expect(roundTrip(3..<7, default: 0..<1, in: store, name: "range") == 3..<7)
            #expect(roundTrip(5..<5, default: 0..<1, in: store, name: "empty") == 5..<5)
            #expect(roundTrip(1.5...2.5, default: 0...1, in: store, name: "closed") == 1.5...2.5)
            #expect(roundTrip("a"..."z", default: "a"..."b", in: store, name: "letters") == "a"..."z")
        }
    }

    /// `[lowerBound, upperBound]`, as the plain API and sindresorhus/Defaults read a range.
    @Test func aRangeIsStoredAsItsTwoBounds() throws {
        try withSuite { suite, store in
            store[UserDefaultTypedKey<ClosedRange<Int>>("closedForm", defaultValue: 0...0)] = 2...9
            #expect(UserDefaults(suiteName: suite)?.array(forKey: "closedForm") as? [Int] == [2, 9])
        }
    }

    /// Bounds out of order would trap in `Range`; they read as the default. So do other shapes.
    @Test(arguments: [[7, 3], [1], [1, 2, 3], ["a", "b"]] as [[any Sendable]])
    func anUnreadableRangeReadsAsTheDefault(_ stored: [any Sendable]) {
        let storage = InMemoryStorage()
        storage.set(stored, forKey: "range")
        storage.set(stored, forKey: "closedRange")
        let store = DefaultsStore(storage: storage)
        #expect(store[UserDefaultTypedKey<Range<Int>>("range", defaultValue: 0..<1)] == 0..<1)
        #expect(store[UserDefaultTypedKey<ClosedRange<Int>>("closedRange", defaultValue: 0...1)] == 0...1)
    }

    @Test(arguments: Backend.allCases)
    func decimalsAreExact(_ backend: Backend) throws {
        try withStore(backend) { store in
            let price = try #require(Decimal(string: "19.99"))
            #expect(roundTrip(price, default: 0, in: store, name: "price") == price)
            let sum = try #require(Decimal(string: "0.1")) + Decimal(string: "0.2")!
            #expect(roundTrip(sum, default: 0, in: store, name: "sum") == Decimal(string: "0.3"))
            let tiny = try #require(Decimal(string: "-1.000000000000000000000000000001"))
            #expect(roundTrip(tiny, default: 0, in: store, name: "tiny") == tiny)
        }
    }

    /// Decimal text, so the plain API reads "19.99" and nothing is rounded to binary; numbers others
    /// stored read too, and text that is not a whole number reads as the default.
    @Test func aDecimalIsStoredAsItsText() throws {
        try withSuite { suite, store in
            let key = UserDefaultTypedKey<Decimal>("priceText", defaultValue: -1)
            store[key] = Decimal(string: "19.99")!
            let plain = try #require(UserDefaults(suiteName: suite))
            #expect(plain.string(forKey: "priceText") == "19.99")
            for (stored, expected) in [(3, "3"), (2.5, "2.5"), ("1e3", "1000"), (" -0.50 ", "-0.5")] as [(Any, String)]
            {
                plain.set(stored, forKey: "priceText")
                #expect(store[key] == Decimal(string: expected), "\(stored)")
            }
            for stored in ["12abc", "", ".", "1e", "NaN", "1,5"] {
                plain.set(stored, forKey: "priceText")
                #expect(store[key] == -1, "\(stored)")
            }
        }
    }

    @Test func aDecimalNaNIsNotStored() {
        let store = DefaultsStore(storage: InMemoryStorage())
        let key = UserDefaultTypedKey<Decimal>("nanPrice", defaultValue: 1)
        #expect(throws: DefaultsError.self) { try store.set(Decimal.nan, for: key) }
        #expect(store[key] == 1)
    }

    @Test(arguments: Backend.allCases)
    func cgFloatsAreStoredAsReals(_ backend: Backend) {
        withStore(backend) { store in
            #expect(roundTrip(CGFloat(12.75), default: 0, in: store, name: "width") == 12.75)
            #expect(store.storage.object(forKey: "width") as? Double == 12.75)
        }
    }
}
