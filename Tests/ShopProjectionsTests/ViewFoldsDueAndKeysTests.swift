import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The views in the library: every public view right on a
/// ``HouseholdModel``'s default history, or refusing loudly; due counted to
/// now; keys always present; an assignee who is no longer a member.
@Suite struct ViewFoldsDueAndKeysTests {
    static let start = Timestamp("2026-01-05T09:00:00.000Z")!
    static func day(_ n: Int, hour: Int = 0) -> Timestamp { start.adding(milliseconds: Int64(n) * 86_400_000 + Int64(hour) * 3_600_000) }

    /// A household with stores, priced purchases at them, a unit, an
    /// assignment, members (one removed), a deleted location and a deleted list.
    struct Household {
        let market: StoreID = id(0xC1), corner: StoreID = id(0xC2)
        let milk: ItemID = id(0x1), eggs: ItemID = id(0x2), flour: ItemID = id(0x3)
        let dairy: LocationID = id(0x20), bakery: LocationID = id(0x21), closed: LocationID = id(0x22)
        let weekly: ListID = id(0x10), party: ListID = id(0x11)

        func write(_ journal: Journal) throws {
            try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
            try journal.execute(.createLocation(location: dairy, name: "Dairy"))
            try journal.execute(.createLocation(location: closed, name: "Closed aisle"))
            try journal.execute(.createLocation(location: bakery, name: "Bakery"))
            try journal.execute(.deleteLocation(location: closed))
            try journal.execute(.createStore(store: market, name: "Market"))
            try journal.execute(.createStore(store: corner, name: "Corner"))
            try journal.execute(.createItem(item: milk, name: "Milk", location: dairy, details: ItemDetails(unitPrice: 119, unit: "l")))
            try journal.execute(.createItem(item: eggs, name: "Eggs", location: dairy))
            try journal.execute(.createItem(item: flour, name: "Flour", location: bakery))
            try journal.execute(.createList(list: weekly, name: "Weekly"))
            try journal.execute(.createList(list: party, name: "Party"))
            try journal.execute(.deleteList(list: party))
            try journal.execute(.purchaseItem(purchase: id(0x100), item: milk, quantity: 2, unitPrice: 120, purchasedAt: ViewFoldsDueAndKeysTests.day(1), store: market))
            try journal.execute(.purchaseItem(purchase: id(0x101), item: milk, quantity: 1, unitPrice: 130, purchasedAt: ViewFoldsDueAndKeysTests.day(2), store: corner))
            try journal.execute(.purchaseItem(purchase: id(0x102), item: milk, quantity: 1, unitPrice: 110, purchasedAt: ViewFoldsDueAndKeysTests.day(8), store: market))
            try journal.execute(.purchaseItem(purchase: id(0x103), item: milk, quantity: 1, unitPrice: 99, purchasedAt: ViewFoldsDueAndKeysTests.day(9), store: corner))
            try journal.execute(.revertPurchase(purchase: id(0x103)))
            try journal.execute(.purchaseItem(purchase: id(0x104), item: milk, quantity: 1, unitPrice: 125, purchasedAt: ViewFoldsDueAndKeysTests.day(10)))
            for (n, day) in [0, 7, 14].enumerated() {   // eggs weekly, without a price
                try journal.execute(.purchaseItem(purchase: id(0x110 + n), item: eggs, purchasedAt: ViewFoldsDueAndKeysTests.day(day)))
            }
            try journal.execute(.addMember(member: "ben", role: .member))   // ana, who adds, becomes an owner first
            try journal.execute(.addMember(member: "cleo", role: .member))
            try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 2))
            try journal.execute(.addItemToList(list: weekly, item: flour))
            try journal.execute(.assignEntry(list: weekly, item: milk, member: "ben"))
            try journal.execute(.assignEntry(list: weekly, item: flour, member: "cleo"))
            try journal.execute(.removeMember(member: "cleo"))
        }
    }

    static func journal(_ folder: URL) throws -> (String, Household) {
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: day(20), by: 1000), ids: .sequential(prefix: 0x4A), actor: "ana"))
        defer { journal.close() }
        let household = Household()
        try household.write(journal)
        return (path, household)
    }

    @Test("PricesView on a HouseholdModel's default history is the whole view, and every other view there is the records' view")
    @MainActor func everyViewOnTheModel() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try Self.journal(folder)
        let store = try await ShopStore(path: path, options: .init(actor: "ana", device: "test"))
        let model = try await HouseholdModel(store: store)
        let views = model.views
        #expect(views.audit.records.count == views.state.purchases.count, "the model keeps what every view shows (issue 50)")
        let records = try ViewEngine.views(journal: path, useSnapshot: false).0
        #expect(views.asOf == records.asOf)

        let now = views.asOfTime!
        func storeRow(_ store: StoreID?, _ name: String, last: Int, on day: Int, lowest: Int, highest: Int, _ purchases: Int) -> PricesView.StoreRow {
            PricesView.StoreRow(store: store, name: name, lastUnitPrice: last, lastPurchased: Self.day(day), lowest: lowest, highest: highest, purchases: purchases)
        }
        let expected = PricesView(asOf: views.asOf, items: [
            PricesView.ItemRow(item: h.milk, name: "Milk", unit: "l", stores: [
                storeRow(h.corner, "Corner", last: 130, on: 2, lowest: 130, highest: 130, 1),
                storeRow(h.market, "Market", last: 110, on: 8, lowest: 110, highest: 120, 2),
                storeRow(nil, "No store", last: 125, on: 10, lowest: 125, highest: 125, 1),
            ], cheapest: h.market),
        ])
        #expect(PricesView(views) == expected)
        #expect(PricesView(records) == expected)
        #expect(PricesView(views, item: h.milk) == expected && PricesView(views, item: h.eggs) == PricesView(asOf: views.asOf, items: []))

        // Every other view built from `model.views`: what the records give.
        #expect(ListsView(views) == ListsView(records))
        #expect(DeletedListsView(views) == DeletedListsView(records))
        #expect(LocationsView(views) == LocationsView(records))
        #expect(MembersView(views) == MembersView(records))
        #expect(ItemsByNameView(views) == ItemsByNameView(records))
        #expect(ItemsByPurchaseDateView(views) == ItemsByPurchaseDateView(records))
        #expect(StatsView(views) == StatsView(records) && model.stats == StatsView(records))
        #expect(DueView(views, now: now) == DueView(records, now: now))
        for list in [h.weekly, h.party] {
            for grouping in [ShoppingListView.Grouping.byLocation, .byName] {
                #expect(ShoppingListView(views, list: list, grouping: grouping) == ShoppingListView(records, list: list, grouping: grouping))
            }
            #expect(ListDetailView(views, list: list) == ListDetailView(records, list: list))
            #expect(ShoppingListView.shareText(views, list: list) == ShoppingListView.shareText(records, list: list))
        }
        // The audit has its rows from the records, or streamed by an AuditQuery over the model's views.
        #expect(try AuditQuery(journal: path, views: views).view() == AuditView(records))
        #expect(AuditView(records).purchases.count == 8)
    }

    @Test("every view asked by name answers the same from the command line's one-fold reads as from every projection (the hub's), now and as of earlier events, refusals too",
          arguments: [43, 47] as [UInt64])
    func oneFoldReadsAnswerAsTheHubs(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 300)
        let clock = Self.day(400)
        let whole = try ViewEngine.views(journal: journal.path, useSnapshot: false).0
        let lists = whole.state.lists.keys.map(\.description).sorted(), items = whole.state.items.keys.map(\.description).sorted()
        #expect(lists.count > 1 && items.count > 1 && whole.state.items.values.contains(where: \.isDeleted) && whole.state.lists.values.contains(where: \.isDeleted))
        let reverted = whole.state.purchases.values.contains { $0.isReverted }
        #expect(reverted)
        var compared = 0
        for stop in [ReplayStop.end, .seq(whole.asOf / 2), .seq(whole.asOf + 5)] {
            let hubs = try ViewEngine.views(journal: journal.path, asOf: stop, useSnapshot: false).0
            var reads: [Int] = []
            let source = JournalFoldSource(journal: journal.path, asOf: stop, useSnapshot: false) { through, _, _ in reads.append(through) }
            let asOf: ViewAsOf = switch stop { case let .seq(seq): .seq(seq); default: .end }
            for name in ViewQuery.Name.allCases {
                var queries = [try? ViewQuery(view: name, asOf: asOf)]
                if name.needsList || name == .suggestions { queries += lists.map { try? ViewQuery(view: name, list: $0, asOf: asOf) } }
                if name == .prices || name == .item { queries = [name == .prices ? queries[0] : nil] + items.map { try? ViewQuery(view: name, item: $0, asOf: asOf) } }
                for query in queries.compactMap(\.self) {
                    let expected = Result { () throws(ViewQueryError) in try query.json(hubs, clock: clock) }.mapError { $0 as any Error }
                    let got = Result { try query.json(source, clock: clock) }
                    #expect("\(got)" == "\(expected)", "\(query)")
                    compared += 1
                }
            }
            #expect(!reads.isEmpty && reads.allSatisfy { $0 == hubs.asOf }, "each read ends where the hub's views do")
        }
        #expect(compared > 3 * (ViewQuery.Name.allCases.count + 2 * lists.count))
    }

    @Test("prices from the totals equal those from the records at every 10th event of random histories, and through a snapshot",
          arguments: [44, 45, 46] as [UInt64])
    func pricesFromTheTotals(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        var full = HouseholdViews(), totals = StatisticsViews()
        var rows = 0
        for (index, recorded) in events.enumerated() {
            full.apply(recorded)
            totals.apply(recorded)
            guard index % 10 == 0 || index == events.count - 1 else { continue }
            #expect(PricesView(totals) == PricesView(full), "after event \(index + 1)")
            rows += PricesView(full).items.count
            if let item = full.statistics.totals.items.keys.min() { #expect(PricesView(totals, item: item) == PricesView(full, item: item)) }
        }
        for saved in [{ (w: inout BinaryWriter) in full.encode(to: &w) }, { (w: inout BinaryWriter) in totals.encode(to: &w) }] {
            var w = BinaryWriter()
            saved(&w)
            var r = BinaryReader(w.bytes)
            #expect(PricesView(try StatisticsViews(snapshot: &r)) == PricesView(full))
        }
        #expect(rows > 0, "some item had prices")
    }

    @Test("days are counted to the now given: eggs bought weekly, last in January, are 45× overdue in November with nothing written since")
    func dueCountsToNow() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try Self.journal(folder)
        let views = try StatisticsViews.read(journal: path, useSnapshot: false).0
        let november = Timestamp("2026-11-03T09:00:00.000Z")!   // 288 days after the last eggs, on 19 January
        let due = DueView(views, now: november)
        #expect(due == DueView(asOf: views.asOf, now: november, items: [
            DueView.Row(item: h.eggs, name: "Eggs", lastPurchased: Self.day(14), meanIntervalDays: 7, daysSince: 288, overdue: 288.0 / 7),
        ]))
        #expect(due.json == .object([
            ("view", "due"), ("asOf", .int(views.asOf)), ("now", "2026-11-03T09:00:00.000Z"),
            ("items", .array([.object([("item", .string(h.eggs.description)), ("name", "Eggs"), ("lastPurchased", .string(Self.day(14).description)),
                                       ("meanIntervalDays", .double(7)), ("daysSince", .double(288)), ("overdue", .double(288.0 / 7))])])),
        ]))
        // Counted to the last event instead (the journal's own time, 20 days after the first purchase): not yet due.
        #expect(DueView(views, now: views.asOfTime!) == DueView(asOf: views.asOf, now: views.asOfTime!, items: []))
    }

    @Test("keys docs/VIEWS.md names are always there, null or [] where nothing")
    func keysAlwaysPresent() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0x4B), actor: "ana"))
        let bread: ItemID = id(1), butter: ItemID = id(2), weekly: ListID = id(0x10), purchase: PurchaseID = id(0x100)
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        try journal.execute(.createItem(item: bread, name: "Bread"))
        try journal.execute(.createItem(item: butter, name: "Butter"))
        try journal.execute(.createList(list: weekly, name: "Weekly"))
        try journal.execute(.addItemToList(list: weekly, item: bread))
        try journal.execute(.addItemToList(list: weekly, item: butter))
        try journal.execute(.purchaseItem(purchase: purchase, item: bread, list: weekly, purchasedAt: TestClock.start))
        journal.close()
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let entry = JSONValue.object([("item", .string(butter.description)), ("name", "Butter"), ("quantity", 1), ("available", true),
                                      ("unitPrice", .null), ("unit", .null), ("assignee", .null)])
        #expect(ShoppingListView(views, list: weekly, grouping: .byName)!.json == .object([
            ("view", "shopping-list-by-name"), ("asOf", 7), ("list", .object([("id", .string(weekly.description)), ("name", "Weekly")])),
            ("sections", .array([.object([("title", "Weekly"), ("location", .null), ("entries", .array([entry]))])])),
            ("remaining", 1), ("bought", 1), ("estimatedTotal", 0), ("unpriced", 1),
        ]))
        let detail = { (item: ItemID, name: String, bought: Bool) in
            JSONValue.object([("item", .string(item.description)), ("name", .string(name)), ("quantity", 1), ("bought", .bool(bought)),
                              ("unit", .null), ("assignee", .null)] + (bought ? [("purchase", .string(purchase.description))] : []))
        }
        // v4 (issue 52): a bought entry names the purchase that bought it, for an app's Undo.
        #expect(ListDetailView(views, list: weekly)!.json == .object([
            ("view", "list-detail"), ("asOf", 7), ("list", .object([("id", .string(weekly.description)), ("name", "Weekly")])),
            ("entries", .array([detail(butter, "Butter", false), detail(bread, "Bread", true)])), ("bought", 1), ("total", 2),
        ]))
        let record = try #require(views.audit.records.first)
        #expect(AuditView.json(record) == .object([
            ("seq", 7), ("event", .string(record.event.description)), ("purchase", .string(purchase.description)),
            ("purchasedAt", .string(TestClock.start.description)), ("actor", "ana"), ("item", .string(bread.description)), ("itemName", "Bread"),
            ("quantity", 1), ("unitPrice", .null), ("list", .string(weekly.description)), ("listName", "Weekly"),
            ("location", .string(LocationID.unknown.description)), ("locationName", "Unknown Location"), ("reverted", false),
            ("store", .null), ("storeName", .null),
        ]))
        let stats = StatsView(views)
        #expect(stats.stores == nil, "a household that never had a store: no \"Per store\" table in the text")
        guard case let .object(pairs) = stats.json else { Issue.record("stats JSON is an object"); return }
        #expect(pairs.map(\.0) == ["view", "asOf", "items", "months", "actors", "locations", "stores", "trips"])
        #expect(stats.json["stores"] == .array([]))
        // Streamed JSON is the same text.
        var streamed: [UInt8] = []
        StatsView.writeJSON(of: views) { streamed += $0 }
        #expect(streamed == stats.json.utf8(pretty: true, terminator: 0x0A))
    }

    @Test("an entry assigned to a member since removed is nobody's: shown without an assignee, and to every member's --for")
    func removedMembersEntriesAreNobodys() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (path, h) = try Self.journal(folder)
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let milk = ShoppingListView.Entry(item: h.milk, name: "Milk", quantity: 2, available: true, unitPrice: 119, assignee: "ben", unit: "l")
        let flour = ShoppingListView.Entry(item: h.flour, name: "Flour", quantity: 1, available: true, unitPrice: nil, assignee: nil, unit: nil)
        let sections = [ShoppingListView.Section(title: "Dairy", location: h.dairy, entries: [milk]),
                        ShoppingListView.Section(title: "Bakery", location: h.bakery, entries: [flour])]
        #expect(ShoppingListView(views, list: h.weekly, grouping: .byLocation) == ShoppingListView(
            grouping: .byLocation, asOf: views.asOf, list: ListRef(id: h.weekly, name: "Weekly"), sections: sections,
            remaining: 2, bought: 0, estimatedTotal: 238, unpriced: 1))
        #expect(ShoppingListView(views, list: h.weekly, grouping: .byLocation, for: "ana") == ShoppingListView(
            grouping: .byLocation, asOf: views.asOf, list: ListRef(id: h.weekly, name: "Weekly"),
            sections: [ShoppingListView.Section(title: "Bakery", location: h.bakery, entries: [flour])],
            remaining: 1, bought: 0, estimatedTotal: 0, unpriced: 1, member: "ana"))
        #expect(ListDetailView(views, list: h.weekly)?.entries == [
            ListDetailView.Entry(item: h.milk, name: "Milk", quantity: 2, bought: false, assignee: "ben", unit: "l"),
            ListDetailView.Entry(item: h.flour, name: "Flour", quantity: 1, bought: false, assignee: nil, unit: nil),
        ])
    }
}
