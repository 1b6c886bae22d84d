import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Who is getting what (docs/COMMANDS.md, "Lists"): `AssignEntry`, every rule accepted and rejected.
@Suite struct AssignEntryRules {
    static let weekly: ListID = id(0x10), milk: ItemID = id(1), bread: ItemID = id(2), eggs: ItemID = id(3)

    @Test func anOpenHouseholdAssignsAnyNameAndNobody() throws {
        var f = try MemberRules.household()
        #expect(try f.run(.assignEntry(list: Self.weekly, item: Self.milk, member: "ben"))
                == [.listEntryAssigned(list: Self.weekly, item: Self.milk, member: "ben")])
        #expect(f.state.lists[Self.weekly]?.entry(for: Self.milk)?.assignee == "ben")
        #expect(try f.run(.assignEntry(list: Self.weekly, item: Self.milk, member: nil))
                == [.listEntryAssigned(list: Self.weekly, item: Self.milk, member: nil)])
        #expect(f.state.lists[Self.weekly]?.entry(for: Self.milk)?.assignee == nil)
    }

    @Test func everyRefusal() throws {
        var f = try MemberRules.household()
        try f.run(.createItem(item: Self.bread, name: "Bread", location: nil, details: .none))
        try f.run(.createItem(item: Self.eggs, name: "Eggs", location: nil, details: .none))
        try f.run(.addItemToList(list: Self.weekly, item: Self.eggs, quantity: 6))
        try f.run(.purchaseItem(purchase: id(0x20), item: Self.eggs, list: Self.weekly, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(f.rejection(.assignEntry(list: id(0x99), item: Self.milk, member: "ben")) == .unknownList)
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.bread, member: "ben")) == .notOnList)
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.eggs, member: "ben")) == .alreadyBought)
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "  ")) == .invalidActor)
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: nil)) == .unchanged, "nobody's already")
        try f.run(.assignEntry(list: Self.weekly, item: Self.milk, member: "ben"))
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "ben")) == .unchanged)
        try f.run(.deleteList(list: Self.weekly))
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "cleo")) == .listDeleted)
    }

    @Test func aClosedHouseholdAssignsOnlyItsMembersAndAViewerAssignsNothing() throws {
        var f = try MemberRules.family()
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "eve"), actor: "ana") == .unknownMember)
        #expect(try f.run(.assignEntry(list: Self.weekly, item: Self.milk, member: "oma"), actor: "cleo")
                == [.listEntryAssigned(list: Self.weekly, item: Self.milk, member: "oma")], "a member assigns; a viewer may be given an entry")
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "ana"), actor: "oma") == .forbidden)
        #expect(f.rejection(.assignEntry(list: Self.weekly, item: Self.milk, member: "ana"), actor: "eve") == .notAMember)
    }

    @Test func aFreshEntryIsNobodysAndABoughtOneKeepsItsAssignee() throws {
        var f = try MemberRules.household()
        try f.run(.assignEntry(list: Self.weekly, item: Self.milk, member: "ben"))
        try f.run(.purchaseItem(purchase: id(0x21), item: Self.milk, list: Self.weekly, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        #expect(f.state.lists[Self.weekly]?.entry(for: Self.milk)?.assignee == "ben", "who got it")
        try f.run(.addItemToList(list: Self.weekly, item: Self.milk, quantity: 1))
        #expect(f.state.lists[Self.weekly]?.entry(for: Self.milk)?.assignee == nil)
    }

    @Test func theEventIsCheckedAsItsCommandAndCodedBothWays() throws {
        let f = try MemberRules.household()
        let event = Event.listEntryAssigned(list: Self.weekly, item: Self.milk, member: "ben")
        try ShopDecider.check(event, f.state, actor: "ana")
        #expect(throws: RuleViolation.self) { try ShopDecider.check(.listEntryAssigned(list: Self.weekly, item: Self.milk, member: nil), f.state, actor: "ana") }
        for member in ["ben", nil] as [String?] {
            let one = RecordedEvent(seq: 9, id: id(0x30), at: TestClock.start, actor: "ana", command: id(0x31),
                                    event: .listEntryAssigned(list: Self.weekly, item: Self.milk, member: member), prev: .zero)
            let line = EventLineCodec.encode(one)
            #expect(try EventLineCodec.decode(line) == one)
            #expect(String(decoding: line, as: UTF8.self).contains(#""type":"ListEntryAssigned""#))
        }
        let nobody = CommandEnvelope(.assignEntry(list: Self.weekly, item: Self.milk, member: nil), id: id(0x77), actor: "ana")
        let json = CommandCodec.encode(nobody)
        #expect(!String(decoding: json, as: UTF8.self).contains("member"), "nobody: no member key")
        #expect(try CommandCodec.decode(json, ids: .random) == nobody)
        #expect(CommandCatalog.fields(of: .assignEntry) == ["list", "item", "member?"])
    }
}
