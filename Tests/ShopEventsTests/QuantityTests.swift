import Foundation
import Testing
@testable import ShopEvents

/// Decimal quantities (docs/COMMANDS.md, "Values"): exact, read and written as plain
/// JSON numbers, costs rounded half to even.
@Suite struct QuantityTests {
    @Test func textIsTheShortestDecimal() {
        let cases: [(Int, String)] = [(0, "0"), (1, "0.001"), (10, "0.01"), (100, "0.1"), (125, "0.125"), (1_500, "1.5"),
                                      (2_000, "2"), (2_250, "2.25"), (9_999_000, "9999"), (-1_500, "-1.5"), (12_345_678, "12345.678")]
        for (thousandths, text) in cases {
            #expect(Quantity(thousandths: thousandths).description == text)
            var w = JSONWriter()
            w.quantity(Quantity(thousandths: thousandths))
            #expect(String(decoding: w.takeBytes(), as: UTF8.self) == text)
        }
    }

    @Test func parsesPlainDecimalsOnly() {
        #expect(Quantity("2") == 2)
        #expect(Quantity("1.5") == Quantity(thousandths: 1_500))
        #expect(Quantity("0.125") == Quantity(thousandths: 125))
        #expect(Quantity("1.50") == Quantity(thousandths: 1_500))
        for bad in ["", ".5", "1.", "1.2345", "1e3", "-1", "+1", "1,5", " 1", "x"] {
            #expect(Quantity(bad) == nil, "\(bad)")
        }
    }

    @Test func scannerReadsWhatTheWriterWritesAndRefusesTheRest() throws {
        func read(_ text: String) throws(CodecError) -> Quantity {
            try Array(text.utf8).withUnsafeBytes { raw in
                Result { () throws(CodecError) in var s = JSONScanner(raw); return try s.readQuantity() }
            }.get()
        }
        #expect(try read("2") == 2)
        #expect(try read("0.001") == Quantity(thousandths: 1))
        #expect(try read("9999") == 9999)
        #expect(try read("-1.5") == Quantity(thousandths: -1_500))
        for bad in ["1.2345", "1e3", "1.5E2", "01", "1.", "\"2\"", "true", "1234567890123456"] {
            #expect(throws: CodecError.self, "\(bad)") { try read(bad) }
        }
    }

    @Test func costIsRoundedHalfToEvenPerProduct() {
        #expect(Quantity(thousandths: 1_500).cost(unitPrice: 199) == 298)     // 298.5 → 298
        #expect(Quantity(thousandths: 1_500).cost(unitPrice: 197) == 296)     // 295.5 → 296
        #expect(Quantity(thousandths: 250).cost(unitPrice: 3) == 1)           // 0.75 → 1
        #expect(Quantity(thousandths: 500).cost(unitPrice: 1) == 0)           // 0.5 → 0
        #expect(Quantity(thousandths: 500).cost(unitPrice: 3) == 2)           // 1.5 → 2
        #expect(Quantity(thousandths: 333).cost(unitPrice: 100) == 33)        // 33.3 → 33
        #expect(Quantity(2).cost(unitPrice: 249) == 498)
        #expect(Quantity(9999).cost(unitPrice: 100_000_000) == 999_900_000_000)
        #expect(Quantity(thousandths: -1_500).cost(unitPrice: 199) == -298)   // a revert's sign: the same magnitude
    }

    @Test func arithmeticAndOrder() {
        let a: Quantity = 2, b = Quantity(thousandths: 1_500)
        #expect(a + b == Quantity(thousandths: 3_500))
        #expect(a - b == Quantity(thousandths: 500))
        #expect(b < a)
        #expect(Quantity.allowed.contains(Quantity(thousandths: 1)) && Quantity.allowed.contains(9999))
        #expect(!Quantity.allowed.contains(.zero) && !Quantity.allowed.contains(Quantity(thousandths: 9_999_001)))
        #expect(a.whole == 2 && b.whole == nil)
    }

    /// Foundation's coders see a plain number, as in the journal.
    @Test func codableIsAPlainNumber() throws {
        let encoded = try JSONEncoder().encode([Quantity(2), Quantity(thousandths: 1_500), Quantity(thousandths: 125)])
        #expect(String(decoding: encoded, as: UTF8.self) == "[2,1.5,0.125]")
        #expect(try JSONDecoder().decode([Quantity].self, from: encoded) == [2, Quantity(thousandths: 1_500), Quantity(thousandths: 125)])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Quantity].self, from: Data("[1.2345]".utf8)) }
    }
}
