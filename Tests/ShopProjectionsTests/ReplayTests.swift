import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Every view rendered, for every list there is: what "the views are equal" means.
func renderAll(_ views: HouseholdViews) -> JSONValue {
    .array([ListsView(views).json, DeletedListsView(views).json, LocationsView(views).json,
            ItemsByNameView(views).json, ItemsByPurchaseDateView(views).json, AuditView(views).json,
            StatsView(views).json, DueView(views, now: views.asOfTime ?? .earliest).json] + renderEveryList(views))
}

/// Every list's views.
func renderEveryList(_ views: some StateFold) -> [JSONValue] {
    var out: [JSONValue] = []
    for list in views.state.lists.keys.sorted() {
        out.append(ShoppingListView(views, list: list, grouping: .byLocation)!.json)
        out.append(ShoppingListView(views, list: list, grouping: .byName)!.json)
        out.append(ListDetailView(views, list: list)!.json)
        out.append(.string(ShoppingListView.shareText(views, list: list)!))
    }
    return out
}

/// A random history written to a journal through the deciders: mostly valid
/// commands, the rejected ones simply not written.
struct RandomJournal {
    let folder = Scratch.directory()
    var path: String { folder.appendingPathComponent("shop.ndjson").path }

    func write(seed: UInt64, commands: Int, batches: Int = 1, each: (Journal) throws -> Void = { _ in }) throws {
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: TestClock.start, by: 3_600_000),
                                                                  ids: .sequential(prefix: 0xE0), actor: "ana"))
        defer { journal.close() }
        var generator = RandomCommands(seed: seed)
        var rng = SplitMix64(seed: seed)
        let perBatch = max(1, commands / batches)
        for _ in 0..<batches {
            for _ in 0..<perBatch {
                let actor = ["ana", "ben", "cleo"].randomElement(using: &rng)!
                _ = try? journal.execute(CommandEnvelope(generator.next(for: journal.state), actor: actor))
            }
            try each(journal)
        }
    }

    func cut(at seq: Int, to other: String) throws {
        let lines = Scratch.bytes(path).split(separator: 0x0A, omittingEmptySubsequences: true).prefix(seq)
        Scratch.write(Array(lines.joined(separator: [0x0A])) + (seq > 0 ? [0x0A] : []), to: other)
    }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}

@Suite struct ReplayPropertyTests {
    @Test(arguments: [21, 22, 23] as [UInt64])
    func incrementalEqualsRebuiltAtEveryPrefix(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 220)
        let events = try JournalReader.readAll(path: journal.path)
        #expect(events.count > 100)
        var incremental = HouseholdViews()
        for (index, recorded) in events.enumerated() {
            incremental.apply(recorded)
            if index % 7 == 0 || index == events.count - 1 {
                var rebuilt = HouseholdViews()
                for earlier in events[...index] { rebuilt.apply(earlier) }
                #expect(rebuilt == incremental)
                #expect(renderAll(rebuilt) == renderAll(incremental))
                var w = BinaryWriter()
                incremental.encode(to: &w)
                var r = BinaryReader(w.bytes)
                #expect(try HouseholdViews(snapshot: &r) == incremental && r.isAtEnd, "a snapshot round-trips the views")
            }
        }
    }

    @Test(arguments: [31, 32] as [UInt64])
    func followingAWriterEqualsRebuilding(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        let follower = Replayer<HouseholdViews>(path: journal.path, verifyChain: true)
        try journal.write(seed: seed, commands: 200, batches: 10) { _ in
            try follower.catchUp()
            let rebuilt = try ViewEngine.views(journal: journal.path, useSnapshot: false).0
            #expect(follower.value == rebuilt)
        }
        #expect(follower.value.asOf > 50)
    }

    @Test(arguments: [41, 42] as [UInt64])
    func asOfSeqEqualsTheJournalCutThere(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 150)
        let events = try JournalReader.readAll(path: journal.path)
        let count = events.count
        // Where a command ends: a journal cut there holds only whole commands.
        let boundaries = Set([0] + events.indices.filter { $0 == count - 1 || events[$0 + 1].command != events[$0].command }.map { $0 + 1 })
        let cut = journal.folder.appendingPathComponent("cut.ndjson").path
        var middles = 0
        for seq in 0...count where seq % max(1, count / 12) == 0 || (!boundaries.contains(seq) && middles < 3) {
            try journal.cut(at: seq, to: cut)
            let asOf = try ViewEngine.views(journal: journal.path, asOf: .seq(seq), useSnapshot: false).0
            #expect(asOf.asOf == seq)
            let (whole, warnings) = try ViewEngine.views(journal: cut, useSnapshot: false)
            if boundaries.contains(seq) {
                #expect(asOf == whole)
                #expect(renderAll(asOf) == renderAll(whole))
                #expect(warnings.isEmpty)
            } else {
                // Cut inside a command: a reader of that file leaves the unfinished command out.
                middles += 1
                let start = boundaries.filter { $0 < seq }.max()!
                #expect(whole == (try ViewEngine.views(journal: journal.path, asOf: .seq(start), useSnapshot: false).0))
                #expect(warnings.count == 1)
            }
        }
    }

    @Test func asOfTimeStopsAfterTheLastEventAtOrBeforeIt() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 5, commands: 60)
        let events = try JournalReader.readAll(path: journal.path)
        let middle = events[events.count / 2]
        let views = try ViewEngine.views(journal: journal.path, asOf: .time(middle.at), useSnapshot: false).0
        #expect(views.asOf == events.last { $0.at <= middle.at }!.seq)
    }
}

