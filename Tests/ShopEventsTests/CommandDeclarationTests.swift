import Foundation
import Testing
@testable import ShopEvents

/// Issue 50, item 3: each command type is declared once
/// (`CommandDeclarations.swift`): the event that ends it, who may issue it,
/// and its fields, which are the keys its reader asks for. These tests hold
/// the derived answers to what the hand-written tables said before.
@Suite struct CommandDeclarationTests {
    /// `CommandCatalog.fields(of:)` as it was written by hand before the declarations: `apply --help` prints it.
    static let fieldsBefore: [CommandType: [String]] = [
        .createHousehold: ["household?", "name", "currency", "timeZone"], .createLocation: ["location?", "name", "color?"],
        .renameLocation: ["location", "name"], .recolorLocation: ["location", "color"],
        .reorderLocations: ["order", "positions?", "unknownAlias?"], .deleteLocation: ["location"],
        .createItem: ["item?", "name", "location?", "category?", "notes?", "unitPrice?", "photo?", "quantity?", "unit?", "barcode?"],
        .renameItem: ["item", "name"],
        .changeItemDetails: ["item", "category?", "notes?", "unitPrice?", "photo?", "quantity?", "unit?", "barcode?"],
        .relocateItem: ["item", "location"], .setItemAvailability: ["item", "available"], .deleteItem: ["item"],
        .createList: ["list?", "name", "priority?"], .renameList: ["list", "name"], .setListPriority: ["list", "priority"],
        .deleteList: ["list"], .restoreList: ["list"], .purgeList: ["list"], .clearBought: ["list"],
        .addItemToList: ["list", "item", "quantity?"], .changeQuantity: ["list", "item", "quantity"],
        .removeItemFromList: ["list", "item"], .reorderList: ["list", "order"], .assignEntry: ["list", "item", "member?"],
        .purchaseItem: ["purchase?", "item", "list?", "quantity?", "unitPrice?", "location?", "purchasedAt?", "store?"],
        .revertPurchase: ["purchase"], .startTrip: ["trip?", "list?", "store?"], .createStore: ["store?", "name"],
        .renameStore: ["store", "name"], .deleteStore: ["store"], .pauseTrip: ["trip"], .resumeTrip: ["trip"], .endTrip: ["trip"],
        .addMember: ["member", "role"], .changeMemberRole: ["member", "role"], .removeMember: ["member"],
    ]

    @Test func theDeclaredFieldsAreTheOnesTheHelpListedBefore() {
        for (type, fields) in Self.fieldsBefore {
            #expect(CommandCatalog.fields(of: type) == fields, "\(type.rawValue)")
        }
    }

    @Test func theOrdinalIsThePlaceInAllCases() {
        #expect(CommandType.allCases.map(\.ordinal) == Array(CommandType.allCases.indices))
        #expect(CommandType.allCases.map(\.declaration.type) == CommandType.allCases)
    }

    /// Each event type ends exactly one command type, and the command that makes a sample event is of that type.
    @Test(arguments: EventType.allCases)
    func theCommandMakingAnEventIsTheOneDeclaredToEndWithIt(_ type: EventType) {
        let declared = CommandType.allCases.filter { $0.declaration.makes == type }
        #expect(declared == [CommandType(endingWith: type)])
        for full in [true, false] {
            #expect(Command.making(EventDeclarationTests.sample(type, full: full)).kind == CommandType(endingWith: type))
        }
    }

    @Test func theEndingEventsAreTheOnesWrittenBefore() {
        #expect(CommandType(endingWith: .itemDeleted) == .deleteItem)
        #expect(CommandType(endingWith: .listEntryQuantityChanged) == .changeQuantity)
        #expect(CommandType(endingWith: .boughtEntriesCleared) == .clearBought)
        #expect(CommandType(endingWith: .itemAvailabilityChanged) == .setItemAvailability)
        #expect(CommandType(endingWith: .listEntryAssigned) == .assignEntry)
        #expect(CommandType(endingWith: .storeDeleted) == .deleteStore)
    }

    /// Who may issue what, as `authorize` listed it before: a member everything but these.
    @Test func onlyTheseAreKeptFromAMember() {
        let kept = CommandType.allCases.filter { $0.declaration.issuer != .member }
        #expect(kept == [.purgeList, .addMember, .changeMemberRole, .removeMember])
        #expect(CommandType.removeMember.declaration.issuer == .ownerOrItself)
        #expect(CommandType.addMember.declaration.issuer == .owner(why: "only an owner manages members"))
    }

    /// The writer writes exactly the declared keys, in order, for a command with every field given.
    @Test(arguments: CommandType.allCases)
    func theWriterWritesTheDeclaredKeys(_ type: CommandType) throws {
        let names = type.declaration.fields.map(\.key)
        let full = try CommandCodec.decode(CommandCatalogTests.line(type, names), ids: .sequential())
        var keys = KeyRecorder()
        full.command.visitFields(&keys)
        #expect(keys.keys == names)
    }
}

/// The keys a command's writer gives, values with them or not.
private struct KeyRecorder: CommandFieldVisitor {
    var keys: [String] = []
    mutating func note(_ name: StaticString, _ present: Bool) { if present { keys.append(name.description) } }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>) { note(name, true) }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?) { note(name, value != nil) }
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>]) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: [Int]?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: String) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: String?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: Int?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: Bool) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: Quantity) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: Quantity?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: Timestamp?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: Priority) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: Priority?) { note(name, value != nil) }
    mutating func field(_ name: StaticString, _ value: Role) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: Color) { note(name, true) }
    mutating func field(_ name: StaticString, _ value: Color?) { note(name, value != nil) }
    mutating func details(_ value: ItemDetails) {
        note("category", value.category != nil); note("notes", value.notes != nil); note("unitPrice", value.unitPrice != nil)
        note("photo", value.photo != nil); note("quantity", value.quantity != nil); note("unit", value.unit != nil)
        note("barcode", value.barcode != nil)
    }
    mutating func detailsPatch(_ patch: ItemDetailsPatch) {
        func change<Value>(_ name: StaticString, _ change: FieldPatch<Value>) { if case .keep = change {} else { note(name, true) } }
        change("category", patch.category); change("notes", patch.notes); change("unitPrice", patch.unitPrice)
        change("photo", patch.photo); change("quantity", patch.quantity); change("unit", patch.unit); change("barcode", patch.barcode)
    }
}
