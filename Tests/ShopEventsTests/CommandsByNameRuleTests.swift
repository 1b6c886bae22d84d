import Foundation
import Testing
@testable import ShopEvents

/// Every rule on a value holds however the command names
/// things; a retry is read without looking its names up; a refusal names the
/// line's id; RestoreList and PurgeList name a deleted list by its last name.
@Suite struct CommandsByNameRuleTests {
    static let weekly: ListID = id(0x10), potatoes: ItemID = id(1)

    /// A household with the list Weekly and Potatoes on it.
    static func household() throws -> Fixture {
        var f = try Fixture.started()
        try f.run(.createList(list: weekly, name: "Weekly", priority: nil))
        try f.run(.createItem(item: potatoes, name: "Potatoes", location: nil, details: ItemDetails(barcode: "4006381333931")))
        try f.run(.addItemToList(list: weekly, item: potatoes, quantity: nil))
        return f
    }

    static func decodeError(_ line: String, _ state: ShopState) -> (any Error)? {
        do { _ = try CommandCatalog.decode(Array(line.utf8), names: .resolve(state), ids: .sequential()); return nil } catch { return error }
    }

    /// `1e2`, `1.5000`, `1.2345`, `2.0e0`: refused as written, by id, by name
    /// and by barcode alike, the offset that of the number in the line as typed.
    @Test func aQuantityIsCheckedAsWrittenHoweverTheCommandNamesThings() throws {
        let f = try Self.household()
        let byName = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"Potatoes","quantity":"#
        let byID = #"{"type":"ChangeQuantity","data":{"list":"\#(Self.weekly)","item":"\#(Self.potatoes)","quantity":"#
        let byOddCase = #"{"type":"ChangeQuantity","data":{"list":" weekly ","item":"POTATOES","quantity":"#
        let byBarcode = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"4006381333931","quantity":"#
        for (number, detail) in [("1e2", "a quantity is a plain number (no exponent)"),
                                 ("1.5000", "a quantity has at most three fraction digits"),
                                 ("1.2345", "a quantity has at most three fraction digits"),
                                 ("2.0e0", "a quantity is a plain number (no exponent)")] {
            for prefix in [byName, byID, byOddCase, byBarcode] {
                let error = Self.decodeError(prefix + number + "}}", f.state)
                #expect(error as? CodecError == CodecError(.invalidQuantity, detail, offset: prefix.utf8.count), "\(prefix)\(number)")
            }
        }
        // The value rule comes before the names: an unknown name with a bad quantity is the quantity's refusal, as by id.
        let unknown = #"{"type":"ChangeQuantity","data":{"list":"Weekly","item":"Potatos","quantity":"#
        #expect(Self.decodeError(unknown + "1e2}}", f.state) as? CodecError
                == CodecError(.invalidQuantity, "a quantity is a plain number (no exponent)", offset: unknown.utf8.count))
        // A good quantity by name: the command by ids, the number as written.
        let good = try CommandCatalog.decode(Array((byName + "1.5}}").utf8), names: .resolve(f.state), ids: .sequential())
        #expect(good == CommandEnvelope(.changeQuantity(list: Self.weekly, item: Self.potatoes, quantity: Quantity(thousandths: 1500))))
        let barcode = try CommandCatalog.decode(Array((byBarcode + "2.25}}").utf8), names: .resolve(f.state), ids: .sequential())
        #expect(barcode == CommandEnvelope(.changeQuantity(list: Self.weekly, item: Self.potatoes, quantity: Quantity(thousandths: 2250))))
        // The unknown name alone: its own refusal.
        #expect(Self.decodeError(unknown + "2}}", f.state) as? RuleViolation
                == RuleViolation(.unknownItem, #"there is no live item named "Potatos""#, field: "item"))
    }

