import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// Which events touch a thing: the history an app shows of an item, a list,
/// a place or a member, with the household just before each.
@Suite struct EventHistoryTests {
    @Test func eachSubjectGetsTheEventsThatTouchedItAndNoOthers() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0xE1), actor: "ana"))
        let dairy = LocationID(), bakery = LocationID(), milk = ItemID(), bread = ItemID(), weekly = ListID(), purchase = PurchaseID(), trip = TripID()
        let commands: [CommandEnvelope] = [
            CommandEnvelope(.createHousehold(name: "Home", currency: "EUR", timeZone: "UTC")),       // 1
            CommandEnvelope(.createLocation(location: dairy, name: "Dairy")),                          // 2
            CommandEnvelope(.createLocation(location: bakery, name: "Bakery")),                        // 3
            CommandEnvelope(.createItem(item: milk, name: "Milk", location: dairy)),                   // 4
            CommandEnvelope(.createItem(item: bread, name: "Bread", location: bakery)),                // 5
            CommandEnvelope(.createList(list: weekly, name: "Weekly")),                                // 6
            CommandEnvelope(.addItemToList(list: weekly, item: milk)),                                 // 7
            CommandEnvelope(.startTrip(trip: trip, list: weekly)),                                     // 8
            CommandEnvelope(.purchaseItem(purchase: purchase, item: milk, list: weekly), actor: "ben"),// 9
            CommandEnvelope(.revertPurchase(purchase: purchase)),                                      // 10
            CommandEnvelope(.relocateItem(item: milk, location: bakery)),                              // 11
            CommandEnvelope(.endTrip(trip: trip)),                                                     // 12
            CommandEnvelope(.addMember(member: "ana", role: .owner)),                                  // 13
        ]
        for command in commands { try journal.execute(command) }
        journal.close()
        func seqs(_ subject: EventHistory.Subject) throws -> [Int] {
            var found: [Int] = []
            try EventHistory.forEach(journal: path, touching: subject) { recorded, before in
                #expect(before.household == nil || recorded.seq > 1)
                found.append(recorded.seq)
            }
            return found
        }
        #expect(try seqs(.item(milk)) == [4, 7, 9, 10, 11])
        #expect(try seqs(.item(bread)) == [5])
        #expect(try seqs(.list(weekly)) == [6, 7, 8, 9, 10, 12])
        #expect(try seqs(.location(dairy)) == [2, 4, 9, 10, 11])
        #expect(try seqs(.location(bakery)) == [3, 5, 11])
        #expect(try seqs(.location(.unknown)) == [1])
        #expect(try seqs(.member("ben")) == [9])
        #expect(try seqs(.member("ana")).count == 12, "ana issued every command but the purchase")
    }
}

/// A device's views: the hub's history, then its outbox, as if taken.
@Suite struct ReplicaViewsTests {
    @Test func aReplicasViewsFoldItsOutboxAtTheEndOnly() throws {
        let world = SyncWorld()
        _ = try world.makeHub(items: ["Milk", "Bread"], onList: ["Milk"], members: [])
        #expect(try world.clone("phone", actor: "ana").status == 0)
        let hubSeq = try world.hubEvents().count
        let answers = try world.apply("phone", actor: "ana", [#"{"type":"PurchaseItem","data":{"item":"Milk","list":"Weekly"}}"#,
                                                             #"{"type":"CreateList","data":{"name":"Party"}}"#])
        #expect(answers.allSatisfy { $0["pending"] as? Bool == true })
        let shown = try ReplicaViews.load(journal: world.path("phone"))
        #expect(shown.through == hubSeq)
        #expect(shown.pending == 2)
        #expect(shown.pendingEvents.map(\.event.typeName) == ["ItemPurchased", "ListCreated"])
        #expect(shown.pendingEvents.map(\.seq) == [hubSeq + 1, hubSeq + 2])
        #expect(shown.views.asOf == hubSeq + 2)
        #expect(ListsView(shown.views).lists.map(\.name) == ["Party", "Weekly"])
        // As of a point of the hub's history, the outbox is left out; its size is still said.
        let before = try ReplicaViews.load(journal: world.path("phone"), asOf: .seq(hubSeq))
        #expect(before.pendingEvents == [] && before.pending == 2 && before.views.asOf == hubSeq)
        #expect(ListsView(before.views).lists.map(\.name) == ["Weekly"])
        // A journal that is no replica has no outbox.
        let hub = try ReplicaViews.load(journal: world.hub)
        #expect(hub.pending == nil && hub.pendingEvents == [] && hub.through == hubSeq)

        // The statistics: the replica's with its outbox's purchase; the hub's from a fold that keeps no purchase, the same totals.
        let phoneStats = try ReplicaViews.loadTotals(journal: world.path("phone"))
        #expect(phoneStats.pending == 2 && StatsView(phoneStats.views).items.map(\.tally.purchases) == [1])
        #expect(phoneStats.views is StatisticsViews, "a replica's: the statistics projection, its outbox folded in")
        let hubStats = try ReplicaViews.loadTotals(journal: world.hub)
        let hubAllTotals = try ReplicaViews.load(journal: world.hub)
        #expect(hubStats.pending == nil && hubStats.views is SettledViews && StatsView(hubStats.views) == StatsView(hubAllTotals.views))

        // Snapshots: a journal's views and writer's chain; a replica's views only (no writer but sync opens it).
        try ReplicaViews.saveSnapshots(journal: world.hub)
        try ReplicaViews.saveSnapshots(journal: world.path("phone"))
        for (path, chain) in [(world.hub, true), (world.path("phone"), false)] {
            #expect(FileManager.default.fileExists(atPath: path + ".snapshot"))
            #expect(FileManager.default.fileExists(atPath: path + ".chain") == chain, "\(path)")
        }
    }
}
