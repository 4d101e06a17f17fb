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
}
