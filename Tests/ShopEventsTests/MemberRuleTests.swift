import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Members and roles (docs/COMMANDS.md, docs/MEMBERS.md): every rule, accepted and rejected.
@Suite struct MemberRules {
    /// A household with a location, an item on a list, and no members yet.
    static func household() throws -> Fixture {
        var f = try Fixture.started()
        try f.run(.createLocation(location: id(0x50), name: "Dairy", color: nil))
        try f.run(.createItem(item: id(1), name: "Milk", location: id(0x50), details: .init(unitPrice: 119)))
        try f.run(.createList(list: id(0x10), name: "Weekly", priority: .high))
        try f.run(.addItemToList(list: id(0x10), item: id(1), quantity: 2))
        return f
    }

    /// ana and ben own it, cleo is a member, oma a viewer.
    static func family() throws -> Fixture {
        var f = try household()
        try f.run(.addMember(member: "ben", role: .owner), actor: "ana")
        try f.run(.addMember(member: "cleo", role: .member), actor: "ben")
        try f.run(.addMember(member: "oma", role: .viewer), actor: "ana")
        return f
    }

    @Test func anOpenHouseholdLetsEveryActorDoEverything() throws {
        var f = try Self.household()
        #expect(f.state.isOpen)
        #expect(try f.run(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil),
                          actor: "anyone") == [.itemPurchased(purchase: id(0x20), item: id(1), list: id(0x10), quantity: 2, unitPrice: 119, location: id(0x50), purchasedAt: nil)])
        try f.run(.deleteList(list: id(0x10)), actor: "stranger")
        #expect(try f.run(.purgeList(list: id(0x10)), actor: "someone else") == [.listPurged(list: id(0x10))])
    }

    @Test func theFirstAddMemberMakesTheIssuerAnOwnerInTheSameCommand() throws {
        var f = try Self.household()
        #expect(try f.run(.addMember(member: "ben", role: .member), actor: "ana")
                == [.memberAdded(member: "ana", role: .owner), .memberAdded(member: "ben", role: .member)])
        #expect(f.state.members == [Member(name: "ana", role: .owner, joinedAt: f.clock.adding(milliseconds: -60_000), addedBy: "ana"),
                                    Member(name: "ben", role: .member, joinedAt: f.clock, addedBy: "ana")])
        #expect(!f.state.isOpen)
    }

    @Test func addingOneselfFirstMustBeAsOwner() throws {
        var f = try Self.household()
        #expect(f.rejection(.addMember(member: "ana", role: .member), actor: "ana") == .lastOwner)
        #expect(f.rejection(.addMember(member: "ana", role: .viewer), actor: "ana") == .lastOwner)
        #expect(try f.run(.addMember(member: "ana", role: .owner), actor: "ana") == [.memberAdded(member: "ana", role: .owner)])
        #expect(f.state.members.map(\.name) == ["ana"])
    }

    @Test func strangersAreNotMembers() throws {
        let f = try Self.family()
        for command: Command in [.createItem(item: id(2), name: "Tea", location: nil, details: .none),
                                 .createItem(item: id(2), name: " ", location: nil, details: .none),   // the role check comes first
                                 .addMember(member: "eve", role: .owner), .removeMember(member: "eve")] {
            #expect(f.rejection(command, actor: "eve") == .notAMember, "\(command.typeName)")
        }
        do {
            _ = try ShopDecider.decide(.createList(list: id(0x11), name: "Mine", priority: nil), f.state, actor: "eve")
        } catch {
            #expect(error.message == "\"eve\" is not a member of this household, which has members; an owner can add them (AddMember) — CreateList was not done")
        }
        // Names are compared exactly.
        #expect(f.rejection(.createList(list: id(0x11), name: "Mine", priority: nil), actor: "Ana") == .notAMember)
    }

    @Test func theHouseholdMustExistFirst() {
        let f = Fixture()
        #expect(f.rejection(.addMember(member: "ben", role: .owner), actor: "ana") == .noHousehold)
    }

    @Test func viewersMayIssueNoCommand() throws {
        let f = try Self.family()
        for command: Command in [.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil),
                                 .addItemToList(list: id(0x10), item: id(1), quantity: nil), .createList(list: id(0x11), name: "Mine", priority: nil),
                                 .removeMember(member: "oma"), .addMember(member: "eve", role: .viewer)] {
            #expect(f.rejection(command, actor: "oma") == .forbidden, "\(command.typeName)")
        }
        do {
            _ = try ShopDecider.decide(.renameItem(item: id(1), name: "Oat milk"), f.state, actor: "oma")
        } catch {
            #expect(error.message == "\"oma\" is a viewer of this household: a viewer may look, and issue no command — RenameItem was not done")
        }
    }

    @Test func membersShopButDoNotManageMembersOrPurge() throws {
        var f = try Self.family()
        #expect(try f.run(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: 1, unitPrice: nil, location: nil, purchasedAt: nil),
                          actor: "cleo").count == 1)
        try f.run(.createList(list: id(0x11), name: "Party", priority: nil), actor: "cleo")
        try f.run(.deleteList(list: id(0x11)), actor: "cleo")
        #expect(f.rejection(.purgeList(list: id(0x11)), actor: "cleo") == .forbidden)
        #expect(f.rejection(.addMember(member: "eve", role: .viewer), actor: "cleo") == .forbidden)
        #expect(f.rejection(.changeMemberRole(member: "oma", role: .member), actor: "cleo") == .forbidden)
        #expect(f.rejection(.changeMemberRole(member: "cleo", role: .owner), actor: "cleo") == .forbidden, "no promoting oneself")
        #expect(f.rejection(.removeMember(member: "oma"), actor: "cleo") == .forbidden)
        // Leaving is allowed.
        #expect(try f.run(.removeMember(member: "cleo"), actor: "cleo") == [.memberRemoved(member: "cleo")])
        #expect(f.rejection(.createItem(item: id(2), name: "Tea", location: nil, details: .none), actor: "cleo") == .notAMember)
        // An owner purges.
        #expect(try f.run(.purgeList(list: id(0x11)), actor: "ben") == [.listPurged(list: id(0x11))])
    }

    @Test func ownersManageMembers() throws {
        var f = try Self.family()
        #expect(f.rejection(.addMember(member: "cleo", role: .viewer), actor: "ana") == .alreadyMember)
        #expect(f.rejection(.addMember(member: "   ", role: .viewer), actor: "ana") == .invalidActor)
        #expect(f.rejection(.addMember(member: String(repeating: "x", count: 101), role: .viewer), actor: "ana") == .invalidActor)
        #expect(f.rejection(.changeMemberRole(member: "eve", role: .member), actor: "ana") == .unknownMember)
        #expect(f.rejection(.removeMember(member: "eve"), actor: "ana") == .unknownMember)
        #expect(f.rejection(.changeMemberRole(member: "cleo", role: .member), actor: "ana") == .unchanged)
        // Promotion and demotion.
        #expect(try f.run(.changeMemberRole(member: "oma", role: .member), actor: "ana") == [.memberRoleChanged(member: "oma", role: .member)])
        #expect(try f.run(.changeMemberRole(member: "cleo", role: .owner), actor: "ben") == [.memberRoleChanged(member: "cleo", role: .owner)])
        #expect(try f.run(.changeMemberRole(member: "ana", role: .viewer), actor: "cleo") == [.memberRoleChanged(member: "ana", role: .viewer)])
        #expect(f.rejection(.createList(list: id(0x11), name: "Mine", priority: nil), actor: "ana") == .forbidden)
        #expect(f.state.members.map { "\($0.name) \($0.role.rawValue)" } == ["ana viewer", "ben owner", "cleo owner", "oma member"])
        // Removing an owner who is not the last, and someone re-added joins last.
        #expect(try f.run(.removeMember(member: "ben"), actor: "cleo") == [.memberRemoved(member: "ben")])
        try f.run(.addMember(member: "ben", role: .member), actor: "cleo")
        #expect(f.state.members.map(\.name) == ["ana", "cleo", "oma", "ben"])
        #expect(f.state.member(named: "ben")?.addedBy == "cleo")
    }

    @Test func theLastOwnerStays() throws {
        var f = try Self.household()
        try f.run(.addMember(member: "ben", role: .member), actor: "ana")
        #expect(f.rejection(.changeMemberRole(member: "ana", role: .member), actor: "ana") == .lastOwner)
        #expect(f.rejection(.removeMember(member: "ana"), actor: "ana") == .lastOwner)
        do {
            _ = try ShopDecider.decide(.removeMember(member: "ana"), f.state, actor: "ana")
        } catch {
            #expect(error.message == "\"ana\" is the household's last owner: removing it would leave it without one; make another member an owner first")
        }
        try f.run(.changeMemberRole(member: "ben", role: .owner), actor: "ana")
        #expect(try f.run(.removeMember(member: "ana"), actor: "ana") == [.memberRemoved(member: "ana")])
        #expect(f.rejection(.changeMemberRole(member: "ben", role: .viewer), actor: "ben") == .lastOwner)
    }
}

