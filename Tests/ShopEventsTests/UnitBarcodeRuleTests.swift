import Foundation
import Testing
@testable import ShopEvents

/// Units and barcodes on items (docs/COMMANDS.md, "Values"): every rule, accepted and refused.
@Suite struct UnitBarcodeRuleTests {
    // Real check digits: an EAN-13, an EAN-8, a UPC-A and the same UPC-A as an EAN-13.
    static let ean13 = "4006381333931", ean8 = "96385074", upcA = "036000291452", upcAsEAN13 = "0036000291452"

    @Test func checkDigits() {
        for good in [Self.ean13, Self.ean8, Self.upcA, Self.upcAsEAN13, "5901234123457", "73513537"] {
            #expect(Barcode.isValid(good), "\(good)")
        }
        for bad in ["4006381333932", "96385075", "036000291453", "400638133393", "40063813339311", "4006381333g31", "", "1234567",
                    "４００６３８１３３３９３１", " 4006381333931"] {
            #expect(!Barcode.isValid(bad), "\(bad)")
        }
        #expect(Barcode.key(Self.upcA) == Barcode.key(Self.upcAsEAN13))
        #expect(Barcode.key(Self.ean13) == Self.ean13 && Barcode.key(Self.ean8) == Self.ean8)
    }

    @Test func unitIsTrimmedUpToSixteenCharacters() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createItem(item: id(1), name: "Flour", location: nil, details: ItemDetails(unit: "  kg ")))
            == [.itemCreated(item: id(1), name: "Flour", location: .unknown, details: ItemDetails(unit: "kg"))])
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unit: String(repeating: "é", count: 16)))))
            == [.itemDetailsChanged(item: id(1), details: ItemDetails(unit: String(repeating: "é", count: 16)))])
        // Empty is pieces: no unit.
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unit: "   ")))) == [.itemDetailsChanged(item: id(1), details: .none)])
        #expect(f.rejection(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unit: String(repeating: "x", count: 17))))) == .invalidText)
        #expect(f.rejection(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unit: "k\ng")))) == .invalidName)
    }

    @Test func barcodeHasAValidCheckDigitAndIsUniqueAmongLiveItems() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createItem(item: id(1), name: "Tea", location: nil, details: ItemDetails(barcode: " \(Self.ean13) ")))
                == [.itemCreated(item: id(1), name: "Tea", location: .unknown, details: ItemDetails(barcode: Self.ean13))])
        #expect(f.rejection(.createItem(item: id(2), name: "Coffee", location: nil, details: ItemDetails(barcode: "4006381333932"))) == .invalidBarcode)
        #expect(f.rejection(.createItem(item: id(2), name: "Coffee", location: nil, details: ItemDetails(barcode: Self.ean13))) == .duplicateBarcode)
        // The item itself may keep it; another may not take it.
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 199, barcode: Self.ean13)))).count == 1)
        try f.run(.createItem(item: id(2), name: "Coffee", location: nil, details: ItemDetails(barcode: Self.upcA)))
        #expect(f.rejection(.changeItemDetails(item: id(2), patch: ItemDetailsPatch(replacingWith: ItemDetails(barcode: Self.ean13)))) == .duplicateBarcode)
        // A UPC-A and its EAN-13 spelling are one product.
        #expect(f.rejection(.createItem(item: id(3), name: "Cola", location: nil, details: ItemDetails(barcode: Self.upcAsEAN13))) == .duplicateBarcode)
        // A barcode let go (changed away, or its item deleted) is free again.
        try f.run(.changeItemDetails(item: id(2), patch: ItemDetailsPatch(replacingWith: .none)))
        #expect(try f.run(.createItem(item: id(3), name: "Cola", location: nil, details: ItemDetails(barcode: Self.upcAsEAN13))).count == 1)
        try f.run(.deleteItem(item: id(1)))
        #expect(try f.run(.changeItemDetails(item: id(2), patch: ItemDetailsPatch(replacingWith: ItemDetails(barcode: Self.ean13)))).count == 1)
        #expect(f.state.liveItem(barcode: Self.ean13) == id(2))
        #expect(f.state.liveItem(barcode: Self.upcA) == id(3))
        #expect(f.state.liveItem(barcode: Self.ean8) == nil)
    }

    /// In `apply`, an item reference may be its barcode; a live item named by those digits wins.
    @Test func aBarcodeNamesItsItem() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Tea", location: nil, details: ItemDetails(barcode: Self.ean13)))
        try f.run(.createItem(item: id(2), name: Self.upcA, location: nil, details: .none))
        try f.run(.createItem(item: id(3), name: "Cola", location: nil, details: ItemDetails(barcode: Self.upcA)))
        #expect(try f.state.find(item: Self.ean13) == id(1))
        #expect(try f.state.find(item: Self.upcA) == id(2))          // the name
        #expect(try f.state.find(item: Self.upcAsEAN13) == id(3))    // the barcode, spelled as an EAN-13
        #expect(throws: RuleViolation.self) { try f.state.find(item: Self.ean8) }
        let line = #"{"type":"AddItemToList","data":{"list":"00000000-0000-0000-0000-00000000000A","item":"4006381333931"}}"#
        let resolved = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: f.state)
        #expect(String(decoding: resolved, as: UTF8.self).contains("\"item\":\"\(id(1) as ItemID)\""))
    }

    /// The barcode index is derived: a snapshot's state gives the same rules as the fold.
    @Test func theIndexSurvivesASnapshot() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Tea", location: nil, details: ItemDetails(unit: "pack", barcode: Self.ean13)))
        try f.run(.createItem(item: id(2), name: "Old", location: nil, details: ItemDetails(barcode: Self.ean8)))
        try f.run(.deleteItem(item: id(2)))
        var w = BinaryWriter()
        f.state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let back = try ShopState(from: &r)
        #expect(back == f.state)
        #expect(back.liveItem(barcode: Self.ean13) == id(1) && back.liveItem(barcode: Self.ean8) == nil)
        #expect(back.items[id(1)]?.details == ItemDetails(unit: "pack", barcode: Self.ean13))
    }
}
