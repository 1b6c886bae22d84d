import Foundation
import Testing
@testable import ShopEvents

/// Stores (docs/COMMANDS.md, "Stores"): every rule of CreateStore, RenameStore,
/// DeleteStore, and the store of trips and purchases, accepted and refused.
@Suite struct StoreRuleTests {
    let corner: StoreID = id(0x51), market: StoreID = id(0x52)

    func withItem() throws -> Fixture {
        var f = try Fixture.started()
        try f.run(.createItem(item: id(1), name: "Milk", location: nil, details: ItemDetails(unitPrice: 119)))
        try f.run(.createList(list: id(10), name: "Weekly", priority: nil))
        return f
    }

    @Test func createRenameDelete() throws {
        var f = try Fixture.started()
        #expect(try f.run(.createStore(store: corner, name: "  Corner shop ")) == [.storeCreated(store: corner, name: "Corner shop")])
        #expect(f.rejection(.createStore(store: market, name: "corner SHOP")) == .nameTaken)
        #expect(f.rejection(.createStore(store: market, name: "   ")) == .invalidName)
        #expect(f.rejection(.createStore(store: market, name: "a\u{0}b")) == .invalidName)
        #expect(f.rejection(.createStore(store: corner, name: "Market")) == .idInUse)
        #expect(f.rejection(.createStore(store: StoreID(Fixture.home.uuid), name: "Market")) == .idInUse)
        #expect(try f.run(.createStore(store: market, name: "Market")) == [.storeCreated(store: market, name: "Market")])
        #expect(f.rejection(.renameStore(store: market, name: "Corner Shop")) == .nameTaken)
        #expect(try f.run(.renameStore(store: market, name: "market")) == [.storeRenamed(store: market, name: "market")])
        #expect(f.rejection(.renameStore(store: id(0x59), name: "X")) == .unknownStore)
        #expect(try f.run(.deleteStore(store: corner)) == [.storeDeleted(store: corner)])
        #expect(f.rejection(.deleteStore(store: corner)) == .storeDeleted)
        #expect(f.rejection(.renameStore(store: corner, name: "Y")) == .storeDeleted)
        #expect(f.rejection(.deleteStore(store: id(0x59))) == .unknownStore)
        // A deleted store's name is free again; its id is not.
        #expect(try f.run(.createStore(store: id(0x53), name: "Corner shop")).count == 1)
        #expect(f.state.stores[corner] == Store(id: corner, name: "Corner shop", isDeleted: true))
        #expect(try f.state.find(store: "CORNER SHOP") == id(0x53))
        #expect(try f.state.find(store: "Corner shop", in: .includingDeleted) == id(0x53))
    }

    @Test func tripsAtAStore() throws {
        var f = try withItem()
        try f.run(.createStore(store: corner, name: "Corner shop"))
        #expect(f.rejection(.startTrip(trip: id(0x70), list: nil, store: id(0x59))) == .unknownStore)
        #expect(try f.run(.startTrip(trip: id(0x70), list: id(10), store: corner)) == [.tripStarted(trip: id(0x70), list: id(10), store: corner)])
        try f.run(.endTrip(trip: id(0x70)))
        try f.run(.deleteStore(store: corner))
        #expect(f.rejection(.startTrip(trip: id(0x71), list: nil, store: corner)) == .storeDeleted)
        #expect(try f.run(.startTrip(trip: id(0x71))) == [.tripStarted(trip: id(0x71), list: nil, store: nil)])
    }

    /// A purchase's store: given (live), else the running trip's; a paused trip, or a purchase dated earlier, takes none.
    @Test func purchasesAtAStore() throws {
        var f = try withItem()
        try f.run(.createStore(store: corner, name: "Corner shop"))
        try f.run(.createStore(store: market, name: "Market"))
        func bought(_ n: Int, store: StoreID?, at: Timestamp? = nil) -> [Event] {
            [.itemPurchased(purchase: id(n), item: id(1), list: nil, quantity: 1, unitPrice: 119, location: .unknown, purchasedAt: at, store: store)]
        }
        #expect(try f.run(.purchaseItem(purchase: id(0x80), item: id(1))) == bought(0x80, store: nil))
        #expect(try f.run(.purchaseItem(purchase: id(0x81), item: id(1), store: market)) == bought(0x81, store: market))
        #expect(f.rejection(.purchaseItem(purchase: id(0x82), item: id(1), store: id(0x59))) == .unknownStore)
        try f.run(.startTrip(trip: id(0x70), list: nil, store: corner))
        #expect(try f.run(.purchaseItem(purchase: id(0x82), item: id(1))) == bought(0x82, store: corner))
        #expect(try f.run(.purchaseItem(purchase: id(0x83), item: id(1), store: market)) == bought(0x83, store: market))
        let earlier = Timestamp("2026-01-01T10:00:00.000Z")!
        #expect(try f.run(.purchaseItem(purchase: id(0x84), item: id(1), purchasedAt: earlier)) == bought(0x84, store: nil, at: earlier))
        try f.run(.pauseTrip(trip: id(0x70)))
        #expect(try f.run(.purchaseItem(purchase: id(0x85), item: id(1))) == bought(0x85, store: nil))
        try f.run(.resumeTrip(trip: id(0x70)))
        #expect(try f.run(.purchaseItem(purchase: id(0x86), item: id(1))) == bought(0x86, store: corner))
        try f.run(.endTrip(trip: id(0x70)))
        #expect(try f.run(.purchaseItem(purchase: id(0x87), item: id(1))) == bought(0x87, store: nil))
        // A deleted store: refused for a purchase now, taken for one dated earlier (bought there before it went).
        try f.run(.deleteStore(store: market))
        #expect(f.rejection(.purchaseItem(purchase: id(0x88), item: id(1), store: market)) == .storeDeleted)
        #expect(try f.run(.purchaseItem(purchase: id(0x88), item: id(1), purchasedAt: earlier, store: market)) == bought(0x88, store: market, at: earlier))
        #expect(f.rejection(.purchaseItem(purchase: id(0x89), item: id(1), purchasedAt: earlier, store: id(0x59))) == .unknownStore)
    }

    /// `verify` re-decides each event from the state before it: a purchase that took the running trip's store checks as one that gave none.
    @Test func everyStoreEventChecksAgainstItsState() throws {
        var f = try withItem()
        var events: [(Event, ShopState)] = []
        func run(_ command: Command) throws { let before = f.state; for event in try f.run(command) { events.append((event, before)) } }
        try run(.createStore(store: corner, name: "Corner shop"))
        try run(.renameStore(store: corner, name: "Corner"))
        try run(.startTrip(trip: id(0x70), list: nil, store: corner))
        try run(.purchaseItem(purchase: id(0x80), item: id(1)))
        try run(.purchaseItem(purchase: id(0x81), item: id(1), store: corner))
        try run(.endTrip(trip: id(0x70)))
        try run(.deleteStore(store: corner))
        for (event, before) in events {
            #expect(throws: Never.self, "\(event)") { try ShopDecider.check(event, before, actor: "ana") }
        }
        // And an event the rules would not make is caught: a purchase at a store that does not exist.
        let bogus = Event.itemPurchased(purchase: id(0x90), item: id(1), list: nil, quantity: 1, unitPrice: 119, location: .unknown,
                                        purchasedAt: nil, store: id(0x59))
        #expect(throws: RuleViolation.self) { try ShopDecider.check(bogus, f.state, actor: "ana") }
    }
}
