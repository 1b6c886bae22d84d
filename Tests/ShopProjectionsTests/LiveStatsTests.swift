import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Statistics updated row by row equal statistics rebuilt, after every event.
@Suite struct LiveStatsTests {
    @Test("after every event of random histories, on every projection and on the statistics projection alone", arguments: [51, 52, 53] as [UInt64])
    func equalsRebuilding(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 600)
        let events = try JournalReader.readAll(path: journal.path)
        func kinds(_ predicate: (Event) -> Bool) -> Int { events.filter { predicate($0.event) }.count }
        #expect(kinds { if case .purchaseReverted = $0 { true } else { false } } > 0, "reverts")
        #expect(kinds { if case .itemRenamed = $0 { true } else { false } } > 0, "renames")
        #expect(kinds { if case .tripEnded = $0 { true } else { false } } > 0, "ended trips")
        func check<Fold: StatisticsFold>(_ empty: Fold) {
            var views = empty
            var live = LiveStats(views)
            for recorded in events {
                views.apply(recorded)
                live.update(after: recorded, in: views)
                let rebuilt = StatsView(views)
                #expect(live.view == rebuilt, "after seq \(recorded.seq) (\(recorded.event.typeName)) in \(Fold.self)")
                if live.view != rebuilt { return }
            }
            #expect(!live.view.items.isEmpty && !live.view.locations.isEmpty && live.view.trips.count > 0)
        }
        check(HouseholdViews())
        check(StatisticsViews())
    }

    @Test("started from views part-way, then updated: the same as rebuilt")
    func startedPartWay() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 54, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        var views = HouseholdViews()
        for recorded in events.prefix(events.count / 2) { views.apply(recorded) }
        var live = LiveStats(views)
        for recorded in events.dropFirst(events.count / 2) {
            views.apply(recorded)
            live.update(after: recorded, in: views)
        }
        #expect(live.view == StatsView(views))
    }
}
