import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// Three phones clone one hub, make offline changes that conflict in every way
/// docs/SYNC.md lists, and sync in every order — each a
/// `shop-replay` process, the hub a `shop-replay hub` process under each sync.
@Suite("Sync: conflicts, in every order of syncs")
struct SyncConflictTests {
    static let orders = [["a", "b", "c"], ["a", "c", "b"], ["b", "a", "c"], ["b", "c", "a"], ["c", "a", "b"], ["c", "b", "a"]]
    static let actors = ["a": "ana", "b": "ben", "c": "cleo"]

    @Test("every conflict, every order: the laws hold and each conflict ends as docs/SYNC.md says", arguments: orders)
    func conflicts(order: [String]) throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk", "Eggs", "Bread", "Butter", "Apples"], onList: ["Milk", "Bread", "Butter", "Apples"],
                              members: [("ana", .owner), ("ben", .owner), ("cleo", .member)])
        for device in ["a", "b", "c"] { #expect(try world.clone(device, actor: Self.actors[device]!).status == 0) }

        // Offline, all three.
        let a = try world.apply("a", actor: "ana", [
            #"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly"}}"#,                  // both buy the same milk
            #"{"type":"AddItemToList","data":{"item":"Eggs","list":"Weekly","quantity":6}}"#,     // both add the same eggs
            #"{"type":"RenameItem","data":{"item":"Butter","name":"Salted butter"}}"#,             // renames clash
            #"{"type":"CreateItem","data":{"name":"Oat milk"}}"#,                                  // the same new name
            #"{"type":"ChangeMemberRole","data":{"member":"cleo","role":"viewer"}}"#,              // cleo demoted while offline
        ])
        let b = try world.apply("b", actor: "ben", [
            #"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly"}}"#,
            #"{"type":"AddItemToList","data":{"item":"Eggs","list":"Weekly","quantity":12}}"#,
            #"{"type":"RenameItem","data":{"item":"Butter","name":"Butter (salted)"}}"#,
            #"{"type":"CreateItem","data":{"name":"Oat milk"}}"#,
            #"{"type":"DeleteItem","data":{"item":"Bread"}}"#,                                     // deletes what cleo buys
        ])
        let c = try world.apply("c", actor: "cleo", [
            #"{"type":"PurchaseItem","data":{"item":"Bread","list":"Weekly"}}"#,
            #"{"type":"PurchaseItem","data":{"item":"Apples","list":"Weekly"}}"#,
            #"{"type":"ChangeQuantity","data":{"item":"Butter","list":"Weekly","quantity":3}}"#,
        ])
        for answers in [a, b, c] { #expect(answers.allSatisfy { $0["ok"] as? Bool == true && $0["pending"] as? Bool == true }) }

        var reports: [String: [String: Any]] = [:]
        for device in order {
            let result = try world.sync(device, actor: Self.actors[device]!)
            #expect(result.status == 0 || result.status == 1, "\(device): \(result.stderr)")
            reports[device] = try result.object()
        }
        for device in order { #expect(try world.sync(device, actor: Self.actors[device]!).status == 0) }

        #expect(try world.brokenLaws(devices: ["a", "b", "c"]) == [])

        // How each conflict ended.
        let state = try world.hubState()
        let milk = state.items.values.first { $0.name == "Milk" }!.id
        let milkPurchases = state.purchases.values.filter { $0.item == milk }
        #expect(milkPurchases.count == 2, "both purchases of the milk are kept: one on the list, one off it")
        #expect(Set(milkPurchases.map { $0.list == nil }) == [true, false])
        let rejectedCodes = Dictionary(grouping: try ["a", "b", "c"].flatMap { device in try world.rejected(device).map { (device, $0) } }, by: \.0)
            .mapValues { $0.map { "\($0.1.command.command.typeName):\($0.1.error.code)" }.sorted() }
        let second = order.firstIndex(of: "a")! < order.firstIndex(of: "b")! ? "b" : "a"
        // The second phone to add the eggs and to create "Oat milk" has both refused; cleo's commands after her demotion are forbidden
        // when the demotion reached the hub first, and her bread purchase is kept off the list once the bread is deleted.
        #expect(rejectedCodes[second]?.contains("AddItemToList:already_on_list") == true)
        #expect(rejectedCodes[second]?.contains("CreateItem:name_taken") == true)
        let butter = state.items.values.first { $0.name == "Salted butter" || $0.name == "Butter (salted)" }!
        #expect(butter.name == (order.firstIndex(of: "a")! < order.firstIndex(of: "b")! ? "Butter (salted)" : "Salted butter"),
                "the rename synced last wins")
        let cleoDemotedFirst = order.firstIndex(of: "a")! < order.firstIndex(of: "c")!
        let cleoRefused = rejectedCodes["c"] ?? []
        if cleoDemotedFirst {
            #expect(cleoRefused == ["ChangeQuantity:forbidden", "PurchaseItem:forbidden", "PurchaseItem:forbidden"])
        } else {
            let bread = state.items.values.first { $0.name == "Bread" }!.id
            #expect(cleoRefused.filter { $0.hasPrefix("PurchaseItem") } == [])
            #expect(state.purchases.values.contains { $0.item == bread }, "cleo's bread purchase is kept, off the list if the bread was deleted first")
        }
    }
}

@Suite("Sync: the demo")
struct SyncDemoTests {
    @Test("demo-sync: two phones buy the same milk offline; both purchases kept, every file equal to the hub; a second run writes a new folder")
    func demo() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let first = try tool.run(["demo-sync"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("byte-identical: yes"))
        #expect(first.stdout.contains("Milk ×2 bought by ben on Weekly") && first.stdout.contains("Milk ×2 bought by ana off the list"))
        #expect(first.stdout.split(separator: "\n").count <= 16, "a few lines")
        let hub = Scratch.bytes(tool.path("shop-sync-demo/hub.ndjson"))
        #expect(!hub.isEmpty)
        #expect(Scratch.bytes(tool.path("shop-sync-demo/ana-phone.ndjson")) == hub)
        let second = try tool.run(["demo-sync"])
        #expect(second.status == 0)
        #expect(second.stdout.contains("shop-sync-demo-2"))
        #expect(Scratch.bytes(tool.path("shop-sync-demo/hub.ndjson")) == hub, "the first demo's files are untouched")
        let occupied = try tool.run(["demo-sync", "--dir", "shop-sync-demo"])
        #expect(occupied.status == 2)
    }
}
