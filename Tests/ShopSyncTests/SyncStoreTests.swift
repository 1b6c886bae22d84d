import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Stores through sync: a phone offline in a trip at a
/// store buys without naming the store; the hub, deciding the purchase later,
/// records it at that store, and the phone's replica equals the hub.
@Suite("Sync: stores")
struct SyncStoreTests {
    @Test("a purchase made offline during a trip at a store reaches the hub at that store, though the store was deleted there first (and the trip refused)")
    func purchaseDuringATripAtAStore() throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk"], onList: ["Milk"], members: [("ana", .owner), ("ben", .member)])
        #expect(try world.clone("ana-phone", actor: "ana").status == 0)
        #expect(try world.clone("ben-phone", actor: "ben").status == 0)
        let store = "00000000-0000-0000-0000-0000000005A1"
        let made = try world.apply("ana-phone", actor: "ana", [#"{"type":"CreateStore","data":{"store":"\#(store)","name":"Corner shop"}}"#])
        #expect(made.first?["ok"] as? Bool == true, "\(made)")
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        #expect(try world.sync("ben-phone", actor: "ben").status == 0)
        // ben, offline: a trip at the corner shop (by its name), the milk bought without naming a store.
        let offline = try world.apply("ben-phone", actor: "ben", [
            #"{"type":"StartTrip","data":{"store":"corner shop"}}"#,
            #"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly"}}"#,
        ])
        #expect(offline.allSatisfy { $0["ok"] as? Bool == true }, "\(offline)")
        // Meanwhile ana deletes the store at the hub.
        #expect(try world.apply("ana-phone", actor: "ana", [#"{"type":"DeleteStore","data":{"store":"\#(store)"}}"#]).first?["ok"] as? Bool == true)
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        // The trip is refused at the hub (its store was deleted there first); the purchase, pinned with the
        // trip's store and the time it was made, is taken: bought at a store that existed then.
        #expect(try world.sync("ben-phone", actor: "ben").status == 1, "a command was refused")
        #expect(try world.rejected("ben-phone").map { "\($0.command.command.typeName) \($0.error.code)" } == ["StartTrip store_deleted"])
        let bought = try world.hubEvents().compactMap { recorded -> StoreID?? in
            if case let .itemPurchased(_, _, _, _, _, _, _, at) = recorded.event { return at }
            return nil
        }
        #expect(bought == [StoreID(store)!], "the purchase is at the store of the trip it was made in")
        #expect(try world.sync("ana-phone", actor: "ana").status == 0)
        #expect(Scratch.bytes(world.path("ben-phone")) == Scratch.bytes(world.hub), "the replica equals the hub")
        #expect(try world.brokenLaws(devices: ["ana-phone", "ben-phone"]).isEmpty)
    }
}
