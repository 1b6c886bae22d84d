import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

func id<K>(_ n: Int) -> EntityID<K> { EntityID(String(format: "00000000-0000-0000-0000-%012X", n))! }

/// A small household with hand-checked views.
struct SmallHousehold {
    let folder = Scratch.directory()
    var path: String { folder.appendingPathComponent("shop.ndjson").path }
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    let bakery: LocationID = id(0x51), dairy: LocationID = id(0x52)
    let milk: ItemID = id(1), butter: ItemID = id(2), bread: ItemID = id(3), eggs: ItemID = id(4)
    let weekly: ListID = id(0x10), party: ListID = id(0x11)
    let breadPurchase: PurchaseID = id(0x20), milkPurchase: PurchaseID = id(0x21), oldPurchase: PurchaseID = id(0x22)

    /// Each command one minute after the one before, from 09:00 UTC on 1 March 2026.
    func write(_ extra: (Journal) throws -> Void = { _ in }) throws {
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Self.start, by: 60_000),
                                                                   ids: .sequential(prefix: 0xE0), actor: "ana"))
        defer { journal.close() }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: bakery, name: "Bakery", color: nil))
        try journal.execute(.createLocation(location: dairy, name: "Dairy", color: Color(red: 0, green: 0, blue: 1, opacity: 1)))
        try journal.execute(.createItem(item: milk, name: "Milk", location: dairy, details: ItemDetails(unitPrice: 119)))
        try journal.execute(.createItem(item: butter, name: "butter", location: dairy, details: ItemDetails(unitPrice: 229)))
        try journal.execute(.createItem(item: bread, name: "Bread", location: bakery, details: .none))
        try journal.execute(.createItem(item: eggs, name: "Eggs", location: nil, details: .none))
        try journal.execute(.setItemAvailability(item: butter, available: false))
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: .high))
        try journal.execute(.createList(list: party, name: "Party", priority: .low))
        try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 2))
        try journal.execute(.addItemToList(list: weekly, item: butter, quantity: nil))
        try journal.execute(.addItemToList(list: weekly, item: bread, quantity: nil))
        try journal.execute(.addItemToList(list: weekly, item: eggs, quantity: 6))
        try journal.execute(.addItemToList(list: party, item: milk, quantity: 1))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: breadPurchase, item: bread, list: weekly, quantity: nil,
                                                          unitPrice: 350, location: nil, purchasedAt: nil), actor: "ben"))   // seq 16, 09:15
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: oldPurchase, item: milk, list: nil, quantity: 1, unitPrice: 99,
                                                          location: nil, purchasedAt: Timestamp("2026-02-14T23:30:00.000Z")!), actor: "cleo"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: milkPurchase, item: milk, list: party, quantity: nil,
                                                          unitPrice: nil, location: nil, purchasedAt: nil), actor: "ben"))   // seq 18, 09:17, 1 × 119
        try journal.execute(.renameItem(item: milk, name: "Whole milk"))
        try extra(journal)
    }

    func views(_ stop: ReplayStop = .end) throws -> HouseholdViews {
        try ViewEngine.views(journal: path, asOf: stop, useSnapshot: false).0
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite struct ViewTests {
    @Test func shoppingListByLocationAndByName() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write()
        let views = try h.views()
        let byLocation = try #require(ShoppingListView(views, list: h.weekly, grouping: .byLocation))
        let milkRow = ShoppingListView.Entry(item: h.milk, name: "Whole milk", quantity: 2, available: true, unitPrice: 119)
        let butterRow = ShoppingListView.Entry(item: h.butter, name: "butter", quantity: 1, available: false, unitPrice: 229)
        let eggsRow = ShoppingListView.Entry(item: h.eggs, name: "Eggs", quantity: 6, available: true, unitPrice: nil)
        #expect(byLocation == ShoppingListView(
            grouping: .byLocation, asOf: 19, list: ListRef(id: h.weekly, name: "Weekly"),
            sections: [.init(title: "Dairy", location: h.dairy, entries: [butterRow, milkRow]),
                       .init(title: "Unknown Location", location: .unknown, entries: [eggsRow])],
            remaining: 3, bought: 1, estimatedTotal: 2 * 119 + 229, unpriced: 1))
        let byName = try #require(ShoppingListView(views, list: h.weekly, grouping: .byName))
        #expect(byName.sections == [.init(title: "Weekly", location: nil, entries: [butterRow, eggsRow, milkRow])])
        #expect(ShoppingListView(views, list: id(0x99), grouping: .byName) == nil)
        #expect(ShoppingListView.shareText(views, list: h.weekly) == """
        Weekly — 3 to buy

        Dairy
        - butter (out of stock)
        - Whole milk ×2
        Unknown Location
        - Eggs ×6

        """)
    }

    @Test func listDetailListsAndDeletedLists() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write { journal in
            try journal.execute(CommandEnvelope(.deleteList(list: h.party), actor: "cleo"))   // seq 20, 09:19
        }
        let views = try h.views()
        #expect(ListDetailView(views, list: h.weekly) == ListDetailView(
            asOf: 20, list: ListRef(id: h.weekly, name: "Weekly"),
            entries: [.init(item: h.milk, name: "Whole milk", quantity: 2, bought: false),
                      .init(item: h.butter, name: "butter", quantity: 1, bought: false),
                      .init(item: h.eggs, name: "Eggs", quantity: 6, bought: false),
                      .init(item: h.bread, name: "Bread", quantity: 1, bought: true, purchase: h.breadPurchase)],
            bought: 1, total: 4))
        #expect(ListsView(views).lists == [
            .init(id: h.weekly, name: "Weekly", priority: .high, createdAt: Timestamp("2026-03-01T09:08:00.000Z")!,
                  entries: 4, remaining: 3, bought: 1),
        ])
        #expect(DeletedListsView(views).lists == [
            .init(id: h.party, name: "Party", deletedAt: Timestamp("2026-03-01T09:19:00.000Z")!, deletedBy: "cleo", entries: 1),
        ])
    }

    @Test func locationsAndItems() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write()
        let views = try h.views()
        #expect(LocationsView(views).locations == [
            .init(id: h.bakery, name: "Bakery", position: 1, color: .grey, items: 1),
            .init(id: h.dairy, name: "Dairy", position: 2, color: Color(red: 0, green: 0, blue: 1, opacity: 1), items: 2),
            .init(id: .unknown, name: "Unknown Location", position: 2_147_483_647, color: .grey, items: 1),
        ])
        #expect(ItemsByNameView(views).items == [
            .init(id: h.bread, name: "Bread", location: h.bakery, locationName: "Bakery", onLists: [],
                  lastPurchased: Timestamp("2026-03-01T09:15:00.000Z")!),
            .init(id: h.butter, name: "butter", location: h.dairy, locationName: "Dairy", onLists: [h.weekly], lastPurchased: nil),
            .init(id: h.eggs, name: "Eggs", location: .unknown, locationName: "Unknown Location", onLists: [h.weekly], lastPurchased: nil),
            .init(id: h.milk, name: "Whole milk", location: h.dairy, locationName: "Dairy", onLists: [h.weekly],
                  lastPurchased: Timestamp("2026-03-01T09:17:00.000Z")!),
        ])
        #expect(ItemsByPurchaseDateView(views).sections == [
            .init(day: "2026-03-01", items: [.init(id: h.bread, name: "Bread"), .init(id: h.milk, name: "Whole milk")]),
            .init(day: nil, items: [.init(id: h.butter, name: "butter"), .init(id: h.eggs, name: "Eggs")]),
        ])
    }

    @Test func auditShowsNamesAtTheTimeAndRevertsMarked() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write { journal in
            try journal.execute(.revertPurchase(purchase: h.milkPurchase))               // seq 20
            try journal.execute(.renameLocation(location: h.dairy, name: "Milk & Cheese"))
        }
        let views = try h.views()
        let audit = AuditView(views).purchases
        #expect(audit.map(\.seq) == [16, 17, 18])
        #expect(audit[2] == PurchaseRecord(
            seq: 18, event: audit[2].event, purchase: h.milkPurchase, purchasedAt: Timestamp("2026-03-01T09:17:00.000Z")!,
            actor: "ben", item: h.milk, itemName: "Milk", quantity: 1, unitPrice: 119, list: h.party, listName: "Party",
            location: h.dairy, locationName: "Dairy", isReverted: true))
        #expect(audit[1].purchasedAt == Timestamp("2026-02-14T23:30:00.000Z")!)
        #expect(audit[0].listName == "Weekly" && audit[0].unitPrice == 350 && audit[0].locationName == "Bakery")
        #expect(AuditView(views, filter: .init(actor: "ben")).purchases.map(\.seq) == [16, 18])
        #expect(AuditView(views, filter: .init(item: h.milk)).purchases.map(\.seq) == [17, 18])
        #expect(AuditView(views, filter: .init(list: h.weekly)).purchases.map(\.seq) == [16])
        #expect(AuditView(views, filter: .init(from: Timestamp("2026-03-01T00:00:00.000Z")!,
                                                to: Timestamp("2026-03-01T09:17:00.000Z")!)).purchases.map(\.seq) == [16])
        // the reverted purchase no longer counts as the last one, nor in stats; its entry is to buy again
        #expect(views.statistics.totals.lastPurchase(of: h.milk) == Timestamp("2026-02-14T23:30:00.000Z")!)
        #expect(ShoppingListView(views, list: h.party, grouping: .byName)?.remaining == 1)
    }

    @Test func statistics() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write { journal in
            try journal.execute(.startTrip(trip: id(0x30), list: h.weekly))     // 09:19
            try journal.execute(.pauseTrip(trip: id(0x30)))                      // 09:20
            try journal.execute(.resumeTrip(trip: id(0x30)))                     // 09:21
            try journal.execute(.endTrip(trip: id(0x30)))                        // 09:22 → 2 minutes running
            try journal.execute(.startTrip(trip: id(0x31), list: nil))           // still running: not counted
            try journal.execute(.deleteItem(item: h.bread))
        }
        let stats = StatsView(try h.views())
        #expect(stats.items == [
            .init(item: h.bread, name: "Bread", tally: Tally(purchases: 1, quantity: 1, spend: 350),
                  first: Timestamp("2026-03-01T09:15:00.000Z")!, last: Timestamp("2026-03-01T09:15:00.000Z")!, meanIntervalDays: nil),
            .init(item: h.milk, name: "Whole milk", tally: Tally(purchases: 2, quantity: 2, spend: 99 + 119),
                  first: Timestamp("2026-02-14T23:30:00.000Z")!, last: Timestamp("2026-03-01T09:17:00.000Z")!,
                  meanIntervalDays: Double(Timestamp("2026-03-01T09:17:00.000Z")!.millisecondsSince1970
                                           - Timestamp("2026-02-14T23:30:00.000Z")!.millisecondsSince1970) / 86_400_000),
        ])
        // 23:30 UTC on 14 February is 15 February 00:30 in Berlin: still February
        #expect(stats.months == [.init(month: "2026-02", tally: Tally(purchases: 1, quantity: 1, spend: 99)),
                                 .init(month: "2026-03", tally: Tally(purchases: 2, quantity: 2, spend: 350 + 119))])
        #expect(stats.actors == [.init(actor: "ben", tally: Tally(purchases: 2, quantity: 2, spend: 469)),
                                 .init(actor: "cleo", tally: Tally(purchases: 1, quantity: 1, spend: 99))])
        #expect(stats.locations == [.init(location: h.bakery, name: "Bakery", tally: Tally(purchases: 1, quantity: 1, spend: 350)),
                                    .init(location: h.dairy, name: "Dairy", tally: Tally(purchases: 2, quantity: 2, spend: 218))])
        #expect(stats.trips == .init(count: 1, totalSeconds: 120, meanSeconds: 120))
    }

    @Test func asOfSeqAndTime() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write()
        let atSeq15 = try h.views(.seq(15))
        #expect(atSeq15.asOf == 15)
        #expect(ShoppingListView(atSeq15, list: h.weekly, grouping: .byName)?.remaining == 4)
        let atTime = try h.views(.time(Timestamp("2026-03-01T09:15:30.000Z")!))
        #expect(atTime.asOf == 16)
        #expect(AuditView(atTime).purchases.count == 1)
        #expect(try h.views(.time(Timestamp("2020-01-01T00:00:00.000Z")!)).asOf == 0)
        #expect(try h.views(.seq(1000)).asOf == 19)
    }
}

@Suite struct TimeZoneTests {
    @Test(arguments: [("Europe/Berlin", "2026-06-02"), ("America/New_York", "2026-06-01"), ("UTC", "2026-06-01")])
    func aPurchaseAt2330UTC(timeZone: String, day: String) throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Timestamp("2026-06-01T23:30:00.000Z")!, by: 0),
                                                                  ids: .sequential(), actor: "ana"))
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: timeZone))
        try journal.execute(.createItem(item: id(1), name: "Milk", location: nil, details: .none))
        try journal.execute(.purchaseItem(purchase: id(2), item: id(1), list: nil, quantity: nil, unitPrice: 100, location: nil, purchasedAt: nil))
        journal.close()
        let views = try ViewEngine.views(journal: path).0
        #expect(ItemsByPurchaseDateView(views).sections.map(\.day) == [day])
        #expect(StatsView(views).months.map(\.month) == [String(day.prefix(7))])
        #expect(HouseholdCalendar(timeZone: timeZone).day(Timestamp("2026-06-01T23:30:00.000Z")!) == day)
    }

    @Test func calendarDaysAcrossTheYear() {
        let berlin = HouseholdCalendar(timeZone: "Europe/Berlin")
        #expect(berlin.day(Timestamp("2026-12-31T23:00:00.000Z")!) == "2027-01-01")
        #expect(berlin.day(Timestamp("2026-01-01T22:59:59.999Z")!) == "2026-01-01")   // winter: UTC+1
        #expect(berlin.day(Timestamp("2026-07-01T21:59:59.999Z")!) == "2026-07-01")   // summer: UTC+2
        #expect(berlin.day(Timestamp("2026-07-01T22:00:00.000Z")!) == "2026-07-02")
        #expect(HouseholdCalendar(timeZone: "America/New_York").month(Timestamp("2026-03-01T04:59:00.000Z")!) == "2026-02")
        #expect(HouseholdCalendar(timeZone: "UTC").day(Timestamp("1969-12-31T23:59:59.999Z")!) == "1969-12-31")
    }

    /// The month found with the offset remembered over a span is the month
    /// asked of the time zone each time: in zones with summer time, with a
    /// change of their standard offset, south of the equator, and off the
    /// hour; for times in order (as purchases come), a millisecond either
    /// side of each transition, and at random.
    @Test("the remembered offset gives the time zone's month", arguments: ["Europe/Berlin", "America/New_York", "Europe/Moscow", "Pacific/Apia",
                                                                          "America/Caracas", "Australia/Lord_Howe", "Asia/Kolkata", "UTC"])
    func rememberedOffsetGivesTheSameMonth(zone: String) {
        let plain = HouseholdCalendar(timeZone: zone)
        var remembering = plain
        var times: [Int64] = []
        var rng = SplitMix64(seed: 9)
        var at = Timestamp("2005-01-01T00:00:00.000Z")!.millisecondsSince1970
        while at < Timestamp("2030-01-01T00:00:00.000Z")!.millisecondsSince1970 {
            times.append(at)
            at += Int64.random(in: 1...(4 * 86_400_000), using: &rng)
        }
        var transition = Date(timeIntervalSince1970: 1_104_537_600)
        while let next = plain.timeZone.nextDaylightSavingTimeTransition(after: transition), next.timeIntervalSince1970 < 1_893_456_000 {
            let milliseconds = Int64(next.timeIntervalSince1970 * 1000)
            times += [milliseconds - 1, milliseconds, milliseconds + 1]
            transition = next
        }
        let inOrder = times.sorted()
        let shuffled = inOrder.shuffled(using: &rng)
        for milliseconds in inOrder + shuffled {
            let time = Timestamp(millisecondsSince1970: milliseconds)
            #expect(remembering.offset(remembering: time) == Int64(plain.timeZone.secondsFromGMT(for: time.date)) * 1000, "\(zone) \(time)")
            #expect(remembering.monthNumber(remembering: time) == plain.monthNumber(time), "\(zone) \(time)")
        }
        #expect(remembering == plain)
    }
}

@Suite struct SortedByNameTests {
    @Test("rows put in place by name, ignoring case, ties by id: the order of sorting with byName", arguments: [0, 1, 2, 7, 500])
    func sameOrderAsTheComparison(count: Int) {
        var rng = SeededRandom(seed: UInt64(count) + 90)
        let names = ["milk", "Milk", "MILK", "bread", "Äpfel", "äpfel", "eggs", "", "z"]
        // Ids distinct and in no particular order; names often equal but for case.
        let ids: [ItemID] = (0..<count).shuffled(using: &rng).map { id($0) }
        let rows = ids.map { (name: names.randomElement(using: &rng)!, id: $0) }
        let sorted = sortedByName(rows) { ($0.name, $0.id) }
        #expect(sorted.map(\.name) == rows.sorted(by: byName).map(\.name))
        #expect(sorted.map(\.id) == rows.sorted(by: byName).map(\.id))
    }
}