@Suite struct SnapshotTests {
    func rebuilt(_ path: String) throws -> HouseholdViews {
        try ViewEngine.views(journal: path, useSnapshot: false).0
    }

    @Test func aValidSnapshotPlusTheTailEqualsAFullRebuild() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 51, commands: 150)
        let engine = ViewEngine(journalPath: journal.path)
        try engine.refresh()
        try engine.saveSnapshot()
        let snapshotSeq = engine.views.asOf
        // more events after the snapshot
        try journal.write(seed: 52, commands: 60)
        let fresh = ViewEngine(journalPath: journal.path)
        let views = try fresh.refresh()
        #expect(fresh.snapshotSeq == snapshotSeq)
        #expect(fresh.warnings == [])
        #expect(views == (try rebuilt(journal.path)))
        #expect(renderAll(views) == renderAll(try rebuilt(journal.path)))
        // an as-of before the snapshot does not use it
        let early = ViewEngine(journalPath: journal.path)
        #expect(try early.refresh(to: .seq(10)).asOf == 10)
        #expect(early.snapshotSeq == nil)
    }

    func expectIgnored(_ journal: RandomJournal, _ why: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let engine = ViewEngine(journalPath: journal.path)
        let views = try engine.refresh()
        #expect(engine.snapshotSeq == nil, sourceLocation: sourceLocation)
        #expect(engine.warnings.count == 1, sourceLocation: sourceLocation)
        #expect(engine.warnings.first?.contains(why) == true, "\(engine.warnings)", sourceLocation: sourceLocation)
        #expect(views == (try rebuilt(journal.path)), sourceLocation: sourceLocation)
    }

    func snapshotted(seed: UInt64) throws -> RandomJournal {
        let journal = RandomJournal()
        try journal.write(seed: seed, commands: 120)
        let engine = ViewEngine(journalPath: journal.path)
        try engine.refresh()
        try engine.saveSnapshot()
        return journal
    }

    @Test func aSnapshotOfALongerJournalIsStale() throws {
        let journal = try snapshotted(seed: 61)
        defer { journal.remove() }
        let count = try JournalReader.readAll(path: journal.path).count
        try journal.cut(at: count - 5, to: journal.path)
        try expectIgnored(journal, "shorter (stale)")
    }

    @Test func aSnapshotOfAnotherJournalIsForeign() throws {
        let journal = try snapshotted(seed: 62)
        defer { journal.remove() }
        let other = RandomJournal()
        defer { other.remove() }
        try other.write(seed: 63, commands: 200)
        try FileManager.default.copyItem(atPath: ViewSnapshot.path(forJournal: journal.path),
                                         toPath: ViewSnapshot.path(forJournal: other.path))
        try expectIgnored(other, "is not the one it covers")
    }

    @Test func aTruncatedOrGarbageSnapshotIsIgnored() throws {
        let journal = try snapshotted(seed: 64)
        defer { journal.remove() }
        let path = ViewSnapshot.path(forJournal: journal.path)
        let good = Scratch.bytes(path)
        Scratch.write(Array(good.prefix(good.count / 2)), to: path)
        try expectIgnored(journal, "damaged or truncated")
        Scratch.write(Array("not a snapshot at all".utf8), to: path)
        try expectIgnored(journal, "not a ShopEvents snapshot")
        var flipped = good
        flipped[good.count / 3] ^= 0x10
        Scratch.write(flipped, to: path)
        try expectIgnored(journal, "damaged or truncated")
        Scratch.write([], to: path)
        try expectIgnored(journal, "not a ShopEvents snapshot")
    }

    @Test func deletingTheSnapshotChangesNothing() throws {
        let journal = try snapshotted(seed: 65)
        defer { journal.remove() }
        let with = try ViewEngine.views(journal: journal.path).0
        try FileManager.default.removeItem(atPath: ViewSnapshot.path(forJournal: journal.path))
        #expect(try ViewEngine.views(journal: journal.path).0 == with)
    }
}