/// `PurchaseItem` of a deleted item, recorded after the fact (docs/COMMANDS.md, "Purchases").
@Suite struct DeletedItemPurchaseRules {
    static let when = Timestamp("2026-02-27T17:00:00.000Z")!

    static func deleted() throws -> Fixture {
        var f = try MemberRules.household()
        try f.run(.deleteLocation(location: id(0x50)))
        try f.run(.createLocation(location: id(0x51), name: "Deli", color: nil))
        try f.run(.relocateItem(item: id(1), location: id(0x51)))
        try f.run(.deleteLocation(location: id(0x51)))   // Milk goes back to Unknown…
        try f.run(.createLocation(location: id(0x52), name: "Bakery", color: nil))
        try f.run(.relocateItem(item: id(1), location: id(0x52)))
        try f.run(.renameItem(item: id(1), name: "Oat milk"))
        try f.run(.deleteItem(item: id(1)))              // … then lives in Bakery, is renamed, and deleted
        try f.run(.deleteLocation(location: id(0x52)))   // and its last location goes too (a deleted item is not moved)
        return f
    }

    @Test func acceptedOffAnyListWithPurchasedAt() throws {
        var f = try Self.deleted()
        #expect(f.state.items[id(1)]?.isDeleted == true)
        #expect(f.state.locations[id(0x52)]?.isDeleted == true)
        #expect(try f.run(.purchaseItem(purchase: id(0x20), item: id(1), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: Self.when))
                == [.itemPurchased(purchase: id(0x20), item: id(1), list: nil, quantity: 1, unitPrice: 119, location: id(0x52), purchasedAt: Self.when)])
        #expect(try f.run(.purchaseItem(purchase: id(0x21), item: id(1), list: nil, quantity: 3, unitPrice: 99, location: .unknown, purchasedAt: Self.when))
                == [.itemPurchased(purchase: id(0x21), item: id(1), list: nil, quantity: 3, unitPrice: 99, location: .unknown, purchasedAt: Self.when)])
    }

    @Test func rejectedWithoutPurchasedAtOrOnAList() throws {
        let f = try Self.deleted()
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(1), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) == .itemDeleted)
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: Self.when)) == .itemDeleted)
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(1), list: nil, quantity: 0, unitPrice: nil, location: nil, purchasedAt: Self.when)) == .invalidQuantity)
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(1), list: nil, quantity: nil, unitPrice: -1, location: nil, purchasedAt: Self.when)) == .invalidPrice)
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(9), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: Self.when)) == .unknownItem)
        #expect(f.rejection(.purchaseItem(purchase: id(0x20), item: id(1), list: nil, quantity: nil, unitPrice: nil, location: id(0x99), purchasedAt: Self.when)) == .unknownLocation)
    }
}

