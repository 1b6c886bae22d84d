import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The statistics read once to the end with their reverts known in advance
/// (``SettledViews``: no purchase, no deleted item, no ended trip kept) equal
/// the statistics projection's; when the foresight is wrong, the fold says so.
@Suite struct SettledStatsTests {
    static func reverts(_ events: some Sequence<RecordedEvent>) -> Set<PurchaseID> {
        Set(events.compactMap { if case let .purchaseReverted(purchase) = $0.event { purchase } else { nil } })
    }

    static func settled(_ events: ArraySlice<RecordedEvent>, reverted: Set<PurchaseID>) -> SettledViews {
        var views = SettledViews(reverting: reverted)
        for recorded in events { views.apply(recorded) }
        return views
    }

    @Test("the same statistics as a plain fold at every prefix, with a state that keeps no history", arguments: [44, 45, 47] as [UInt64])
    func sameStatistics(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        var totals = StatisticsViews(), bare = PresentViews()
        for (index, recorded) in events.enumerated() {
            totals.apply(recorded)
            bare.apply(recorded)
            guard index % 10 == 0 || index == events.count - 1 else { continue }
            let prefix = events[...index]
            let settled = Self.settled(prefix, reverted: Self.reverts(prefix))
            #expect(settled.settled.isSettled)
            #expect(StatsView(settled) == StatsView(totals), "after event \(index + 1)")
            #expect(StatsView(settled).json == StatsView(totals).json)
            #expect(settled.totals.items == totals.totals.items && settled.totals.monthTotals == totals.totals.monthTotals)
            #expect(settled.state == bare.state && settled.state.purchases.count == 0)
            #expect(settled.present == bare.present && settled.calendar == bare.calendar)
        }
        // What the fold let go, and the statistics still show.
        #expect(!Self.reverts(events).isEmpty, "reverts")
        #expect(totals.state.items.values.contains { $0.isDeleted && totals.totals.items[$0.id] != nil }, "a deleted item bought")
        if seed == 45 {   // the history of this seed deletes a place after purchases there: its name still shows
            #expect(totals.state.locations.values.contains { $0.isDeleted && totals.totals.locations[$0.id] != nil }, "a deleted place bought at")
        }
        #expect(totals.state.trips.values.contains { if case .ended = $0.phase { true } else { false } }, "an ended trip")
        #expect(StatsView(totals).trips.count > 0)
    }

