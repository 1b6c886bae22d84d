import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// A store's own order through sync, with `shop-replay`
/// processes as phones: an order made offline on one phone reaches the
/// others; two phones reordering one store converge, the last accepted at
/// the hub winning (as ReorderLocations).
@Suite("Sync: a store's order")
struct SyncStoreOrderTests {
    static let store = "00000000-0000-0000-0000-0000000005A1"
    static let drinks = "00000000-0000-0000-0000-0000000005B1", bakery = "00000000-0000-0000-0000-0000000005B2"

    /// A hub with two locations and a store, cloned by ana's and ben's phones.
    static func world() throws -> SyncWorld {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk"], onList: ["Milk"], members: [("ana", .owner), ("ben", .member)])
        #expect(try world.clone("ana-phone", actor: "ana").status == 0)
        #expect(try world.clone("ben-phone", actor: "ben").status == 0)
        let made = try world.apply("ana-phone", actor: "ana", [
            #"{"type":"CreateLocation","data":{"location":"\#(drinks)","name":"Drinks"}}"#,
            #"{"type":"CreateLocation","data":{"location":"\#(bakery)","name":"Bakery"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(store)","name":"Corner shop"}}"#,
        ])
        #expect(made.allSatisfy { $0["ok"] as? Bool == true }, "\(made)")
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        #expect(try world.sync("ben-phone", actor: "ben").status == 0)
        return world
    }

    /// The corner shop's own order in a journal's state.
    static func order(_ path: String) throws -> [LocationID]? {
        var state = ShopState.initial
        for recorded in try JournalReader.readAll(path: path) { state.apply(recorded) }
        return state.stores[StoreID(store)!]?.order
    }

    @Test("an order made offline on one phone reaches the hub and the other phone")
    func anOfflineOrderReachesTheOthers() throws {
        let world = try Self.world()
        let offline = try world.apply("ben-phone", actor: "ben", [#"{"type":"ReorderStoreLocations","data":{"store":"corner shop","order":["Bakery"]}}"#])
        #expect(offline.first?["ok"] as? Bool == true, "\(offline)")
        #expect(try Self.order(world.hub) == [], "not at the hub before ben syncs")
        #expect(try world.sync("ben-phone", actor: "ben").status == 0)
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        #expect(try Self.order(world.hub) == [LocationID(Self.bakery)!])
        #expect(try Self.order(world.path("ana-phone")) == [LocationID(Self.bakery)!])
        #expect(Scratch.bytes(world.path("ana-phone")) == Scratch.bytes(world.hub))
        #expect(Scratch.bytes(world.path("ben-phone")) == Scratch.bytes(world.hub))
        #expect(try world.brokenLaws(devices: ["ana-phone", "ben-phone"]).isEmpty)
    }

    @Test("two phones reordering one store offline converge on the order the hub accepted last")
    func twoPhonesConvergeOnTheLastAccepted() throws {
        let world = try Self.world()
        #expect(try world.apply("ana-phone", actor: "ana", [#"{"type":"ReorderStoreLocations","data":{"store":"Corner shop","order":["Drinks","Bakery"]}}"#])
                    .first?["ok"] as? Bool == true)
        #expect(try world.apply("ben-phone", actor: "ben", [#"{"type":"ReorderStoreLocations","data":{"store":"Corner shop","order":["Bakery","Drinks"]}}"#])
                    .first?["ok"] as? Bool == true)
        // ana's reaches the hub first, ben's last: ben's order wins everywhere.
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        #expect(try world.sync("ben-phone", actor: "ben").status == 0)
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        let last = [LocationID(Self.bakery)!, LocationID(Self.drinks)!]
        #expect(try Self.order(world.hub) == last)
        #expect(try Self.order(world.path("ana-phone")) == last)
        #expect(try Self.order(world.path("ben-phone")) == last)
        let reorders = try world.hubEvents().filter { $0.event.kind == .storeLocationsReordered }.map(\.actor)
        #expect(reorders == ["ana", "ben"], "both are in the history, in the order the hub accepted them")
        #expect(Scratch.bytes(world.path("ana-phone")) == Scratch.bytes(world.hub))
        #expect(Scratch.bytes(world.path("ben-phone")) == Scratch.bytes(world.hub))
        #expect(try world.brokenLaws(devices: ["ana-phone", "ben-phone"]).isEmpty)
    }
}
