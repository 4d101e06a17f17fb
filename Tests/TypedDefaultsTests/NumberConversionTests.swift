import Foundation
import Testing
import TypedDefaults

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
            for text in ["YES", "yes", "Y", "y", "true", "TRUE", "T", "t", "1"] {
                #expect(read(text, as: Bool.self, default: false, in: store) == true)
            }
            for text in ["NO", "no", "N", "n", "false", "False", "F", "f", "0"] {
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

    /// On Apple platforms `UserDefaults` gives every number as an `NSNumber`, which casts to `Bool`,
    /// `Int` and `Double` alike (`true` as 1, a whole real as an integer, 1 as `true`); on Linux it gives
    /// Swift's own values, which do not. Each stored number reads the same in both forms, and the answers
    /// are the ones pinned here, on every platform.
    @Test(arguments: Backend.allCases)
    func aNumberReadsTheSameAsASwiftValueAndAsAnNSNumber(_ backend: Backend) {
        withStore(backend) { store in
            func both<Value: UserDefaultConvertible & Equatable>(
                _ swift: Any, _ number: NSNumber, as type: Value.Type, default defaultValue: Value
            ) -> Value? {
                let native = read(swift, as: type, default: defaultValue, in: store)
                let bridged = read(number, as: type, default: defaultValue, in: store)
                #expect(
                    native == bridged, "\(swift) read as \(type): \(native) as a Swift value, \(bridged) as an NSNumber"
                )
                return native == bridged ? native : nil
            }
            // A Boolean is not a real (nor text); as an integer it is 1 or 0.
            #expect(both(true, NSNumber(value: true), as: Double.self, default: -1) == -1)
            #expect(both(true, NSNumber(value: true), as: Float.self, default: -1) == -1)
            #expect(both(true, NSNumber(value: true), as: Int.self, default: -1) == 1)
            #expect(both(false, NSNumber(value: false), as: Int8.self, default: -1) == 0)
            #expect(both(true, NSNumber(value: true), as: Decimal.self, default: -1) == 1)
            #expect(both(true, NSNumber(value: true), as: String.self, default: "d") == "d")
            // Only 0 and 1 are Booleans; a whole real is one too.
            #expect(both(1, NSNumber(value: 1), as: Bool.self, default: false) == true)
            #expect(both(0, NSNumber(value: 0), as: Bool.self, default: true) == false)
            #expect(both(2, NSNumber(value: 2), as: Bool.self, default: false) == false)
            #expect(both(-1, NSNumber(value: -1), as: Bool.self, default: true) == true)
            #expect(both(1.0, NSNumber(value: 1.0), as: Bool.self, default: false) == true)
            #expect(both(0.5, NSNumber(value: 0.5), as: Bool.self, default: true) == true)
            // Integers and reals: exact or the default.
            #expect(both(3.0, NSNumber(value: 3.0), as: Int.self, default: -1) == 3)
            #expect(both(2.5, NSNumber(value: 2.5), as: Int.self, default: -1) == -1)
            #expect(both(2.5, NSNumber(value: 2.5), as: UInt8.self, default: 9) == 9)
            #expect(both(3, NSNumber(value: 3), as: Double.self, default: -1) == 3)
            #expect(both(0.1, NSNumber(value: 0.1), as: Float.self, default: -1) == Float(0.1))
            #expect(both(1e300, NSNumber(value: 1e300), as: Float.self, default: -1) == -1)
            #expect(both(300, NSNumber(value: 300), as: Int8.self, default: 0) == 0)
            #expect(both(UInt64.max, NSNumber(value: UInt64.max), as: UInt64.self, default: 0) == UInt64.max)
            #expect(both(UInt64.max, NSNumber(value: UInt64.max), as: Int.self, default: 0) == 0)
            #expect(both(Int64.min, NSNumber(value: Int64.min), as: Int64.self, default: 0) == Int64.min)
            #expect(both(Double.nan, NSNumber(value: Double.nan), as: Int.self, default: 5) == 5)
            #expect(both(7, NSNumber(value: 7), as: String.self, default: "d") == "d")
            #expect(both(2.5, NSNumber(value: Float(2.5)), as: Double.self, default: -1) == 2.5)
        }
    }

    /// Collections follow the scalar rule: an array or dictionary of `NSNumber`s (every number
    /// `UserDefaults` gives on Apple platforms, where a stored `true` is a `CFBoolean`) reads element by
    /// element as its Swift values do. Before, the collections' fast path cast `[true]` to `[Double]` as
    /// `[1.0]` on Apple platforms.
    @Test(arguments: Backend.allCases)
    func collectionsOfNSNumbersReadAsTheirSwiftValuesDo(_ backend: Backend) {
        withStore(backend) { store in
            let booleans: [Any] = [NSNumber(value: true), NSNumber(value: false)]
            #expect(read(booleans, as: [Double].self, default: [-1], in: store) == [-1])
            #expect(read(booleans, as: [Float].self, default: [-1], in: store) == [-1])
            #expect(read(booleans, as: [CGFloat].self, default: [-1], in: store) == [-1])
            #expect(read(booleans, as: [Int].self, default: [-1], in: store) == [1, 0])
            #expect(read(booleans, as: [Bool].self, default: [], in: store) == [true, false])
            let byName: [String: Any] = ["a": NSNumber(value: true)]
            #expect(read(byName, as: [String: Double].self, default: ["d": -1], in: store) == ["d": -1])
            #expect(read(byName, as: [String: Bool].self, default: [:], in: store) == ["a": true])
            let numbers: [Any] = [NSNumber(value: 1), NSNumber(value: 2.5)]
            #expect(read(numbers, as: [Double].self, default: [], in: store) == [1, 2.5])
            #expect(read(numbers, as: [Int].self, default: [-1], in: store) == [-1])
            #expect(read([1.0, 2.5], as: [Double].self, default: [], in: store) == [1, 2.5])
        }
    }

    /// The rule holds at any depth: a stored `true` inside a nested array or a dictionary's array is no
    /// real either. Before, the fast path cast `[[true]]` to `[[Double]]` as `[[1.0]]`.
    @Test(arguments: Backend.allCases)
    func nestedCollectionsOfNSNumbersReadAsTheirSwiftValuesDo(_ backend: Backend) {
        withStore(backend) { store in
            let nested: [Any] = [[NSNumber(value: true)] as [Any]]
            #expect(read(nested, as: [[Double]].self, default: [[-1]], in: store) == [[-1]])
            #expect(read(nested, as: [[Float]].self, default: [[-1]], in: store) == [[-1]])
            #expect(read(nested, as: [[[Double]]].self, default: [], in: store) == [])
            #expect(read(nested, as: [Set<Double>].self, default: [[-1]], in: store) == [[-1]])
            #expect(read(nested, as: [[Double?]].self, default: [[-1]], in: store) == [[-1]])
            #expect(read(nested, as: [[Bool]].self, default: [], in: store) == [[true]])
            #expect(read(nested, as: [[Int]].self, default: [], in: store) == [[1]])
            let byName: [String: Any] = ["a": [NSNumber(value: true)] as [Any]]
            #expect(read(byName, as: [String: [Double]].self, default: ["d": []], in: store) == ["d": []])
            #expect(read(byName, as: [String: [Bool]].self, default: [:], in: store) == ["a": [true]])
            let deep: [String: Any] = ["a": ["b": NSNumber(value: true)] as [String: Any]]
            #expect(read(deep, as: [String: [String: Double]].self, default: [:], in: store) == [:])
            let inArray: [Any] = [["b": NSNumber(value: false)] as [String: Any]]
            #expect(read(inArray, as: [[String: Float]].self, default: [], in: store) == [])
            let reals: [Any] = [[NSNumber(value: 1), NSNumber(value: 2.5)] as [Any]]
            #expect(read(reals, as: [[Double]].self, default: [], in: store) == [[1, 2.5]])
            #expect(read([[1.0, 2.5]], as: [[Double]].self, default: [], in: store) == [[1, 2.5]])
            #expect(read(["a": [0.5]], as: [String: [Double]].self, default: [:], in: store) == ["a": [0.5]])
        }
    }
}