    @Test("the statistics written a few rows at a time are exactly their JSON's text", arguments: [44, 47] as [UInt64])
    func writtenInPieces(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        var views = StatisticsViews()
        var checked = 0
        for (index, recorded) in try JournalReader.readAll(path: journal.path).enumerated() {
            views.apply(recorded)
            guard index % 50 == 0 else { continue }
            let stats = StatsView(views)
            for extra in [[], [("pending", JSONValue.int(3))]] as [[(String, JSONValue)]] {
                guard case let .object(pairs) = stats.json else { Issue.record("not an object"); return }
                var pieces: [[UInt8]] = []
                stats.writeJSON(adding: extra) { pieces.append($0) }
                let text = JSONValue.object(pairs + extra).utf8(pretty: true, terminator: 0x0A)
                #expect(Array(pieces.joined()) == text)
                // Written straight from the views, each row made as it goes: the same bytes.
                var streamed: [[UInt8]] = []
                StatsView.writeJSON(of: views, adding: extra) { streamed.append($0) }
                #expect(Array(streamed.joined()) == text)
            }
            checked += stats.items.isEmpty || stats.locations.isEmpty ? 0 : 1
        }
        #expect(checked > 3, "with item rows")
        // A great many rows come out in several pieces, the same bytes.
        var many = StatsView(views)
        many.items = Array(repeating: try #require(many.items.first), count: 3_000)
        many.locations = Array(repeating: try #require(many.locations.first), count: 2_000)
        var pieces: [[UInt8]] = []
        many.writeJSON { pieces.append($0) }
        #expect(pieces.count > 2 && Array(pieces.joined()) == many.json.utf8(pretty: true, terminator: 0x0A))
    }

    @Test("the views read with the scan's foresight: the same statistics and warnings as a plain read, from the journal or a snapshot")
    func fromTheJournal() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 47, commands: 500)
        let events = try JournalReader.readAll(path: journal.path)
        // Read in chunks shorter than a line (the buffer grows), a few lines long, and the default;
        // in one stretch, or cut into several searched side by side (more than there are lines, too).
        #expect(!Self.reverts(events).isEmpty)
        // And the items bought late (off any list, with a time of their own), which `verify` asks for too.
        let lateItems = Set(events.compactMap { if case let .itemPurchased(_, item, nil, _, _, _, _?, _) = $0.event { item } else { nil } })
        #expect(!lateItems.isEmpty)
        for chunk in [64, 2_000, 4 << 20] {
            for parts in [nil, 1, 2, 3, 7, 5_000] as [Int?] {
                #expect(RevertScan.revertedPurchases(journal: journal.path, chunk: chunk, parts: parts) == Self.reverts(events),
                        "chunks of \(chunk), \(parts.map(String.init) ?? "default") parts")
                #expect(RevertScan.forecast(journal: journal.path, chunk: chunk, parts: parts, lateItems: true)
                        == RevertScan.Forecast(reverted: Self.reverts(events), lateItems: lateItems),
                        "chunks of \(chunk), \(parts.map(String.init) ?? "default") parts")
            }
        }
        // A torn write at the end: left out by both, with the same warning.
        Scratch.write(Scratch.bytes(journal.path) + Array(#"{"seq":"#.utf8), to: journal.path)
        let (plain, plainWarnings) = try StatisticsViews.read(journal: journal.path, useSnapshot: false)
        let (settled, warnings) = try SettledViews.readTotals(journal: journal.path, useSnapshot: false)
        #expect(settled is SettledViews && settled.asOf == plain.asOf)
        #expect(StatsView(settled) == StatsView(plain))
        var streamed: [[UInt8]] = [], whole: [[UInt8]] = []
        StatsView.writeJSON(of: settled) { streamed.append($0) }
        StatsView(plain).writeJSON { whole.append($0) }
        #expect(Array(streamed.joined()) == Array(whole.joined()) && !StatsView(plain).items.isEmpty && !StatsView(plain).locations.isEmpty)
        #expect(warnings == plainWarnings && warnings.count == 1)
        // With a good snapshot, the views start from it the plain way.
        let saving = ViewFolding<StatisticsViews>(journalPath: journal.path)   // the views' snapshot only: the torn write stays
        try saving.refresh()
        try saving.saveSnapshot()
        let (fromSnapshot, none) = try SettledViews.readTotals(journal: journal.path)
        #expect(fromSnapshot is StatisticsViews && none == warnings)
        #expect(StatsView(fromSnapshot) == StatsView(plain))
    }

    @Test("told of a revert that does not come, or not told of one that does: not settled")
    func wrongForesight() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 45, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        let reverted = Self.reverts(events)
        let bought = events.compactMap { if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = $0.event { purchase } else { nil } }
        let kept = try #require(bought.first { !reverted.contains($0) })
        let one = try #require(reverted.first)
        #expect(!Self.settled(events[...], reverted: reverted.subtracting([one])).settled.isSettled, "a revert it was not told of")
        #expect(!Self.settled(events[...], reverted: reverted.union([kept])).settled.isSettled, "a purchase never reverted")
        // Told of a purchase the journal never makes: nothing of it is counted either way.
        let never = PurchaseID(UUID())
        let settled = Self.settled(events[...], reverted: reverted.union([never]))
        #expect(settled.settled.isSettled)
        var totals = StatisticsViews()
        for recorded in events { totals.apply(recorded) }
        #expect(StatsView(settled) == StatsView(totals))
        // A revert before its purchase (no decider writes one): a plain fold passes over it and counts the purchase.
        let at = try #require(events.firstIndex { if case .purchaseReverted = $0.event { true } else { false } })
        let early = [events[0], events[at]] + events[1..<at] + events[(at + 1)...]
        #expect(!Self.settled(early[...], reverted: Self.reverts(early)).settled.isSettled)
    }

    @Test("a revert the scan cannot see (its type spelled with an escape) makes the read fold again the plain way")
    func escapedTypeFoldsAgain() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 46, commands: 300)
        let bytes = Scratch.bytes(journal.path)
        let plainType = Array(#""type":"PurchaseReverted""#.utf8), escaped = Array(#""type":"\u0050urchaseReverted""#.utf8)
        var edited = bytes[...], out: [UInt8] = []
        // Every revert's type escaped: the chain no longer holds, so both read without checking it.
        while let range = edited.firstRange(of: plainType) {
            out += edited[..<range.lowerBound] + escaped
            edited = edited[range.upperBound...]
        }
        out += edited
        #expect(out != bytes)
        Scratch.write(out, to: journal.path)
        #expect(RevertScan.revertedPurchases(journal: journal.path) == [])
        let (plain, _) = try StatisticsViews.read(journal: journal.path, useSnapshot: false, verifyChain: false)
        #expect(plain.totals.actors.values.contains { $0.purchases > 0 })
        let (settled, warnings) = try SettledViews.readTotals(journal: journal.path, useSnapshot: false, verifyChain: false)
        #expect(settled is StatisticsViews, "folded again with the statistics projection")
        #expect(warnings.isEmpty)
        #expect(settled as? StatisticsViews == plain)
    }

    @Test("deleted items' last names: kept with their totals, or apart for one bought only after it was deleted")
    func deletedNames() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("home.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0x5E), actor: "ana"))
        func buy(_ purchase: Int, _ item: Int, late: Bool = false) throws {
            try journal.execute(.purchaseItem(purchase: id(purchase), item: id(item), list: nil, quantity: nil, unitPrice: nil, location: nil,
                                              purchasedAt: late ? Timestamp("2020-05-01T10:00:00.000Z")! : nil))
        }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        try journal.execute(.createLocation(location: id(0x50), name: "Market", color: nil))
        for (item, name) in [(1, "Milk"), (2, "Bread"), (3, "Tea"), (4, "Soap")] {
            try journal.execute(.createItem(item: id(item), name: name, location: id(0x50), details: .init(unitPrice: 100)))
        }
        try buy(0x20, 1)
        try journal.execute(.renameItem(item: id(1), name: "Oat milk"))
        try journal.execute(.deleteItem(item: id(1)))        // bought, then deleted: its last name kept with its totals
        try journal.execute(.deleteItem(item: id(2)))        // never bought when deleted ...
        try buy(0x21, 2, late: true)                         // ... and bought late after
        try buy(0x22, 3)
        try journal.execute(.deleteItem(item: id(3)))
        try buy(0x23, 3, late: true)                         // bought before and after it was deleted
        try buy(0x24, 4)
        try journal.execute(.revertPurchase(purchase: id(0x24)))
        try journal.execute(.deleteItem(item: id(4)))        // its one purchase reverted: no totals, no row
        try journal.execute(.deleteLocation(location: id(0x50)))
        journal.close()

        let (plain, _) = try StatisticsViews.read(journal: path, useSnapshot: false)
        let settled = try #require(try SettledViews.readTotals(journal: path, useSnapshot: false).0 as? SettledViews)
        #expect(settled.settled.isSettled)
        #expect(StatsView(settled) == StatsView(plain))
        #expect(StatsView(settled).items.map(\.name) == ["Bread", "Oat milk", "Tea"])
        #expect(StatsView(settled).items.map(\.tally.purchases) == [1, 1, 2])
        #expect(StatsView(settled).locations.map(\.name) == ["Market"])
        let names = [1, 2, 3, 4].map { settled.settled.deletedName(of: id($0) as ItemID) }
        #expect(names == ["Oat milk", "Bread", "Tea", "Soap"])
        #expect(settled.settled.deletedName(of: id(0x50) as LocationID) == "Market")
        // Where each is kept: with the totals of the items that had them when deleted.
        #expect([1, 2, 3].map { settled.totals.items[id($0)]?.deletedName } == ["Oat milk", nil, "Tea"])
        #expect(settled.totals.items[id(4)] == nil && settled.totals.items == plain.totals.items)
    }
}
