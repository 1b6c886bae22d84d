import Foundation
import Testing
@testable import ShopEvents

/// Trial fix 2 (SPEC sections 10 and 11): a store deleted while a trip runs
/// there takes no more purchases, named or taken from the trip.
@Suite struct StoreTrialFixRuleTests {
    let discount: StoreID = id(0x51), party: ListID = id(10), bread: ItemID = id(1)

    /// Party with Bread on it, and a trip at Discount running.
    func tripAtDiscount() throws -> Fixture {
        var f = try Fixture.started()
        try f.run(.createItem(item: bread, name: "Bread", location: nil, details: ItemDetails(unitPrice: 249)))
        try f.run(.createList(list: party, name: "Party", priority: nil))
        try f.run(.addItemToList(list: party, item: bread, quantity: 2))
        try f.run(.createStore(store: discount, name: "Discount"))
        try f.run(.startTrip(trip: id(0x70), list: party, store: discount))
        return f
    }

    func bought(store: StoreID?) -> Event {
        .itemPurchased(purchase: id(0x80), item: bread, list: party, quantity: 2, unitPrice: 249, location: .unknown, purchasedAt: nil, store: store)
    }

    @Test func aPurchaseDuringTheTripAfterItsStoreWasDeletedIsAtNoStore() throws {
        var f = try tripAtDiscount()
        #expect(f.state.liveRunningTripStore(for: "ana") == discount)
        try f.run(.deleteStore(store: discount))
        #expect(f.state.runningTripStore(for: "ana") == discount)
        #expect(f.state.liveRunningTripStore(for: "ana") == nil)
        #expect(f.rejection(.purchaseItem(purchase: id(0x80), item: bread, list: party, store: discount)) == .storeDeleted)
        #expect(try f.run(.purchaseItem(purchase: id(0x80), item: bread, list: party)) == [bought(store: nil)])
    }

    @Test func whileTheStoreIsLiveThePurchaseIsStillAtIt() throws {
        var f = try tripAtDiscount()
        #expect(try f.run(.purchaseItem(purchase: id(0x80), item: bread, list: party)) == [bought(store: discount)])
    }

    /// `verify`: the purchase at no store checks; one that builds before this fix wrote at the deleted store still
    /// checks (their journals verify); naming the deleted store outside that case is still caught.
    @Test func bothTheNewAndTheRecordedPurchaseCheck() throws {
        var f = try tripAtDiscount()
        try f.run(.deleteStore(store: discount))
        #expect(throws: Never.self) { try ShopDecider.check(bought(store: nil), f.state, actor: "ana") }
        #expect(throws: Never.self) { try ShopDecider.check(bought(store: discount), f.state, actor: "ana") }
        try f.run(.endTrip(trip: id(0x70)))
        #expect(throws: RuleViolation.self) { try ShopDecider.check(bought(store: discount), f.state, actor: "ana") }
        let other: StoreID = id(0x52)
        try f.run(.createStore(store: other, name: "Market"))
        try f.run(.startTrip(trip: id(0x71), list: party, store: other))
        try f.run(.deleteStore(store: other))
        // The trip's (deleted) store, but another deleted store named: refused.
        #expect(throws: RuleViolation.self) { try ShopDecider.check(bought(store: discount), f.state, actor: "ana") }
    }
}
