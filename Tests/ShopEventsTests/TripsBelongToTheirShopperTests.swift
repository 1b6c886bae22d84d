import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// A trip is the trip of the actor that started it: Ben shops at Rewe while Ana,
/// at home, buys Eggs — her purchase is at no store, never at Ben's.
@Suite struct TripsBelongToTheirShopperTests {
    let rewe: StoreID = id(0x51), market: StoreID = id(0x52), weekly: ListID = id(10)
    let eggs: ItemID = id(1), milk: ItemID = id(2), bread: ItemID = id(3)
    let bensTrip: TripID = id(0x70), anasTrip: TripID = id(0x71)

    /// Weekly with Eggs, Milk and Bread on it; Ben's trip at Rewe running.
    func bensTripAtRewe() throws -> Fixture {
        var f = try Fixture.started()
        for (item, name) in [(eggs, "Eggs"), (milk, "Milk"), (bread, "Bread")] {
            try f.run(.createItem(item: item, name: name, location: nil, details: ItemDetails(unitPrice: 300)))
        }
        try f.run(.createList(list: weekly, name: "Weekly", priority: nil))
        for item in [eggs, milk, bread] { try f.run(.addItemToList(list: weekly, item: item, quantity: 1)) }
        try f.run(.createStore(store: rewe, name: "Rewe"))
        try f.run(.createStore(store: market, name: "Market"))
        try f.run(.startTrip(trip: bensTrip, list: weekly, store: rewe), actor: "ben")
        return f
    }

    func bought(_ purchase: PurchaseID, _ item: ItemID, store: StoreID?) -> Event {
        .itemPurchased(purchase: purchase, item: item, list: weekly, quantity: 1, unitPrice: 300, location: .unknown, purchasedAt: nil, store: store)
    }

    @Test("a purchase without a store is at its own actor's running trip's store, and at none while only someone else shops")
    func aPurchaseIsAtItsOwnShoppersStore() throws {
        var f = try bensTripAtRewe()
        #expect(try f.run(.purchaseItem(purchase: id(0x80), item: eggs, list: weekly), actor: "ana") == [bought(id(0x80), eggs, store: nil)])
        #expect(try f.run(.purchaseItem(purchase: id(0x81), item: milk, list: weekly), actor: "ben") == [bought(id(0x81), milk, store: rewe)])
        #expect(f.state.liveRunningTripStore(for: "ben") == rewe)
        #expect(f.state.liveRunningTripStore(for: "ana") == nil)
        // A store given is the store, whoever's trip runs.
        #expect(try f.run(.purchaseItem(purchase: id(0x82), item: bread, list: weekly, store: market), actor: "ben")
                == [bought(id(0x82), bread, store: market)])
    }

    @Test("each shopper has one trip under way; several shoppers may each have one at once, each purchase at its own shopper's store")
    func severalShoppersAtOnce() throws {
        var f = try bensTripAtRewe()
        #expect(f.rejection(.startTrip(trip: id(0x72), list: nil, store: market), actor: "ben") == .tripInProgress)
        #expect(try f.run(.startTrip(trip: anasTrip, list: weekly, store: market), actor: "ana") == [.tripStarted(trip: anasTrip, list: weekly, store: market)])
        #expect(f.state.openTrips == ["ben": bensTrip, "ana": anasTrip])
        #expect(f.state.openTripsInOrder.map(\.id) == [bensTrip, anasTrip])
        #expect(f.state.openTripsInOrder.map(\.shopper) == ["ben", "ana"])
        #expect(f.rejection(.startTrip(trip: id(0x72), list: nil, store: nil), actor: "ana") == .tripInProgress)
        #expect(try f.run(.purchaseItem(purchase: id(0x80), item: eggs, list: weekly), actor: "ana") == [bought(id(0x80), eggs, store: market)])
        #expect(try f.run(.purchaseItem(purchase: id(0x81), item: milk, list: weekly), actor: "ben") == [bought(id(0x81), milk, store: rewe)])
        // Cleo has no trip: her purchase is at no store, though two trips run.
        #expect(try f.run(.purchaseItem(purchase: id(0x82), item: bread, list: weekly), actor: "cleo") == [bought(id(0x82), bread, store: nil)])
    }

    @Test("any member may pause, resume or end a trip by its id; once ended, its shopper may start another")
    func anyoneMayEndATripLeftRunning() throws {
        var f = try bensTripAtRewe()
        #expect(try f.run(.pauseTrip(trip: bensTrip), actor: "ana") == [.tripPaused(trip: bensTrip)])
        // Paused: Ben's purchases take no store from it, and it is still his trip under way.
        #expect(f.state.runningTripStore(for: "ben") == nil)
        #expect(f.rejection(.startTrip(trip: id(0x72), list: nil, store: nil), actor: "ben") == .tripInProgress)
        #expect(try f.run(.resumeTrip(trip: bensTrip), actor: "cleo") == [.tripResumed(trip: bensTrip)])
        #expect(try f.run(.endTrip(trip: bensTrip), actor: "ana") == [.tripEnded(trip: bensTrip)])
        #expect(f.state.openTrips == [:])
        #expect(f.rejection(.endTrip(trip: bensTrip), actor: "ben") == .tripEnded)
        #expect(try f.run(.startTrip(trip: id(0x72), list: nil, store: market), actor: "ben") == [.tripStarted(trip: id(0x72), list: nil, store: market)])
        #expect(f.state.openTrip(of: "ben")?.store == market)
    }

    @Test("a purchase an earlier build recorded at the one running trip's store, whoever bought, still verifies and keeps its store")
    func anEarlierBuildsPurchaseAtAnotherShoppersStoreStillVerifies() throws {
        var f = try bensTripAtRewe()
        // What builds before trips belonged to their shopper wrote for Ana's purchase during Ben's trip.
        let recorded = bought(id(0x80), eggs, store: rewe)
        try ShopDecider.check(recorded, f.state, actor: "ana")
        f.state.apply(RecordedEvent(seq: f.seq + 1, id: EventID(), at: f.clock, actor: "ana", command: CommandID(), event: recorded, prev: .zero))
        #expect(f.state.purchases[id(0x80)]?.item == eggs)
        // ... and the one they wrote with the trip's store though it was deleted during the trip.
        try f.run(.deleteStore(store: rewe))
        try ShopDecider.check(bought(id(0x81), milk, store: rewe), f.state, actor: "ana")
        // A store that is no running trip's, deleted, is refused as before.
        try f.run(.deleteStore(store: market))
        #expect(throws: RuleViolation.self) { try ShopDecider.check(bought(id(0x82), bread, store: market), f.state, actor: "ana") }
    }

    @Test("the open trips are kept by shopper through the binary state, and a paused trip stays its shopper's")
    func theShopperSurvivesASavedState() throws {
        var f = try bensTripAtRewe()
        try f.run(.startTrip(trip: anasTrip, list: nil, store: nil), actor: "ana")
        try f.run(.pauseTrip(trip: anasTrip), actor: "ben")
        var writer = BinaryWriter()
        f.state.encode(to: &writer)
        var reader = BinaryReader(writer.bytes)
        let read = try ShopState(from: &reader)
        #expect(read == f.state)
        #expect(read.openTrips == ["ben": bensTrip, "ana": anasTrip])
        #expect(read.trips[anasTrip]?.shopper == "ana")
    }
}