/// Roles in the journal: rejections write nothing, and verify re-decides every event with its actor.
@Suite struct MemberJournalTests {
    @Test func aRejectedCommandLeavesTheJournalByteIdentical() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        defer { journal.close() }
        try journal.execute(CommandEnvelope(.addMember(member: "oma", role: .viewer), actor: "ana"))
        let before = fixture.bytes()
        for (command, actor) in [(Command.createList(list: id(0x11), name: "Mine", priority: nil), "oma"),
                                 (.createList(list: id(0x11), name: "Mine", priority: nil), "eve"),
                                 (.removeMember(member: "ana"), "ana")] {
            #expect(rejectionCode { try journal.execute(CommandEnvelope(command, actor: actor)) } != nil)
            #expect(fixture.bytes() == before)
        }
        #expect(journal.head.seq == 14)
    }

    @Test func aViewersPurchaseInTheJournalFailsVerificationAtItsLine() throws {
        let lines = JournalLinesBuilder()
            .add(.householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), command: 1)
            .add(.locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey), command: 2)
            .add(.itemCreated(item: id(1), name: "Milk", location: id(0x50), details: .none), command: 3)
            .add(.memberAdded(member: "ana", role: .owner), command: 4, commandEvents: 2)
            .add(.memberAdded(member: "ana2", role: .viewer), command: 4)
            .add(.itemPurchased(purchase: id(0x20), item: id(1), list: nil, quantity: 1, unitPrice: nil, location: id(0x50), purchasedAt: nil),
                 command: 5, actor: "ana2")
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.failure?.line == 6)
        #expect(report.failure?.message.contains("ItemPurchased is not legal here (forbidden: \"ana2\" is a viewer") == true)
        #expect(report.events == 5)
        // The same journal up to line 5 verifies: the members' own events are legal.
        Scratch.write(Array(lines.bytes.prefix(lines.offset(ofLine: 6))), to: fixture.path)
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }

    /// Random histories with members, issued by owners, members, viewers and
    /// strangers: the state after reopening equals the state folded in memory
    /// from the accepted commands, every event verifies, rejections write nothing.
    @Test(arguments: [71, 72, 73] as [UInt64])
    func randomHistoriesWithMembersVerifyAndReopen(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var generator = RandomCommands(seed: seed)
        var memory = Fixture()
        var reasons = Set<String>()
        var accepted = 0
        do {
            let journal = try fixture.open(ids: .sequential(prefix: 0x5EED))
            defer { journal.close() }
            for _ in 0..<700 {
                let (command, actor) = generator.nextWithActor(for: memory.state)
                let size = fixture.bytes().count
                do {
                    let outcome = try journal.execute(CommandEnvelope(command, actor: actor))
                    let events = try memory.run(command, actor: actor)
                    #expect(outcome.events.map(\.event) == events)
                    accepted += 1
                } catch let violation as RuleViolation {
                    reasons.insert(violation.code)
                    #expect(memory.rejection(command, actor: actor)?.rawValue == violation.code)
                    #expect(fixture.bytes().count == size)
                }
            }
        }
        let reopened = try fixture.open()
        defer { reopened.close() }
        var folded = ShopState.initial
        for recorded in try JournalReader.readAll(path: fixture.path) { folded.apply(recorded) }
        #expect(reopened.state == folded)
        // The in-memory fold has its own clock: compare all of a member but when it joined.
        #expect(reopened.state.members.map { [$0.name, $0.role.rawValue, $0.addedBy] } == memory.state.members.map { [$0.name, $0.role.rawValue, $0.addedBy] })
        #expect(reopened.state.items == memory.state.items)
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
        #expect(accepted > 150)
        for code in ["not_a_member", "forbidden", "already_member", "unknown_member"] {
            #expect(reasons.contains(code), "seed \(seed): \(code) never fired")
        }
    }
}
