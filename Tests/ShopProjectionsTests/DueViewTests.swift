import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The `due` view (docs/VIEWS.md): hand-checked, and against a model of its
/// rule over random histories at many points.
@Suite struct DueViewTests {
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    static func day(_ n: Double) -> Timestamp { Timestamp(millisecondsSince1970: start.millisecondsSince1970 + Int64(n * 86_400_000)) }

    @Test("bought 3 times, off every list, as long since as usual: due, most overdue first; reverted purchases, deleted items, items on a list and fewer than 3 purchases are not")
    func handChecked() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        // Every command one second after 1 March; the purchases' times given.
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Self.start, by: 1000), ids: .sequential(prefix: 0xD0), actor: "ana"))
        let coffee: ItemID = id(1), salt: ItemID = id(2), tea: ItemID = id(3), rice: ItemID = id(4), flour: ItemID = id(5), sugar: ItemID = id(6), soap: ItemID = id(7)
        let weekly: ListID = id(0x10)
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        for (item, name) in [(coffee, "Coffee"), (salt, "Salt"), (tea, "Tea"), (rice, "Rice"), (flour, "Flour"), (sugar, "sugar"), (soap, "Soap")] {
            try journal.execute(.createItem(item: item, name: name))
        }
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: nil))
        func buy(_ item: ItemID, on days: [Double], purchase first: Int) throws {
            for (n, day) in days.enumerated() {
                try journal.execute(.purchaseItem(purchase: id(first + n), item: item, purchasedAt: Self.day(day)))
            }
        }
        // "Now" is pinned to the last event's time; the purchases are dated in the past, up to 90 days back from a clock at 1 March.
        try buy(coffee, on: [-90, -60, -30], purchase: 0x100)      // every 30 d, last 30 d ago: overdue 1.0
        try buy(soap, on: [-90, -80, -70], purchase: 0x110)        // every 10 d, last 70 d ago: overdue 7.0
        try buy(salt, on: [-60, -40, -20], purchase: 0x120)        // one reverted: 2 purchases, not a staple
        try journal.execute(.revertPurchase(purchase: id(0x122)))
        try buy(tea, on: [-60, -40, -20], purchase: 0x130)         // due, but on a list unbought
        try journal.execute(.addItemToList(list: weekly, item: tea))
        try buy(rice, on: [-5, -5, -5], purchase: 0x140)           // a mean of 0: always due, first
        try buy(flour, on: [-60, -40, -20], purchase: 0x150)       // deleted
        try journal.execute(.deleteItem(item: flour))
        try buy(sugar, on: [-30, -20, -10], purchase: 0x160)       // every 10 d, last 10 d ago: overdue 1.0
        let now = journal.lastAt!
        journal.close()

        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        func row(_ item: ItemID, _ name: String, last: Double, mean: Double) -> DueView.Row {
            let since = Double(now.millisecondsSince1970 - Self.day(last).millisecondsSince1970) / 86_400_000
            return DueView.Row(item: item, name: name, lastPurchased: Self.day(last), meanIntervalDays: mean, daysSince: since,
                               overdue: mean > 0 ? since / mean : nil)
        }
        let due = DueView(views, now: now)
        #expect(due == DueView(asOf: views.asOf, now: now, items: [
            row(rice, "Rice", last: -5, mean: 0),
            row(soap, "Soap", last: -70, mean: 10),
            row(sugar, "sugar", last: -10, mean: 10),
            row(coffee, "Coffee", last: -30, mean: 30),
        ]), "sugar and coffee are each a few seconds over 1.0 (the commands' seconds since 1 March): over 10 days, sugar's weigh more")
        #expect(due.json == .object([
            ("view", "due"), ("asOf", .int(views.asOf)), ("now", .string(now.description)),
            ("items", .array(due.items.map { row in
                .object([("item", .string(row.item.description)), ("name", .string(row.name)), ("lastPurchased", .string(row.lastPurchased.description)),
                         ("meanIntervalDays", .double(row.meanIntervalDays)), ("daysSince", .double(row.daysSince)),
                         ("overdue", row.overdue.map(JSONValue.double) ?? .null)])
            })),
        ]))
        // Before any purchase: nothing; an empty journal's view: nothing.
        #expect(DueView(try ViewEngine.views(journal: path, asOf: .seq(9), useSnapshot: false).0, now: now).items == [])
        #expect(DueView(StatisticsViews(), now: now) == DueView(asOf: 0, now: now, items: []))
    }

    /// The rule, written again from the events alone but for which items and lists are live
    /// (the state's, which the domain's own tests hold).
    static func model(_ events: ArraySlice<RecordedEvent>, state: ShopState) -> [DueView.Row] {
        guard let now = events.last?.at else { return [] }
        var bought: [PurchaseID: (ItemID, Timestamp)] = [:]
        for recorded in events {
            switch recorded.event {
            case let .itemPurchased(purchase, item, _, _, _, _, purchasedAt, _): bought[purchase] = (item, purchasedAt ?? recorded.at)
            case let .purchaseReverted(purchase): bought[purchase] = nil
            default: break
            }
        }
        var times: [ItemID: [Int64]] = [:]
        for (item, time) in bought.values { times[item, default: []].append(time.millisecondsSince1970) }
        let listed = Set(state.lists.values.filter { !$0.isDeleted }.flatMap { $0.entries.filter { !$0.isBought }.map(\.item) })
        var rows: [DueView.Row] = []
        for (item, all) in times where all.count >= 3 && !listed.contains(item) {
            guard let live = state.items[item], !live.isDeleted, let first = all.min(), let last = all.max() else { continue }
            let mean = Double(last - first) / 86_400_000 / Double(all.count - 1)
            let since = Double(now.millisecondsSince1970 - last) / 86_400_000
            if since >= mean {
                rows.append(DueView.Row(item: item, name: live.name, lastPurchased: Timestamp(millisecondsSince1970: last),
                                        meanIntervalDays: mean, daysSince: since, overdue: mean > 0 ? since / mean : nil))
            }
        }
        return rows.sorted { a, b in
            let (x, y) = (a.overdue ?? .infinity, b.overdue ?? .infinity)
            if x != y { return x > y }
            let (m, n) = (a.name.lowercased(), b.name.lowercased())
            return m != n ? m < n : a.item < b.item
        }
    }

    @Test("random histories: the view equals the model at every 25th event and at the end, folded at once and as of each point", arguments: [62, 65, 67] as [UInt64])
    func equalsTheModel(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 600)
        let events = try JournalReader.readAll(path: journal.path)
        var views = StatisticsViews()
        var dueSeen = 0
        for (index, recorded) in events.enumerated() {
            views.apply(recorded)
            guard index % 25 == 24 || index == events.count - 1 else { continue }
            let model = Self.model(events[...index], state: views.state)
            #expect(DueView(views, now: recorded.at).items == model, "as of seq \(recorded.seq)")
            dueSeen += model.count
        }
        #expect(dueSeen > 0, "some staple was due at some point")
        // As of a point, read again from the journal: the same view.
        let middle = events.count / 2
        let asOf = try ViewEngine.views(journal: journal.path, asOf: .seq(middle), useSnapshot: false).0
        #expect(DueView(asOf, now: asOf.asOfTime!).items == Self.model(events[..<middle], state: asOf.state))
    }
}
