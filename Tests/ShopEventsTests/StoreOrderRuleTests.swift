import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// A store's own order (docs/COMMANDS.md, "Stores"): ReorderStoreLocations accepted and
/// refused, and the order a store is walked in after reorders, deleted
/// locations, a deleted store and one re-created under its name.
@Suite struct StoreOrderRuleTests {
    let corner: StoreID = id(0x51), market: StoreID = id(0x52)
    let dairy: LocationID = id(0x21), bakery: LocationID = id(0x22), produce: LocationID = id(0x23), frozen: LocationID = id(0x24)

    /// Four locations in the household's order dairy, bakery, produce, frozen; two stores.
    func household() throws -> Fixture {
        var f = try Fixture.started()
        for (location, name) in [(dairy, "Dairy"), (bakery, "Bakery"), (produce, "Produce"), (frozen, "Frozen")] {
            try f.run(.createLocation(location: location, name: name))
        }
        try f.run(.createStore(store: corner, name: "Corner shop"))
        try f.run(.createStore(store: market, name: "Market"))
        return f
    }

    @Test func aPartialOrderIsFollowedByTheRestInTheHouseholdsOrderThenUnknown() throws {
        var f = try household()
        #expect(f.state.visitingOrder(at: corner) == [dairy, bakery, produce, frozen, .unknown], "no order of its own: the household's")
        #expect(try f.run(.reorderStoreLocations(store: corner, order: [produce, dairy]))
                == [.storeLocationsReordered(store: corner, order: [produce, dairy])])
        #expect(f.state.stores[corner] == Store(id: corner, name: "Corner shop", order: [produce, dairy]))
        #expect(f.state.visitingOrder(at: corner) == [produce, dairy, bakery, frozen, .unknown])
        #expect(f.state.visitingOrder(at: market) == [dairy, bakery, produce, frozen, .unknown], "another store keeps the household's")
        #expect(f.state.visitingOrder(at: nil) == f.state.visitingOrder)
        // The household's order changing moves the left-out ones, not the named ones.
        try f.run(.reorderLocations(order: [frozen, produce, bakery, dairy]))
        #expect(f.state.visitingOrder(at: corner) == [produce, dairy, frozen, bakery, .unknown])
        // A second reorder replaces the first (last accepted wins); every location may be named; none: the household's again.
        try f.run(.reorderStoreLocations(store: corner, order: [bakery, frozen, dairy, produce]))
        #expect(f.state.visitingOrder(at: corner) == [bakery, frozen, dairy, produce, .unknown])
        try f.run(.reorderStoreLocations(store: corner, order: []))
        #expect(f.state.visitingOrder(at: corner) == [frozen, produce, bakery, dairy, .unknown])
    }

    @Test func everyRefusal() throws {
        var f = try household()
        try f.run(.createLocation(location: id(0x25), name: "Gone"))
        try f.run(.deleteLocation(location: id(0x25)))
        let before = f.state
        #expect(f.rejection(.reorderStoreLocations(store: id(0x59), order: [dairy])) == .unknownStore)
        #expect(f.rejection(.reorderStoreLocations(store: corner, order: [dairy, .unknown])) == .unknownLocationFixed)
        #expect(f.rejection(.reorderStoreLocations(store: corner, order: [dairy, id(0x29)])) == .unknownLocation)
        #expect(f.rejection(.reorderStoreLocations(store: corner, order: [dairy, id(0x25)])) == .locationDeleted)
        #expect(f.rejection(.reorderStoreLocations(store: corner, order: [dairy, bakery, dairy])) == .duplicateLocation)
        try f.run(.deleteStore(store: market))
        #expect(f.rejection(.reorderStoreLocations(store: market, order: [dairy])) == .storeDeleted)
        // Each refusal names the field and the value.
        #expect(throws: RuleViolation(.duplicateLocation, "order names location \(dairy) (\"Dairy\") twice; name each location at most once", field: "order")) {
            try ShopDecider.decide(.reorderStoreLocations(store: corner, order: [dairy, dairy]), f.state, actor: "ana")
        }
        #expect(f.state.stores[corner] == before.stores[corner])
    }

    @Test func aDeletedLocationDropsOutOfEveryStoresOrder() throws {
        var f = try household()
        try f.run(.reorderStoreLocations(store: corner, order: [produce, dairy, bakery]))
        try f.run(.reorderStoreLocations(store: market, order: [dairy, produce]))
        try f.run(.deleteLocation(location: dairy))
        #expect(f.state.stores[corner]?.order == [produce, bakery])
        #expect(f.state.stores[market]?.order == [produce])
        #expect(f.state.visitingOrder(at: corner) == [produce, bakery, frozen, .unknown])
        #expect(f.state.visitingOrder(at: market) == [produce, bakery, frozen, .unknown])
    }

    @Test func aDeletedStoresOrderGoesWithItAndAStoreRecreatedHasNone() throws {
        var f = try household()
        try f.run(.reorderStoreLocations(store: corner, order: [frozen, produce]))
        try f.run(.deleteStore(store: corner))
        #expect(f.state.stores[corner] == Store(id: corner, name: "Corner shop", isDeleted: true, order: []))
        #expect(f.state.visitingOrder(at: corner) == [dairy, bakery, produce, frozen, .unknown])
        try f.run(.createStore(store: id(0x53), name: "Corner shop"))
        #expect(f.state.stores[id(0x53)] == Store(id: id(0x53), name: "Corner shop"))
        #expect(f.state.visitingOrder(at: id(0x53)) == [dairy, bakery, produce, frozen, .unknown])
    }

    /// `verify` re-decides each event from the state before it; one the rules would not make is caught.
    @Test func everyStoreOrderEventChecksAgainstItsState() throws {
        var f = try household()
        let before = f.state
        let events = try f.run(.reorderStoreLocations(store: corner, order: [produce, dairy]))
        for event in events {
            #expect(throws: Never.self) { try ShopDecider.check(event, before, actor: "ana") }
        }
        #expect(throws: RuleViolation.self) {
            try ShopDecider.check(.storeLocationsReordered(store: corner, order: [dairy, dairy]), f.state, actor: "ana")
        }
    }

    /// The random histories the property tests replay, sync and snapshot reorder stores, accepted and refused by every rule.
    @Test func randomHistoriesReorderStoresAndMeetEveryRefusal() throws {
        var accepted = 0
        var refused: Set<RuleViolation.Reason> = []
        for seed in [1, 2, 3, 4] as [UInt64] {
            var generator = RandomCommands(seed: seed)
            var f = Fixture()
            for _ in 0..<1_500 {
                let command = generator.next(for: f.state)
                guard case .reorderStoreLocations = command else { _ = try? f.run(command); continue }
                if let reason = f.rejection(command) { refused.insert(reason) } else { try f.run(command); accepted += 1 }
            }
        }
        #expect(accepted >= 20, "\(accepted)")
        #expect(refused == [.unknownStore, .storeDeleted, .unknownLocationFixed, .duplicateLocation, .locationDeleted])
    }

    /// The state with store orders comes back from its snapshot coding as it was.
    @Test func theSnapshotKeepsStoreOrders() throws {
        var f = try household()
        try f.run(.reorderStoreLocations(store: corner, order: [produce, dairy]))
        var writer = BinaryWriter()
        f.state.encode(to: &writer)
        var reader = BinaryReader(writer.bytes)
        #expect(try ShopState(from: &reader) == f.state)
    }
}
