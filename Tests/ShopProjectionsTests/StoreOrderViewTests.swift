import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// A store's own order in the views (SPEC section 11): the shopping list by
/// location with a store and with a trip running at one, the stores view,
/// a store's history and the audit filtered by store. Hand-checked values.
@Suite struct StoreOrderViewTests {
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    let milk: ItemID = id(1), bread: ItemID = id(2), apples: ItemID = id(3), peas: ItemID = id(4), tea: ItemID = id(5)
    let dairy: LocationID = id(0x21), bakery: LocationID = id(0x22), produce: LocationID = id(0x23), frozen: LocationID = id(0x24)
    let corner: StoreID = id(0x51), market: StoreID = id(0x52), gone: StoreID = id(0x53), weekly: ListID = id(0x10)

    /// Four locations (household's order dairy, bakery, produce, frozen), an item at each and tea at Unknown, all on
    /// Weekly; the corner shop walks produce then dairy; the market has no order; a third store, deleted.
    func household(_ more: (Journal) throws -> Void = { _ in }) throws -> (path: String, folder: URL) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Self.start, by: 1000), ids: .sequential(prefix: 0xE0), actor: "ana"))
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        for (location, name) in [(dairy, "Dairy"), (bakery, "Bakery"), (produce, "Produce"), (frozen, "Frozen")] {
            try journal.execute(.createLocation(location: location, name: name))
        }
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: nil))
        for (item, name, location) in [(milk, "Milk", dairy), (bread, "Bread", bakery), (apples, "Apples", produce), (peas, "Peas", frozen), (tea, "Tea", LocationID.unknown)] {
            try journal.execute(.createItem(item: item, name: name, location: location, details: ItemDetails(unitPrice: 100)))
            try journal.execute(.addItemToList(list: weekly, item: item))
        }
        try journal.execute(.createStore(store: corner, name: "Corner shop"))
        try journal.execute(.createStore(store: market, name: "Market"))
        try journal.execute(.createStore(store: gone, name: "Gone"))
        try journal.execute(.reorderStoreLocations(store: corner, order: [produce, dairy]))
        try journal.execute(.reorderStoreLocations(store: gone, order: [frozen]))
        try journal.execute(.deleteStore(store: gone))
        try more(journal)
        journal.close()
        return (path, folder)
    }

    func sectionLocations(_ view: ShoppingListView?) -> [LocationID?] { view?.sections.map(\.location) ?? [] }

    func keys(_ json: JSONValue?) -> [String] {
        guard case let .object(pairs)? = json else { return [] }
        return pairs.map(\.0)
    }

    @Test func byLocationWithAStoreAndWithATripRunningAtOne() throws {
        let (path, folder) = try household { journal in
            try journal.execute(.startTrip(trip: id(0x70), list: weekly, store: corner))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let household = [dairy, bakery, produce, frozen, LocationID.unknown]
        // Ana's trip at the corner shop: its order by default, for her.
        let during = try #require(ShoppingListView(views, list: weekly, grouping: .byLocation, shopper: "ana"))
        // Not for someone else, nor for no one: another shopper's trip is never followed.
        #expect(ShoppingListView(views, list: weekly, grouping: .byLocation, shopper: "ben")?.store == nil)
        #expect(ShoppingListView(views, list: weekly, grouping: .byLocation)?.store == nil)
        #expect(during.store == StoreRef(id: corner, name: "Corner shop"))
        #expect(sectionLocations(during) == [produce, dairy, bakery, frozen, .unknown])
        #expect(during.sections.map(\.title) == ["Produce", "Dairy", "Bakery", "Frozen", "Unknown Location"])
        // A store given wins over the trip's; a store with no order of its own walks the household's.
        let atMarket = try #require(ShoppingListView(views, list: weekly, grouping: .byLocation, store: market))
        #expect(atMarket.store == StoreRef(id: market, name: "Market"))
        #expect(sectionLocations(atMarket) == household)
        // The JSON names the store used; by name it has no store key.
        #expect(keys(during.json) == ["view", "asOf", "list", "store", "sections", "remaining", "bought", "estimatedTotal", "unpriced"])
        #expect(during.json["store"] == .object([("id", .string(corner.description)), ("name", "Corner shop")]))
        #expect(keys(ShoppingListView(views, list: weekly, grouping: .byName)?.json)
                == ["view", "asOf", "list", "sections", "remaining", "bought", "estimatedTotal", "unpriced"])
    }

    @Test func withoutAStoreOrARunningTripTheHouseholdsOrderAndStoreNull() throws {
        let (path, folder) = try household { journal in
            try journal.execute(.startTrip(trip: id(0x70), list: weekly, store: corner))
            try journal.execute(.pauseTrip(trip: id(0x70)))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let paused = try #require(ShoppingListView(views, list: weekly, grouping: .byLocation))
        #expect(paused.store == nil, "a paused trip is not running")
        #expect(sectionLocations(paused) == [dairy, bakery, produce, frozen, .unknown])
        #expect(paused.json["store"] == .null)
        // As of the seq before the corner shop's order, its order is the household's.
        let earlier = try ViewEngine.views(journal: path, asOf: .seq(views.asOf - 5), useSnapshot: false).0
        #expect(sectionLocations(ShoppingListView(earlier, list: weekly, grouping: .byLocation, store: corner)) == [dairy, bakery, produce, frozen, .unknown])
    }

    @Test func theStoresView() throws {
        let (path, folder) = try household { journal in
            try journal.execute(.purchaseItem(purchase: id(0x100), item: self.milk, quantity: 2, purchasedAt: Self.start.adding(milliseconds: 3_600_000), store: self.corner))
            try journal.execute(.purchaseItem(purchase: id(0x101), item: self.bread, unitPrice: 250, store: self.corner))
            try journal.execute(.revertPurchase(purchase: id(0x101)))
            try journal.execute(.purchaseItem(purchase: id(0x102), item: self.tea, unitPrice: 300, store: self.market))
            try journal.execute(.purchaseItem(purchase: id(0x103), item: self.tea))
            try journal.execute(.renameStore(store: self.market, name: "a market"))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let teaAt = try #require(views.audit.records.first { $0.purchase == id(0x102) }?.purchasedAt)
        let stores = StoresView(views)
        #expect(stores == StoresView(asOf: views.asOf, stores: [
            .init(id: market, name: "a market", order: [dairy, bakery, produce, frozen, .unknown], ownOrder: [], purchases: 1, spend: 300, lastPurchased: teaAt),
            .init(id: corner, name: "Corner shop", order: [produce, dairy, bakery, frozen, .unknown], ownOrder: [produce, dairy],
                  purchases: 1, spend: 200, lastPurchased: Self.start.adding(milliseconds: 3_600_000)),
        ]))
        // The report's "Stores and prices" names each store's own aisle order (the market has none).
        let html = HouseholdReport(views: views, head: JournalHead(seq: views.asOf, hash: .zero), journal: "shop.ndjson").html
        #expect(html.contains("<summary>Aisle order of 1 store</summary>"))
        #expect(html.contains("<tr><td>Corner shop</td><td>Produce → Dairy → Bakery → Frozen → Unknown Location</td></tr>"))
        // Purchases and spend are the statistics' per store.
        let stats = StatsView(views).stores ?? []
        #expect(stores.stores.map { [$0.purchases, $0.spend] } == [market, corner].map { store in
            stats.first { $0.store == store }.map { [$0.tally.purchases, $0.tally.spend] } ?? []
        })
        #expect(stores.json == .object([("view", "stores"), ("asOf", .int(views.asOf)), ("stores", .array([
            .object([("id", .string(market.description)), ("name", "a market"),
                     ("order", .array([dairy, bakery, produce, frozen, .unknown].map { .string($0.description) })), ("ownOrder", .array([])),
                     ("purchases", 1), ("spend", 300), ("lastPurchased", .string(teaAt.description))]),
            .object([("id", .string(corner.description)), ("name", "Corner shop"),
                     ("order", .array([produce, dairy, bakery, frozen, .unknown].map { .string($0.description) })),
                     ("ownOrder", .array([produce, dairy].map { .string($0.description) })),
                     ("purchases", 1), ("spend", 200), ("lastPurchased", .string(Self.start.adding(milliseconds: 3_600_000).description))]),
        ]))]))
    }

    @Test func aStoresHistoryAndTheAuditByStore() throws {
        let (path, folder) = try household { journal in
            try journal.execute(.startTrip(trip: id(0x70), list: nil, store: self.market))
            try journal.execute(.purchaseItem(purchase: id(0x100), item: self.milk))
            try journal.execute(.endTrip(trip: id(0x70)))
            try journal.execute(.purchaseItem(purchase: id(0x101), item: self.bread, store: self.corner))
            try journal.execute(.revertPurchase(purchase: id(0x100)))
            try journal.execute(.purchaseItem(purchase: id(0x102), item: self.tea))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        var types: [String] = []
        try EventHistory.forEach(journal: path, touching: .store(market)) { recorded, _ in types.append(recorded.event.typeName) }
        #expect(types == ["StoreCreated", "TripStarted", "ItemPurchased", "TripEnded", "PurchaseReverted"])
        types = []
        try EventHistory.forEach(journal: path, touching: .store(corner)) { recorded, _ in types.append(recorded.event.typeName) }
        #expect(types == ["StoreCreated", "StoreLocationsReordered", "ItemPurchased"])
        types = []
        try EventHistory.forEach(journal: path, touching: .location(frozen)) { recorded, _ in types.append(recorded.event.typeName) }
        #expect(types == ["LocationCreated", "ItemCreated", "StoreLocationsReordered"])
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        #expect(AuditView(views, filter: .init(store: market)).purchases.map(\.purchase) == [id(0x100)])
        #expect(AuditView(views, filter: .init(store: corner)).purchases.map(\.purchase) == [id(0x101)])
        #expect(try AuditQuery(journal: path, views: views, filter: .init(store: market)).view().purchases.map(\.purchase) == [id(0x100)])
    }
}
