import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// The envelope and text rules (docs/COMMANDS.md): times ahead of the writer's clock,
/// a command id reused for another command, `ChangeItemDetails` as a merge
/// patch, control characters in names, units and notes, and an empty unit or
/// barcode as none. Accepted and refused, in the domain and through a journal.
@Suite struct EnvelopeAndTextRuleTests {
    static let now = Timestamp("2026-03-01T09:00:00.000Z")!
    static let minutes5 = ShopDecider.aheadOfClock

    // MARK: in_future

    /// The envelope decided against a household with one item, at `now`.
    static func decide(_ request: CommandEnvelope) throws(RuleViolation) -> DecidedCommand {
        var f = Fixture()
        try! f.run(.createHousehold(household: Fixture.home, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try! f.run(.createItem(item: id(1), name: "Milk", location: nil, details: ItemDetails(unitPrice: 119)))
        return try ShopDecider.decide(request, f.state, after: JournalEnd(seq: f.seq, lastAt: TestClock.start), now: now, defaultActor: "ana")
    }

    @Test func anAtMoreThanFiveMinutesAheadOfTheWritersClockIsInFuture() throws {
        let edge = Self.now.adding(milliseconds: Self.minutes5)
        #expect(try Self.decide(CommandEnvelope(.renameItem(item: id(1), name: "Oat milk"), at: edge))
                == DecidedCommand(events: [.itemRenamed(item: id(1), name: "Oat milk")], at: edge, actor: "ana"))
        let ahead = edge.adding(milliseconds: 1)
        #expect(throws: RuleViolation(.inFuture, "at 2026-03-01T09:05:00.001Z is more than 5 minutes after this writer's clock (2026-03-01T09:00:00.000Z): check the device's date and time", field: "at")) {
            try Self.decide(CommandEnvelope(.renameItem(item: id(1), name: "Oat milk"), at: ahead))
        }
        #expect(throws: RuleViolation(.inFuture, "at 2099-01-01T00:00:00.000Z is more than 5 minutes after this writer's clock (2026-03-01T09:00:00.000Z): check the device's date and time", field: "at")) {
            try Self.decide(CommandEnvelope(.createList(list: id(0x10), name: "Weekly"), at: Timestamp("2099-01-01T00:00:00.000Z")!))
        }
    }

    @Test func aPurchasedAtMoreThanADayAfterItsAtIsInFuture() throws {
        let at = Self.now
        let dayLater = at.adding(milliseconds: ShopDecider.purchaseAheadOfAt)
        func buy(_ purchasedAt: Timestamp, at: Timestamp?) -> CommandEnvelope {
            CommandEnvelope(.purchaseItem(purchase: id(0x20), item: id(1), purchasedAt: purchasedAt), at: at)
        }
        #expect(try Self.decide(buy(dayLater, at: at))
                == DecidedCommand(events: [.itemPurchased(purchase: id(0x20), item: id(1), list: nil, quantity: 1, unitPrice: 119, location: .unknown,
                                                          purchasedAt: dayLater, store: nil)], at: at, actor: "ana"))
        #expect(throws: RuleViolation(.inFuture, "purchasedAt 2026-03-02T09:00:00.001Z is more than 24 hours after the command's at (2026-03-01T09:00:00.000Z): a purchase is recorded when it is made or later", field: "purchasedAt")) {
            try Self.decide(buy(dayLater.adding(milliseconds: 1), at: at))
        }
        // Without an `at`, the event's at is the writer's clock.
        #expect(throws: RuleViolation(.inFuture, "purchasedAt 2099-01-01T00:00:00.000Z is more than 24 hours after the command's at (2026-03-01T09:00:00.000Z): a purchase is recorded when it is made or later", field: "purchasedAt")) {
            try Self.decide(buy(Timestamp("2099-01-01T00:00:00.000Z")!, at: nil))
        }
    }

    /// Through a journal: the refusal leaves the file as it was, and later events keep the real time.
    @Test func aJournalRefusesATimeInTheFutureAndWritesNothing() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()   // the clock steps a second a read from 2026-03-01T09:00
        defer { journal.close() }
        let before = fixture.bytes()
        let results = try journal.execute(batch: [
            CommandEnvelope(.createList(list: id(0x11), name: "Later"), id: id(0xC1), at: Timestamp("2099-01-01T00:00:00.000Z")!),
            CommandEnvelope(.purchaseItem(purchase: id(0x21), item: id(2), purchasedAt: Timestamp("2099-01-01T00:00:00.000Z")!), id: id(0xC2)),
        ])
        #expect(results.count == 2)
        for result in results {
            guard case let .failure(violation) = result else { Issue.record("accepted: \(result)"); continue }
            #expect(violation.reason == .inFuture)
        }
        #expect(fixture.bytes() == before)
        let next = try journal.execute(.createList(list: id(0x11), name: "Later"))
        #expect(next.events.map(\.at) == [Timestamp("2026-03-01T09:00:13.000Z")!])
    }

    // MARK: id_reused

    @Test func aCommandIDReusedForAnotherCommandIsRefusedAndARetryAnswered() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        defer { journal.close() }
        let buy = CommandEnvelope(.purchaseItem(purchase: id(0x21), item: id(2)), id: id(0xC1))
        let first = try journal.execute(buy)
        let before = fixture.bytes()
        // Another type under the id: refused, nothing written; the same type: the first answer.
        let results = try journal.execute(batch: [
            CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1)),
            CommandEnvelope(.purchaseItem(purchase: id(0x22), item: id(3)), id: id(0xC1)),
        ])
        #expect(results == [
            .failure(RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C1 was used for a PurchaseItem already; this CreateList needs an id of its own (only a retry of that PurchaseItem may repeat it)", field: "id")),
            .success(CommandOutcome(command: id(0xC1), events: first.events, isRetry: true)),
        ])
        #expect(fixture.bytes() == before)
        #expect(journal.state.lists[id(0x11)] == nil)
    }

    /// A command of several events is known by its last: a DeleteItem begins with ItemRemovedFromList.
    @Test func aCommandIsKnownByItsLastEvent() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        defer { journal.close() }
        let delete = try journal.execute(CommandEnvelope(.deleteItem(item: id(2)), id: id(0xC1)))
        #expect(delete.events.map(\.event.kind) == [.itemRemovedFromList, .itemDeleted])
        let before = fixture.bytes()
        #expect(throws: RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C1 was used for a DeleteItem already; this RemoveItemFromList needs an id of its own (only a retry of that DeleteItem may repeat it)", field: "id")) {
            try journal.execute(CommandEnvelope(.removeItemFromList(list: id(0x10), item: id(1)), id: id(0xC1)))
        }
        #expect(try journal.execute(CommandEnvelope(.deleteItem(item: id(2)), id: id(0xC1))) == CommandOutcome(command: id(0xC1), events: delete.events, isRetry: true))
        #expect(fixture.bytes() == before)
        #expect(CommandType(endingWith: .itemRelocated) == .relocateItem)
        #expect(CommandType(endingWith: .locationDeleted) == .deleteLocation)
        #expect(CommandType(endingWith: .memberAdded) == .addMember)
    }

    /// Within one batch, and in a batch executed all or nothing.
    @Test func anIDReusedWithinABatchAndAllOrNothing() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        defer { journal.close() }
        let results = try journal.execute(batch: [
            CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1)),
            CommandEnvelope(.renameList(list: id(0x11), name: "Feast"), id: id(0xC1)),
            CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1)),
        ])
        guard case let .success(created) = results[0] else { Issue.record("\(results[0])"); return }
        #expect(Array(results.dropFirst()) == [
            .failure(RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C1 was used for a CreateList already; this RenameList needs an id of its own (only a retry of that CreateList may repeat it)", field: "id")),
            .success(CommandOutcome(command: id(0xC1), events: created.events, isRetry: true)),
        ])
        #expect(journal.state.lists[id(0x11)]?.name == "Party")
        let before = fixture.bytes()
        #expect(throws: BatchRejection(index: 1, violation: RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C1 was used for a CreateList already; this CreateStore needs an id of its own (only a retry of that CreateList may repeat it)", field: "id"))) {
            try journal.execute(allOrNothing: [CommandEnvelope(.createStore(store: id(0x30), name: "Corner shop")),
                                               CommandEnvelope(.createStore(store: id(0x31), name: "Market"), id: id(0xC1))])
        }
        #expect(throws: BatchRejection(index: 1, violation: RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C2 was used for a CreateStore already; this RenameStore needs an id of its own (only a retry of that CreateStore may repeat it)", field: "id"))) {
            try journal.execute(allOrNothing: [CommandEnvelope(.createStore(store: id(0x30), name: "Corner shop"), id: id(0xC2)),
                                               CommandEnvelope(.renameStore(store: id(0x30), name: "Market"), id: id(0xC2))])
        }
        #expect(fixture.bytes() == before)
        #expect(journal.state.stores.isEmpty)
    }

    /// Pipelined, a batch is decided while the one before is still being written: a reused id is refused once it lands.
    @Test func aPipelinedRunRefusesAnIDReusedAcrossBatches() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        defer { journal.close() }
        var answers: [[Result<CommandOutcome, RuleViolation>]] = []
        try journal.execute(batches: [
            [CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1))],
            [CommandEnvelope(.renameList(list: id(0x11), name: "Feast"), id: id(0xC1)),
             CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1))],
        ]) { answers.append($0) }
        guard answers.count == 2, case let .success(created) = answers[0][0] else { Issue.record("\(answers)"); return }
        #expect(created.seqs == [13])
        #expect(answers[1] == [
            .failure(RuleViolation(.idReused, "command id 00000000-0000-0000-0000-0000000000C1 was used for a CreateList already; this RenameList needs an id of its own (only a retry of that CreateList may repeat it)", field: "id")),
            .success(CommandOutcome(command: id(0xC1), events: created.events, isRetry: true)),
        ])
        #expect(journal.head.seq == 13)
        #expect(journal.state.lists[id(0x11)]?.name == "Party")
    }

    /// The hub decides a push through the same journal path: a reused id is refused there too.
    @Test func aSyncHubRefusesAnIDReused() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let first = try journal.execute(CommandEnvelope(.createList(list: id(0x11), name: "Party"), id: id(0xC1)))
        journal.close()
        let before = fixture.bytes()
        let hub = SyncHub(journal: fixture.path, options: .init(clock: TestClock.stepping(), actor: "hub"))
        let answer = hub.respond(toLine: Array(#"{"push":{"commands":[{"type":"CreateStore","id":"00000000-0000-0000-0000-0000000000C1","actor":"ana","data":{"name":"Market"}},{"type":"CreateList","id":"00000000-0000-0000-0000-0000000000C1","actor":"ana","data":{"list":"00000000-0000-0000-0000-000000000011","name":"Party"}}]}}"#.utf8))
        #expect(String(decoding: answer, as: UTF8.self)
                == #"{"results":[{"command":"00000000-0000-0000-0000-0000000000C1","ok":false,"error":{"code":"id_reused","message":"command id 00000000-0000-0000-0000-0000000000C1 was used for a CreateList already; this CreateStore needs an id of its own (only a retry of that CreateList may repeat it)"}},{"command":"00000000-0000-0000-0000-0000000000C1","ok":true,"seqs":[\#(first.seqs[0])]}]}"# + "\n")
        #expect(fixture.bytes() == before)
    }

    /// The hub stamps pushed commands with its own clock (a push carries no `at`): a purchase more than a day after it is refused.
    @Test func aSyncHubRefusesAPurchaseADayAheadOfItsClock() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let before = fixture.bytes()
        let hub = SyncHub(journal: fixture.path, options: .init(clock: .stepping(from: Timestamp("2026-03-01T10:00:00.000Z")!, by: 0), actor: "hub"))
        let answer = hub.respond(toLine: Array(#"{"push":{"commands":[{"type":"PurchaseItem","id":"00000000-0000-0000-0000-0000000000C2","actor":"ana","data":{"item":"00000000-0000-0000-0000-000000000002","purchasedAt":"2026-03-02T10:00:00.001Z"}}]}}"#.utf8))
        #expect(String(decoding: answer, as: UTF8.self)
                == #"{"results":[{"command":"00000000-0000-0000-0000-0000000000C2","ok":false,"error":{"code":"in_future","message":"purchasedAt 2026-03-02T10:00:00.001Z is more than 24 hours after the command's at (2026-03-01T10:00:00.000Z): a purchase is recorded when it is made or later"}}]}"# + "\n")
        #expect(fixture.bytes() == before)
    }

    // MARK: ChangeItemDetails is a merge patch

    @Test func changeItemDetailsKeepsWhatItLeavesOutAndClearsNull() throws {
        var f = try Fixture.started()
        let full = ItemDetails(category: "Dairy", notes: "cold", unitPrice: 119, photo: "milk.jpg", quantity: 2, unit: "l", barcode: "4006381333931")
        try f.run(.createItem(item: id(1), name: "Milk", location: nil, details: full))
        var expected = full
        expected.notes = "x"
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(notes: .set("x"))))
                == [.itemDetailsChanged(item: id(1), details: expected)])
        expected.unitPrice = nil
        expected.barcode = nil
        expected.category = "Chilled"
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(category: .set(" Chilled "), unitPrice: .clear, barcode: .clear))) == [.itemDetailsChanged(item: id(1), details: expected)])
        #expect(f.state.items[id(1)]?.details == expected)
        // Nothing given: the same set again.
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch())) == [.itemDetailsChanged(item: id(1), details: expected)])
        // Replacing the whole set, as before v4.
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 99))))
                == [.itemDetailsChanged(item: id(1), details: ItemDetails(unitPrice: 99))])
        // What it sets is checked; what it keeps is not looked at again.
        #expect(throws: RuleViolation(.invalidPrice, "unitPrice -1 is out of range 0…100000000 (minor units)", field: "unitPrice")) {
            try ShopDecider.decide(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(unitPrice: .set(-1))), f.state, actor: "ana")
        }
        #expect(throws: RuleViolation(.unknownItem, "item 00000000-0000-0000-0000-000000000009 does not exist", field: "item")) {
            try ShopDecider.decide(.changeItemDetails(item: id(9), patch: ItemDetailsPatch(notes: .set("x"))), f.state, actor: "ana")
        }
    }

    @Test func theCommandCodecTellsAbsentFromNull() throws {
        let line = #"{"type":"ChangeItemDetails","data":{"item":"00000000-0000-0000-0000-000000000001","notes":"x","unitPrice":null,"barcode":""}}"#
        let request = try CommandCodec.decode(Array(line.utf8), ids: .random)
        #expect(request == CommandEnvelope(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(notes: .set("x"), unitPrice: .clear, barcode: .set("")))))
        #expect(String(decoding: CommandCodec.encode(request), as: UTF8.self)
                == #"{"type":"ChangeItemDetails","data":{"item":"00000000-0000-0000-0000-000000000001","notes":"x","unitPrice":null,"barcode":""}}"#)
        let every = CommandEnvelope(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(
            category: .clear, notes: .set("a\nb"), unitPrice: .set(5), photo: .clear, quantity: .set(Quantity(thousandths: 1500)), unit: .set("kg"), barcode: .clear)))
        #expect(try CommandCodec.decode(CommandCodec.encode(every), ids: .random) == every)
        #expect(throws: CodecError.self) {
            try CommandCodec.decode(Array(#"{"type":"ChangeItemDetails","data":{"item":"00000000-0000-0000-0000-000000000001","colour":null}}"#.utf8), ids: .random)
        }
    }

    // MARK: Control characters

    @Test func namesAndUnitsRefuseC0DelAndC1() throws {
        var f = try Fixture.started()
        #expect(throws: RuleViolation(.invalidName, #"name "csi\u{9B}31mred" holds the control character U+009B; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"#, field: "name")) {
            try ShopDecider.decide(.createItem(item: id(1), name: "csi\u{9B}31mred", location: nil, details: .none), f.state, actor: "ana")
        }
        for name in ["a\u{7F}b", "a\u{80}b", "a\u{9F}b", "a\u{1B}b", "a\u{85}b"] {
            for command in [Command.createItem(item: id(1), name: name), .createList(list: id(2), name: name), .createLocation(location: id(3), name: name),
                            .createStore(store: id(4), name: name)] {
                #expect(f.rejection(command) == .invalidName, "\(command)")
            }
        }
        #expect(throws: RuleViolation(.invalidName, #"unit "k\u{85}g" holds the control character U+0085; names, units, actors and devices may hold none (U+0000–U+001F, U+007F–U+009F)"#, field: "unit")) {
            try ShopDecider.decide(.createItem(item: id(1), name: "Flour", details: ItemDetails(unit: "k\u{85}g")), f.state, actor: "ana")
        }
        // Joiners and other format characters stay: emoji need them. U+00A0 and later are not control characters.
        let family = "Family 👨‍👩‍👧 pack\u{A0}2"
        #expect(try f.run(.createItem(item: id(1), name: family, details: ItemDetails(unit: "🥚\u{200D}pack")))
                == [.itemCreated(item: id(1), name: family, location: .unknown, details: ItemDetails(unit: "🥚\u{200D}pack"))])
        #expect(f.rejection(.renameItem(item: id(1), name: "x\u{9B}")) == .invalidName)
        #expect(Fixture().rejection(.createHousehold(household: Fixture.home, name: "Home\u{9B}", currency: "EUR", timeZone: "Europe/Berlin")) == .invalidName)
        #expect(Limits.visible("csi\u{9B}31m\u{7F}\n") == #"csi\u{9B}31m\u{7F}\n"#)
    }

    @Test func notesMayHoldLineFeedsAndTabsButNoOtherControlCharacter() throws {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Milk"))
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(notes: .set("2 l\n\tthe blue one"))))
                == [.itemDetailsChanged(item: id(1), details: ItemDetails(notes: "2 l\n\tthe blue one"))])
        #expect(throws: RuleViolation(.invalidText, #"notes "2 l\r\n" holds the control character U+000D; notes may hold line feeds and tabs but no other control character (U+0000–U+001F, U+007F–U+009F)"#, field: "notes")) {
            try ShopDecider.decide(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(notes: .set("2 l\r\n"))), f.state, actor: "ana")
        }
        for notes in ["\u{1B}[31m", "a\u{9B}b", "a\u{7F}", "a\u{0}"] {
            #expect(f.rejection(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(notes: .set(notes)))) == .invalidText, "\(notes)")
            #expect(f.rejection(.createItem(item: id(2), name: "Eggs", details: ItemDetails(notes: notes))) == .invalidText, "\(notes)")
        }
        #expect(f.state.items[id(1)]?.details == ItemDetails(notes: "2 l\n\tthe blue one"))
    }

    // MARK: An empty unit or barcode is none

    @Test func anEmptyUnitOrBarcodeIsNone() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createItem(item: id(1), name: "Tea", details: ItemDetails(category: " ", notes: "", photo: "", unit: "  ", barcode: " ")))
                == [.itemCreated(item: id(1), name: "Tea", location: .unknown, details: .none)])
        try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(unit: .set("kg"), barcode: .set("4006381333931"))))
        #expect(try f.run(.changeItemDetails(item: id(1), patch: ItemDetailsPatch(unit: .set(""), barcode: .set(" \t "))))
                == [.itemDetailsChanged(item: id(1), details: .none)])
        #expect(f.state.liveItem(barcode: "4006381333931") == nil)
    }
}
