import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Four devices with 1,000 pending commands each sync against one hub at the
/// same time: four `shop-replay sync` processes, each with its own `shop-replay hub`.
@Suite("Sync: four devices at once")
struct SyncConcurrencyTests {
    @Test("4 devices × 1,000 commands, syncing at the same time: every command in the hub exactly once, the chain valid, all replicas equal")
    func fourAtOnce() throws {
        let world = SyncWorld()
        let actors = ["ana", "ben", "cleo", "dora"]
        let devices = ["p0", "p1", "p2", "p3"]
        let hub = try world.makeHub(items: ["Milk"], onList: [], members: actors.map { ($0, Role.owner) })
        let dairy = hub.locations.values.first { $0.name == "Dairy" }!.id
        let list = hub.lists.values.first!.id
        var made: [CommandID] = []
        for (device, actor) in zip(devices, actors) {
            try world.clone(device, actor: actor)
            let replica = try Replica(path: world.path(device), options: .init(actor: actor))
            for n in 0..<500 {
                let item = ItemID()
                made.append(try replica.execute(.createItem(item: item, name: "\(device) item \(n)", location: dairy, details: ItemDetails())).command)
                made.append(try replica.execute(.addItemToList(list: list, item: item, quantity: Quantity(n % 5 + 1))).command)
            }
            #expect(replica.pending.count == 1_000)
        }
        let syncs = try zip(devices, actors).map { device, actor in
            try ChildProcess(ToolRunner.binary, ["sync", "--journal", world.path(device), "--actor", actor, "--json"],
                             stdout: .file(world.path(device) + ".report"), stderr: .file(world.path(device) + ".errors"))
        }
        for (sync, device) in zip(syncs, devices) {
            #expect(sync.waitForExit() == 0, "\(String(decoding: Scratch.bytes(world.path(device) + ".errors"), as: UTF8.self))")
        }
        for (device, actor) in zip(devices, actors) { #expect(try world.sync(device, actor: actor).status == 0) }

        let events = try world.hubEvents()
        let counts = Dictionary(grouping: events, by: \.command).mapValues(\.count)
        #expect(made.allSatisfy { counts[$0] == 1 }, "every command once")
        #expect(events.count == made.count + 3 + hub.items.count + actors.count, "and nothing else (household, location, list, items, members)")
        #expect(try world.brokenLaws(devices: devices) == [])
        for device in devices {
            let report = try JSONSerialization.jsonObject(with: Data(Scratch.bytes(world.path(device) + ".report"))) as? [String: Any]
            #expect(report?["accepted"] as? Int == 1_000)
        }
    }
}
