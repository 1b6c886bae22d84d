import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Trial fix 7: the stores view from the statistics projection alone
/// (`StatisticsViews`, what a plain snapshot keeps) is the one from every
/// projection, a revert of a store's last purchase included.
@Suite struct StoreTrialFixViewTests {
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    let milk: ItemID = id(1), corner: StoreID = id(0x51), market: StoreID = id(0x52)

    func recorded(_ events: [Event]) -> [RecordedEvent] {
        events.enumerated().map { index, event in
            RecordedEvent(seq: index + 1, id: EventID(), at: Self.start.adding(milliseconds: Int64(index) * 60_000), actor: "ana",
                          command: CommandID(), event: event, prev: .zero)
        }
    }

    func bought(_ n: Int, at store: StoreID?, hours: Int64? = nil) -> Event {
        .itemPurchased(purchase: id(n), item: milk, list: nil, quantity: 1, unitPrice: 100, location: .unknown,
                       purchasedAt: hours.map { Self.start.adding(milliseconds: $0 * 3_600_000) }, store: store)
    }

    @Test func aRevertedLastPurchaseMakesTheOneBeforeItTheLastAtTotalsAsAtRecords() throws {
        let events = recorded([
            .householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"),
            .itemCreated(item: milk, name: "Milk", location: .unknown, details: .none),
            .storeCreated(store: corner, name: "Corner shop"), .storeCreated(store: market, name: "Market"),
            bought(0x100, at: corner, hours: 5), bought(0x101, at: corner, hours: 9), bought(0x102, at: corner, hours: 7),
            bought(0x103, at: market), bought(0x104, at: nil), .purchaseReverted(purchase: id(0x101)),
            .purchaseReverted(purchase: id(0x103)),
        ])
        var full = HouseholdViews(), totals = StatisticsViews()
        for event in events { full.apply(event); totals.apply(event) }
        let expected = StoresView(asOf: 11, stores: [
            .init(id: corner, name: "Corner shop", order: [.unknown], ownOrder: [], purchases: 2, spend: 200,
                  lastPurchased: Self.start.adding(milliseconds: 7 * 3_600_000)),
            .init(id: market, name: "Market", order: [.unknown], ownOrder: [], purchases: 0, spend: 0, lastPurchased: nil),
        ])
        #expect(StoresView(full) == expected)
        #expect(StoresView(totals) == expected)
        for saved in [{ (w: inout BinaryWriter) in full.encode(to: &w) }, { (w: inout BinaryWriter) in totals.encode(to: &w) }] {
            var w = BinaryWriter()
            saved(&w)
            var r = BinaryReader(w.bytes)
            #expect(StoresView(try StatisticsViews(snapshot: &r)) == expected && r.isAtEnd)
        }
    }

    /// SPEC 11: while a trip at a store runs, its store orders the list by location; a store
    /// deleted during the trip has no order left, so the household's order, `store` null.
    @Test func aTripsStoreDeletedDuringTheTripNoLongerOrdersTheList() throws {
        let produce: LocationID = id(0x21), dairy: LocationID = id(0x22), apples: ItemID = id(2)
        let weekly: ListID = id(0x31)
        var views = HouseholdViews()
        func shown() throws -> (StoreRef?, [LocationID?]) {
            let view = try #require(ShoppingListView(views, list: weekly, grouping: .byLocation, shopper: "ana"))
            return (view.store, view.sections.map(\.location))
        }
        for event in recorded([
            .householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"),
            .locationCreated(location: produce, name: "Produce", position: 1, color: .grey),
            .locationCreated(location: dairy, name: "Dairy", position: 2, color: .grey),
            .itemCreated(item: milk, name: "Milk", location: dairy, details: .none),
            .itemCreated(item: apples, name: "Apples", location: produce, details: .none),
            .listCreated(list: weekly, name: "Weekly", priority: .normal),
            .itemAddedToList(list: weekly, item: milk, quantity: 1), .itemAddedToList(list: weekly, item: apples, quantity: 1),
            .storeCreated(store: corner, name: "Corner shop"), .storeLocationsReordered(store: corner, order: [dairy]),
            .tripStarted(trip: id(0x41), list: weekly, store: corner),
        ]) { views.apply(event) }
        #expect(try shown() == (StoreRef(id: corner, name: "Corner shop"), [dairy, produce]))
        var deleted = recorded([.storeDeleted(store: corner)])[0]
        deleted.seq = views.asOf + 1
        views.apply(deleted)
        #expect(try shown() == (nil, [produce, dairy]))
    }

    @Test("random histories: the stores view from the statistics projection alone is the one from every projection after every few events", arguments: [61, 62, 63] as [UInt64])
    func totalsEqualRecords(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        #expect(events.contains { if case .itemPurchased(_, _, _, _, _, _, _, .some) = $0.event { true } else { false } }, "purchases at stores")
        var full = HouseholdViews(), totals = StatisticsViews()
        var lastSeen = 0
        for (index, recorded) in events.enumerated() {
            full.apply(recorded)
            totals.apply(recorded)
            if index % 5 == 0 || index == events.count - 1 {
                let view = StoresView(full)
                #expect(StoresView(totals) == view, "after seq \(recorded.seq)")
                lastSeen += view.stores.filter { $0.lastPurchased != nil }.count
            }
        }
        #expect(lastSeen > 0, "some store has a last purchase")
    }
}