    /// An error's byte offset counts in the line as the user wrote it, before, inside and after a name.
    @Test func offsetsCountInTheLineAsWritten() throws {
        let f = try Self.household()
        let after = #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Potatoes"},"colour":1}"#
        #expect(Self.decodeError(after, f.state) as? CodecError == CodecError(
            .unknownField, #"a command has no field "colour" (it has type, id, actor, at, expectedSeq, correlation, device, data)"#,
            offset: after.utf8.count - 10))
        let unclosed = #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Potatoes","#
        #expect(Self.decodeError(unclosed, f.state) as? CodecError == CodecError(.malformedJSON, "expected a string but the text ended", offset: unclosed.utf8.count))
        let extra = #"{"type":"RenameItem","data":{"item":"Potatoes","name":"Spuds","size":2}}"#
        #expect(Self.decodeError(extra, f.state) as? CodecError
                == CodecError(.unknownField, #"RenameItem data has no field "size""#, offset: extra.utf8.count - 9))
        // RevertPurchase by item and by purchase at once: refused at "item", not read as a key given twice.
        let both = #"{"type":"RevertPurchase","data":{"purchase":"ABCD","item":"Potatoes"}}"#
        #expect(Self.decodeError(both, f.state) as? CodecError == CodecError(
            .invalidField, #"RevertPurchase names its purchase by "purchase" or by "item" (its latest purchase), not both"#, offset: 51))
    }

    /// A retry is read without looking its names up: each stands for the nil id; the journal answers from its record.
    @Test func aLineReadForARetryLooksNoNameUp() throws {
        let line = #"{"type":"RenameItem","id":"00000000-0000-0000-0000-0000000000C1","actor":"ana","data":{"item":"Milk","name":"Oat milk"}}"#
        let request = try CommandCatalog.decode(Array(line.utf8), names: .notLookedUp, ids: .sequential())
        #expect(request == CommandEnvelope(.renameItem(item: id(0), name: "Oat milk"), id: id(0xC1), actor: "ana"))
        #expect(Self.decodeError(line, ShopState.initial) as? RuleViolation
                == RuleViolation(.unknownItem, #"there is no live item named "Milk""#, field: "item"))
    }

    /// The id a line carries, read as far as the line goes: a refusal names it even when the line is no command.
    @Test func theCommandIDOfALineIsReadAsFarAsItGoes() {
        let cases: [(String, CommandID?)] = [
            (#"{"type":"RenameItem","id":"00000000-0000-0000-0000-0000000000C1","data":{"item":"Milk","name":"#, id(0xC1)),
            (#"{"type":"Nonsense","data":[1,2],"id":"00000000-0000-0000-0000-0000000000C2"}"#, id(0xC2)),
            (#"{"type":"RenameItem","data":{"item":"Milk","name":"Oat"}}"#, nil),
            (#"{"type":"RenameItem","id":"C1","data":{}}"#, nil),
            (#"{"type":"RenameItem",,"id":"00000000-0000-0000-0000-0000000000C3"}"#, nil),
            ("not json", nil),
        ]
        for (line, expected) in cases {
            #expect(CommandCatalog.commandID(in: Array(line.utf8)) == expected, "\(line)")
        }
    }

    /// RestoreList and PurgeList name a deleted list by its last name: before a live list of that name;
    /// two deleted lists of one name are `ambiguous_name`, listing their ids.
    @Test func restoreAndPurgeNameADeletedListByItsLastName() throws {
        var f = try Self.household()
        try f.run(.createList(list: id(0x21), name: "Party", priority: nil))
        try f.run(.deleteList(list: id(0x21)))
        try f.run(.createList(list: id(0x22), name: "party", priority: nil))
        #expect(try f.state.find(deletedList: " PARTY ") == id(0x21))
        let purge = try CommandCatalog.decode(Array(#"{"type":"PurgeList","data":{"list":"Party"}}"#.utf8), names: .resolve(f.state), ids: .sequential())
        #expect(purge == CommandEnvelope(.purgeList(list: id(0x21))))
        // Every other command names the live one.
        let rename = try CommandCatalog.decode(Array(#"{"type":"RenameList","data":{"list":"Party","name":"Fest"}}"#.utf8), names: .resolve(f.state), ids: .sequential())
        #expect(rename == CommandEnvelope(.renameList(list: id(0x22), name: "Fest")))
        // A live list's name, no deleted list having it: that list, which the rules refuse as by its id.
        #expect(try f.state.find(deletedList: "Weekly") == Self.weekly)
        #expect(f.rejection(.restoreList(list: Self.weekly)) == .listNotDeleted)
        // An id is the rules' to check.
        #expect(try f.state.find(deletedList: "00000000-0000-0000-0000-000000000099") == id(0x99))
        #expect(throws: RuleViolation(.unknownList, #"there is no list named "Picnic"; the deleted lists are Party"#, field: "list")) {
            try f.state.find(deletedList: "Picnic")
        }
        try f.run(.deleteList(list: id(0x22)))
        #expect(throws: RuleViolation(.ambiguousName, #"2 deleted lists are named "Party": 00000000-0000-0000-0000-000000000021, 00000000-0000-0000-0000-000000000022; give the id of the one meant"#, field: "list")) {
            try f.state.find(deletedList: "Party")
        }
        #expect(Self.decodeError(#"{"type":"RestoreList","data":{"list":"party"}}"#, f.state) as? RuleViolation
                == RuleViolation(.ambiguousName, #"2 deleted lists are named "party": 00000000-0000-0000-0000-000000000021, 00000000-0000-0000-0000-000000000022; give the id of the one meant"#, field: "list"))
        try f.run(.purgeList(list: id(0x21)))
        try f.run(.purgeList(list: id(0x22)))
        #expect(throws: RuleViolation(.unknownList, #"there is no list named "Party"; no list is deleted"#, field: "list")) {
            try f.state.find(deletedList: "Party")
        }
    }

    /// Names resolve in place: every other byte of the line stays as written.
    @Test func resolvingNamesKeepsEveryOtherByte() throws {
        let f = try Self.household()
        let line = #"{ "type" : "ChangeQuantity", "data" : { "list" : "Weekly", "item" : "Potatoes", "quantity" : 1.50 } }"#
        let resolved = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: f.state)
        #expect(String(decoding: resolved, as: UTF8.self)
                == #"{ "type" : "ChangeQuantity", "data" : { "list" : "\#(Self.weekly)", "item" : "\#(Self.potatoes)", "quantity" : 1.50 } }"#)
    }
}