@Suite struct FollowTests {
    /// `follow` picks up what a writer appends while it runs, and ends when told.
    @Test func followingSeesEveryBatchAsItIsWritten() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 71, commands: 10)
        let writer = Thread {
            for round in 0..<5 {
                usleep(30_000)
                try? journal.write(seed: 80 + UInt64(round), commands: 20)
            }
        }
        let follower = Replayer<HouseholdViews>(path: journal.path)
        var updates: [Int] = []
        let deadline = Date().addingTimeInterval(20)
        writer.start()
        try follower.follow(every: 0.01, while: {
            Date() < deadline && (!writer.isFinished || updates.last != (try? JournalReader.readAll(path: journal.path).count))
        }) { views in
            updates.append(views.asOf)
        }
        #expect(Date() < deadline, "follow caught up in time")
        #expect(updates.count >= 2, "\(updates)")
        #expect(updates == updates.sorted())
        #expect(follower.value == (try ViewEngine.views(journal: journal.path, useSnapshot: false).0))
    }
}

/// Folds that hold fewer projections (see `ViewFolds.swift`) render every
/// view they can be built from exactly as ``HouseholdViews`` does, at every
/// prefix, and read the same from a snapshot of any fold.
@Suite struct WithoutPurchaseHistoryTests {
    static func renderTotalsViews(_ views: some TotalsFold) -> JSONValue {
        .array([renderStateViews(views), ItemsByNameView(views).json, ItemsByPurchaseDateView(views).json, StatsView(views).json,
                DueView(views, now: views.asOfTime ?? .earliest).json])
    }

    /// A fold's snapshot bytes.
    static func saved(_ views: some SavedFold) -> [UInt8] {
        var w = BinaryWriter()
        views.encode(to: &w)
        return w.bytes
    }

    /// A fold read from snapshot bytes, which it must read to their end.
    static func read<Fold: SnapshotFold>(_ bytes: [UInt8], as _: Fold.Type) throws -> Fold {
        var r = BinaryReader(bytes)
        let views = try Fold(snapshot: &r)
        #expect(r.isAtEnd, "\(Fold.self) read the whole snapshot")
        return views
    }

