import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Stores, units and decimal quantities in the views (docs/VIEWS.md): the
/// prices view, spend per store, the audit's store columns, units on lists,
/// and costs rounded half to even per product. Hand-checked values.
@Suite struct StoreViewTests {
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    static func day(_ n: Double) -> Timestamp { Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(n * 86_400_000)) }

    let flour: ItemID = id(1), milk: ItemID = id(2), soap: ItemID = id(3)
    let corner: StoreID = id(0x51), market: StoreID = id(0x52), weekly: ListID = id(0x10)

    /// A household with two stores, purchases at each and at none, one reverted, one of a deleted item.
    func household() throws -> (path: String, folder: URL) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Self.start, by: 1000), ids: .sequential(prefix: 0xE0), actor: "ana"))
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        try journal.execute(.createItem(item: flour, name: "Flour", details: ItemDetails(unitPrice: 199, unit: "kg")))
        try journal.execute(.createItem(item: milk, name: "milk", details: ItemDetails(unitPrice: 119)))
        try journal.execute(.createItem(item: soap, name: "Soap"))
        try journal.execute(.createStore(store: corner, name: "Corner shop"))
        try journal.execute(.createStore(store: market, name: "Market"))
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: nil))
        try journal.execute(.addItemToList(list: weekly, item: flour, quantity: Quantity(thousandths: 1_500)))
        // Flour: 400 days ago at the market for 150 (outside the year), then 1.5 kg at 199 and 2.5 kg at 189 there; 0.5 kg at the corner for 201.
        try journal.execute(.purchaseItem(purchase: id(0x100), item: flour, quantity: 1, unitPrice: 150, purchasedAt: Self.day(-400), store: market))
        try journal.execute(.purchaseItem(purchase: id(0x101), item: flour, quantity: Quantity(thousandths: 1_500), purchasedAt: Self.day(-30), store: market))
        try journal.execute(.purchaseItem(purchase: id(0x102), item: flour, quantity: Quantity(thousandths: 2_500), unitPrice: 189,
                                          purchasedAt: Self.day(-10), store: market))
        try journal.execute(.purchaseItem(purchase: id(0x103), item: flour, quantity: Quantity(thousandths: 500), unitPrice: 201,
                                          purchasedAt: Self.day(-5), store: corner))
        // Milk: at the corner during a trip there (the store from the trip), a reverted one, and one at no store.
        try journal.execute(.startTrip(trip: id(0x70), list: nil, store: corner))
        try journal.execute(.purchaseItem(purchase: id(0x110), item: milk, quantity: 2))
        try journal.execute(.purchaseItem(purchase: id(0x111), item: milk, unitPrice: 99))
        try journal.execute(.revertPurchase(purchase: id(0x111)))
        try journal.execute(.endTrip(trip: id(0x70)))
        try journal.execute(.purchaseItem(purchase: id(0x112), item: milk, unitPrice: 125))
        // Soap: no price, so no prices row.
        try journal.execute(.purchaseItem(purchase: id(0x120), item: soap, store: market))
        try journal.execute(.renameStore(store: market, name: "Big market"))
        journal.close()
        return (path, folder)
    }

    @Test func pricesPerItemAndStore() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let milkCorner = try #require(views.audit.records.first { $0.purchase == id(0x110) })
        let milkNone = try #require(views.audit.records.first { $0.purchase == id(0x112) })
        let prices = PricesView(views)
        #expect(prices == PricesView(asOf: views.asOf, items: [
            .init(item: flour, name: "Flour", unit: "kg", stores: [
                .init(store: market, name: "Big market", lastUnitPrice: 189, lastPurchased: Self.day(-10), lowest: 189, highest: 199, purchases: 3),
                .init(store: corner, name: "Corner shop", lastUnitPrice: 201, lastPurchased: Self.day(-5), lowest: 201, highest: 201, purchases: 1),
            ], cheapest: market),
            .init(item: milk, name: "milk", unit: nil, stores: [
                .init(store: corner, name: "Corner shop", lastUnitPrice: 119, lastPurchased: milkCorner.purchasedAt, lowest: 119, highest: 119, purchases: 1),
                .init(store: nil, name: "No store", lastUnitPrice: 125, lastPurchased: milkNone.purchasedAt, lowest: 125, highest: 125, purchases: 1),
            ], cheapest: corner),
        ]))
        #expect(PricesView(views, item: milk).items.map(\.item) == [milk])
        let json = prices.json
        #expect(json["items"]?.arrayValue?.first?["stores"]?.arrayValue?.first == .object([
            ("store", .string(market.description)), ("name", "Big market"), ("lastUnitPrice", 189),
            ("lastPurchased", .string(Self.day(-10).description)), ("lowest", 189), ("highest", 199), ("purchases", 3),
        ]))
        #expect(json["items"]?.arrayValue?.last?["cheapest"] == .string(corner.description))
    }

    /// Spend is Σ quantity × unit price, each product rounded half to even: 1.5 × 199 = 298.5 → 298; 2.5 × 189 = 472.5 → 472; 0.5 × 201 = 100.5 → 100.
    @Test func spendPerStoreAndAuditColumns() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let stats = StatsView(views)
        #expect(stats.stores == [
            .init(store: market, name: "Big market", tally: Tally(purchases: 4, quantity: Quantity(thousandths: 6_000), spend: 150 + 298 + 472)),
            .init(store: corner, name: "Corner shop", tally: Tally(purchases: 2, quantity: Quantity(thousandths: 2_500), spend: 100 + 238)),
            .init(store: nil, name: "No store", tally: Tally(purchases: 1, quantity: 1, spend: 125)),
        ])
        #expect(stats.items.first { $0.item == flour }?.tally == Tally(purchases: 4, quantity: Quantity(thousandths: 5_500), spend: 150 + 298 + 472 + 100))
        #expect(stats.json["stores"]?.arrayValue?.last == .object([("store", .null), ("name", "No store"), ("purchases", 1), ("spend", 125)]))
        // The statistics written a few rows at a time are the same text.
        var pieces: [UInt8] = []
        StatsView.writeJSON(of: views) { pieces += $0 }
        #expect(pieces == stats.json.utf8(pretty: true, terminator: 0x0A))
        // The audit: the store and its name then; a purchase at no store says so with nulls.
        let audit = AuditView(views)
        let rows = Dictionary(uniqueKeysWithValues: audit.purchases.map { ($0.purchase, $0) })
        #expect(rows[id(0x100)]?.store == market && rows[id(0x100)]?.storeName == "Market")
        #expect(rows[id(0x110)]?.store == corner && rows[id(0x110)]?.storeName == "Corner shop")
        #expect(AuditView.json(rows[id(0x112)]!)["store"] == .null && AuditView.json(rows[id(0x112)]!)["storeName"] == .null)
        #expect(AuditView.json(rows[id(0x101)]!)["storeName"] == "Market")
        #expect(AuditView.json(rows[id(0x101)]!)["quantity"] == .double(1.5))
        // Units on the list: 1.5 kg of flour, at 199 a kg: 298.5 → 298 estimated.
        let list = try #require(ShoppingListView(views, list: weekly, grouping: .byName))
        #expect(list.estimatedTotal == 298)   // off-list purchases leave the entry to buy
        #expect(list.sections.flatMap(\.entries) == [.init(item: flour, name: "Flour", quantity: Quantity(thousandths: 1_500), available: true,
                                                            unitPrice: 199, unit: "kg")])
        #expect(list.json["sections"]?.arrayValue?.first?["entries"]?.arrayValue?.first?["unit"] == "kg")
        #expect(list.json["sections"]?.arrayValue?.first?["entries"]?.arrayValue?.first?["quantity"] == .double(1.5))
    }

    /// Incremental and rebuilt, now and as of every point: the same prices and statistics.
    @Test func incrementalEqualsRebuiltAtEveryPoint() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let events = try JournalReader.readAll(path: path)
        var live = HouseholdViews()
        var liveStats = LiveStats(live)
        for recorded in events {
            live.apply(recorded)
            liveStats.update(after: recorded, in: live)
            let rebuilt = try ViewEngine.views(journal: path, asOf: .seq(recorded.seq), useSnapshot: false).0
            #expect(PricesView(live) == PricesView(rebuilt), "seq \(recorded.seq)")
            #expect(StatsView(live) == StatsView(rebuilt), "seq \(recorded.seq)")
            #expect(liveStats.view == StatsView(rebuilt), "seq \(recorded.seq)")
        }
    }
}