    @Test("the statistics projection: the same statistics and items views as every projection, no records", arguments: [44, 45, 46] as [UInt64])
    func totals(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 400)
        let events = try JournalReader.readAll(path: journal.path)
        #expect(events.contains { if case .purchaseReverted = $0.event { true } else { false } }, "reverts are folded too")
        var full = HouseholdViews(), totals = StatisticsViews()
        // Views read back from a snapshot half-way (their purchases used where they lie in its bytes) and folded on.
        var resumed: StatisticsViews?
        for (index, recorded) in events.enumerated() {
            full.apply(recorded)
            totals.apply(recorded)
            resumed?.apply(recorded)
            if resumed == nil, index >= events.count / 2 {
                resumed = try Self.read(Self.saved(totals), as: StatisticsViews.self)
            }
            if index % 5 == 0 || index == events.count - 1 {
                #expect(totals.state == full.state)
                #expect(totals.statistics == full.statistics, "the statistics projection folds the same beside the audit's")
                #expect(totals.statistics.totals.monthTotals == full.statistics.totals.monthTotals)
                #expect(Self.renderTotalsViews(totals) == Self.renderTotalsViews(full))
                // The same from a snapshot of either fold.
                #expect(try Self.read(Self.saved(full), as: StatisticsViews.self) == totals)
                #expect(try Self.read(Self.saved(totals), as: StatisticsViews.self) == totals)
            }
        }
        #expect(!full.audit.records.isEmpty)
        #expect(resumed == totals)
        #expect(resumed.map(Self.renderTotalsViews) == Self.renderTotalsViews(totals))
        #expect(resumed.map(Self.saved) == Self.saved(totals), "a snapshot of the resumed views is the one of the views folded whole")
    }

    @Test("the statistics keep amounts beyond the spec's limits (a hand-written journal) whole: folded, reverted and through a snapshot")
    func amountsBeyondTheLimits() throws {
        let location = LocationID(), item = ItemID()
        var events: [Event] = [.householdCreated(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "UTC"),
                               .locationCreated(location: location, name: "Dairy", position: 0, color: .grey),
                               .itemCreated(item: item, name: "Milk", location: location, details: .none)]
        let amounts: [(Int, Int?)] = [(2, 150), (5_000_000_000, nil), (3, 3_000_000_000), (1, -7), (9_999, 100_000_000), (Int(Int32.min), 1), (4, nil)]
        let purchases = amounts.map { _ in PurchaseID() }
        for ((quantity, price), purchase) in zip(amounts, purchases) {
            events.append(.itemPurchased(purchase: purchase, item: item, list: nil, quantity: Quantity(quantity), unitPrice: price,
                                         location: location, purchasedAt: nil))
        }
        let reverts = [purchases[1], purchases[2], purchases[0], purchases[5], purchases[3]].map { Event.purchaseReverted(purchase: $0) }
        var full = HouseholdViews(), totals = StatisticsViews()
        var resumed: StatisticsViews?
        for (index, event) in (events + reverts).enumerated() {
            let recorded = RecordedEvent(seq: index + 1, id: EventID(), at: TestClock.start, actor: index % 2 == 0 ? "ana" : "ben",
                                         command: CommandID(), event: event, prev: .zero)
            full.apply(recorded); totals.apply(recorded); resumed?.apply(recorded)
            #expect(totals.statistics == full.statistics, "after event \(index + 1)")
            #expect(totals.totals.items == full.totals.items && totals.totals.monthTotals == full.totals.monthTotals)
            if index == events.count - 1 {
                resumed = try Self.read(Self.saved(totals), as: StatisticsViews.self)
                #expect(resumed == totals)
            }
        }
        #expect(resumed == totals)
        #expect(totals.totals.items[item] == full.totals.items[item])
        #expect(totals.totals.items[item]?.tally.purchases == 2, "two of seven purchases stand")
    }

    static func renderStateViews(_ views: some StateFold) -> JSONValue {
        .array([ListsView(views).json, DeletedListsView(views).json, LocationsView(views).json, MembersView(views).json]
               + renderEveryList(views))
    }

    @Test("the whole state and the present: the same calendar and views, none of the purchases' amounts or records", arguments: [42, 43] as [UInt64])
    func sameViews(seed: UInt64) throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 300)
        let events = try JournalReader.readAll(path: journal.path)
        #expect(events.contains { if case .itemPurchased = $0.event { true } else { false } })
        var full = HouseholdViews(), light = StateViews(), bare = PresentViews(), totals = StatisticsViews()
        var unbought = 0
        for (index, recorded) in events.enumerated() {
            if case let .purchaseReverted(purchase) = recorded.event,
               full.state.lists.values.contains(where: { $0.entries.contains { $0.purchase == purchase } }) { unbought += 1 }
            full.apply(recorded)
            light.apply(recorded)
            bare.apply(recorded)
            totals.apply(recorded)
            if index % 11 == 0 || index == events.count - 1 {
                #expect(light.state == full.state)
                #expect(light.calendar == full.calendar)
                #expect(Self.renderStateViews(light) == Self.renderStateViews(full))
                // The present: the same state but for its history, the same views.
                #expect(bare.state == PresentState(of: full.state).state && bare.state.purchases.count == 0)
                #expect(bare.calendar == full.calendar)
                #expect(Self.renderStateViews(bare) == Self.renderStateViews(full))
                // Read from a snapshot of either saved fold, the projections they do not hold passed over.
                for saved in [Self.saved(full), Self.saved(totals)] {
                    #expect(try Self.read(saved, as: StateViews.self) == light)
                    #expect(try Self.read(saved, as: PresentViews.self) == bare)
                }
            }
        }
        #expect(full.state.purchases.count > 0 && unbought > 0, "purchases, and reverts that put an entry back on the list")
        #expect(full.state.trips.count > bare.state.trips.count, "ended trips, kept only in the whole state")
        #expect(full.state.items.count > bare.state.items.count, "deleted items, kept only in the whole state")
        #expect(full.state.locations.count > bare.state.locations.count, "deleted locations, kept only in the whole state")
        #expect(bare.state.locations.values.allSatisfy { !$0.isDeleted })
    }

    @Test("without the history, a revert un-buys the entry its purchase bought and no other, on a live or a deleted list; an ended trip and a deleted item are let go")
    func revertWithoutTable() throws {
        let weekly = ListID(), party = ListID(), milk = ItemID(), bread = ItemID()
        let first = PurchaseID(), second = PurchaseID(), offList = PurchaseID(), trip = TripID(), later = TripID()
        let events: [Event] = [
            .householdCreated(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "UTC"),
            .itemCreated(item: milk, name: "Milk", location: .unknown, details: .none),
            .itemCreated(item: bread, name: "Bread", location: .unknown, details: .none),
            .listCreated(list: weekly, name: "Weekly", priority: .normal),
            .listCreated(list: party, name: "Party", priority: .normal),
            .itemAddedToList(list: weekly, item: milk, quantity: 1),
            .itemAddedToList(list: weekly, item: bread, quantity: 1),
            .itemAddedToList(list: party, item: milk, quantity: 2),
            .tripStarted(trip: trip, list: weekly),
            .itemPurchased(purchase: first, item: milk, list: weekly, quantity: 1, unitPrice: nil, location: .unknown, purchasedAt: nil),
            .itemPurchased(purchase: second, item: milk, list: party, quantity: 2, unitPrice: nil, location: .unknown, purchasedAt: nil),
            .itemPurchased(purchase: offList, item: bread, list: nil, quantity: 1, unitPrice: nil, location: .unknown, purchasedAt: nil),
            .tripEnded(trip: trip),
            .tripStarted(trip: later, list: nil),
            .listDeleted(list: party),
            .tripEnded(trip: trip),
            .purchaseReverted(purchase: offList),
            .purchaseReverted(purchase: second),
            .purchaseReverted(purchase: PurchaseID()),
            .itemRemovedFromList(list: weekly, item: bread),
            .itemDeleted(item: bread),
        ]
        var full = HouseholdViews(), bare = PresentViews()
        for (index, event) in events.enumerated() {
            let recorded = RecordedEvent(seq: index + 1, id: EventID(), at: TestClock.start, actor: "ann", command: CommandID(), event: event, prev: .zero)
            full.apply(recorded)
            bare.apply(recorded)
            #expect(bare.state == PresentState(of: full.state).state, "after event \(index + 1)")
        }
        #expect(bare.state.lists[weekly]?.entries.map(\.purchase) == [first])
        #expect(bare.state.lists[party]?.entries.map(\.purchase) == [nil])
        #expect(full.state.purchases.count == 3 && bare.state.purchases.count == 0)
        #expect(Set(full.state.trips.keys) == [trip, later] && Array(bare.state.trips.keys) == [later] && bare.state.openTrips == ["ann": later])
        #expect(full.state.items[bread]?.isDeleted == true && Array(bare.state.items.keys) == [milk])
    }

    @Test("a snapshot with or without the audit's records serves every fold that holds no more (equal to folding it); one without them is refused, with a warning, by every projection's views")
    func engine() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 43, commands: 200)
        let path = journal.path
        let present = try PresentViews.read(journal: path, useSnapshot: false).0, state = try StateViews.read(journal: path, useSnapshot: false).0
        let totals = try StatisticsViews.read(journal: path, useSnapshot: false).0, full = try ViewEngine.views(journal: path, useSnapshot: false).0
        #expect(Self.renderStateViews(present) == Self.renderStateViews(full) && Self.renderStateViews(state) == Self.renderStateViews(full))
        #expect(Self.renderTotalsViews(totals) == Self.renderTotalsViews(full))
        func check<Fold: SnapshotFold & Equatable>(_ expected: Fold, saved: String) throws {
            let folding = ViewFolding<Fold>(journalPath: path)
            #expect(try folding.refresh() == expected, "saved \(saved), read as \(Fold.self)")
            #expect(folding.snapshotSeq == full.asOf && folding.warnings.isEmpty)
        }
        for withRecords in [false, true] {
            if withRecords { try ReplicaViews.saveSnapshots(journal: path) } else { try ReplicaViews.saveSnapshotsWithoutRecords(journal: path) }
            let saved = withRecords ? "with records" : "without records"
            try check(present, saved: saved)
            try check(state, saved: saved)
            try check(totals, saved: saved)
            let engine = ViewEngine(journalPath: path)
            #expect(try engine.refresh() == full)
            if withRecords {
                #expect(engine.snapshotSeq == full.asOf && engine.warnings.isEmpty)
            } else {
                #expect(engine.snapshotSeq == nil)
                #expect(engine.warnings == ["ignored the snapshot \(engine.snapshotPath): it holds no purchase records (saved without --with-records), which these views show; the views were rebuilt from the journal"])
            }
        }
    }
}
