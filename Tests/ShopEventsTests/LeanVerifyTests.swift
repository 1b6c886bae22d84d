import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// `verify` on two threads checks the rules against a state that keeps no
/// deleted thing but the items bought late, no ended trip, and only the
/// purchases the journal reverts
/// (``LeanVerifyFold``), and proves
/// every created id new by its fingerprint. These tests hold it to: it never
/// takes a broken journal for a whole one, and it reports a whole one as one
/// thread does.
@Suite struct LeanVerifyTests {
    /// A random history decided by the rules against the whole state.
    private static func history(seed: UInt64, steps: Int) -> [RecordedEvent] {
        var state = ShopState.initial
        var commands = RandomCommands(seed: seed)
        var events: [RecordedEvent] = []
        for step in 0..<steps {
            let command = commands.next(for: state)
            guard let decided = try? ShopDecider.decide(command, state, actor: "ana") else { continue }
            let commandID = CommandID()
            for event in decided {
                let recorded = RecordedEvent(seq: events.count + 1, id: EventID(), at: Timestamp(millisecondsSince1970: 1_700_000_000_000 + Int64(step) * 1_000),
                                             actor: "ana", command: commandID, commandEvents: decided.count > 1 ? decided.count : nil,
                                             event: event, prev: .zero)
                state.apply(recorded)
                events.append(recorded)
            }
        }
        return events
    }

    private static func reverted(_ events: [RecordedEvent]) -> Set<PurchaseID> {
        Set(events.compactMap { if case let .purchaseReverted(purchase) = $0.event { purchase } else { nil } })
    }

    /// The items bought off any list with a time of their own.
    private static func lateItems(_ events: [RecordedEvent]) -> Set<ItemID> {
        Set(events.compactMap { if case let .itemPurchased(_, item, nil, _, _, _, _?, _) = $0.event { item } else { nil } })
    }

    /// The id `command` creates, if any.
    private static func created(by command: Command) -> UUID? {
        switch command {
        case let .createHousehold(household, _, _, _): household.uuid
        case let .createLocation(location, _, _): location.uuid
        case let .createItem(item, _, _, _): item.uuid
        case let .createList(list, _, _): list.uuid
        case let .purchaseItem(purchase, _, _, _, _, _, _, _): purchase.uuid
        case let .startTrip(trip, _, _): trip.uuid
        case let .createStore(store, _): store.uuid
        default: nil
        }
    }

    /// A purchase off any list, recorded after its item was deleted, at a deleted place that was not the item's last:
    /// legal, and needs a deleted place the lean state does not keep.
    private static func isLateAtAnotherDeletedPlace(_ event: Event, _ whole: ShopState) -> Bool {
        if case let .itemPurchased(_, item, nil, _, _, location, _?, _) = event, let deleted = whole.items[item], deleted.isDeleted,
           location != deleted.location, whole.locations[location]?.isDeleted == true { return true }
        return false
    }

    @Test("on random histories, the lean state decides every command as the whole state does, except one that reuses an id or needs a deleted thing it does not keep", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func decidesAsTheWholeState(seed: UInt64) {
        let events = Self.history(seed: seed, steps: 800)
        var whole = ShopState.initial, lean = ShopState.initial
        let fold = LeanVerifyFold(keepingPurchases: Self.reverted(events), deletedItems: Self.lateItems(events))
        var candidates = RandomCommands(seed: seed &+ 1_000, ids: .sequential(prefix: 0xABCD))
        var (agreed, reusedIDs, neededDeleted, leanRefusedEvents) = (0, 0, 0, 0)
        for recorded in events {
            // Every event of the history is legal on the whole state, and on the lean one but for a late purchase at a deleted place not kept.
            #expect(throws: Never.self) { try ShopDecider.check(recorded.event, whole, actor: "ana") }
            if (try? ShopDecider.check(recorded.event, lean, actor: "ana")) == nil {
                #expect(Self.isLateAtAnotherDeletedPlace(recorded.event, whole), "\(recorded.event)")
                leanRefusedEvents += 1
            }
            // Any command: what the lean state accepts, the whole state accepts the same, unless it creates an id used before.
            var commands = [candidates.next(for: whole), candidates.next(for: whole)]
            if recorded.seq % 20 == 0 {
                // Now and then, things created with an id only the history knows.
                let dropped = whole.items.values.filter(\.isDeleted).map(\.id.uuid) + whole.locations.values.filter(\.isDeleted).map(\.id.uuid)
                    + whole.purchases.values.map(\.id.uuid) + whole.trips.values.filter { if case .ended = $0.phase { true } else { false } }.map(\.id.uuid)
                if let id = dropped.randomElement(using: &candidates.rng) {
                    commands += [.createItem(item: ItemID(id), name: "Again \(recorded.seq)", location: nil, details: ItemDetails()),
                                 .createList(list: ListID(id), name: "Again \(recorded.seq)", priority: nil)]
                }
            }
            for command in commands {
                let onWhole = try? ShopDecider.decide(command, whole, actor: "ana")
                let onLean = try? ShopDecider.decide(command, lean, actor: "ana")
                if let onLean {
                    if onLean == onWhole {
                        agreed += 1
                    } else {
                        let id = Self.created(by: command)
                        #expect(id.map(whole.isUsed) == true, "the lean state accepted \(command); the whole state: \(String(describing: onWhole))")
                        reusedIDs += 1
                    }
                } else if onWhole != nil {
                    neededDeleted += 1
                }
            }
            whole.apply(recorded)
            fold.apply(recorded, to: &lean)
        }
        // What the views and the deciders read of the present is the same.
        #expect(lean.lists == whole.lists)
        let lateItems = Self.lateItems(events)
        #expect(lean.items == whole.items.filter { !$0.value.isDeleted || lateItems.contains($0.key) })
        #expect(lean.locations == whole.locations.filter { location in
            !location.value.isDeleted || lean.items.values.contains { $0.isDeleted && $0.location == location.key }
        })
        #expect(lean.trips == whole.trips.filter { if case .ended = $0.value.phase { false } else { true } })
        #expect(lean.openTrips == whole.openTrips && lean.members == whole.members && lean.household == whole.household)
        let kept = Self.reverted(events)
        #expect(lean.purchases.count == whole.purchases.values.filter { kept.contains($0.id) }.count)
        #expect(lean.purchases.values.allSatisfy { whole.purchases[$0.id] == $0 })
        #expect(agreed > 500 && reusedIDs > 10, "agreed \(agreed), reused ids \(reusedIDs), needed a deleted thing \(neededDeleted), refused events \(leanRefusedEvents)")
    }

    /// A journal written by the rules, with reverts, deletes, ended trips and purges, read back.
    private func written(_ fixture: JournalFixture, seed: UInt64) throws -> [RecordedEvent] {
        let journal = try fixture.open()
        var commands = RandomCommands(seed: seed)
        for _ in 0..<2_000 { _ = try? journal.execute(commands.next(for: journal.state)) }
        journal.close()
        return try JournalReader.readAll(path: fixture.path)
    }

    @Test("a journal written by the rules: two threads report as one, with the lean state and the ids checked apart")
    func wholeJournals() throws {
        var lateOfDeletedSeen = 0
        for seed in [32, 33] as [UInt64] {
            let fixture = JournalFixture()
            defer { fixture.remove() }
            let events = try written(fixture, seed: seed)
            #expect(!Self.reverted(events).isEmpty && events.contains { if case .itemDeleted = $0.event { true } else { false } }
                    && events.contains { if case .tripEnded = $0.event { true } else { false } })
            let one = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil)
            #expect(one.ok && one.events == events.count)
            #expect(try JournalVerifier.verify(path: fixture.path) == one)
            // The two threads give up only where the lean state needs a deleted place it does not keep.
            var state = ShopState.initial, lateOfDeleted = 0, atAnotherDeletedPlace = false
            for recorded in events {
                if case let .itemPurchased(_, item, nil, _, _, _, _?, _) = recorded.event, state.items[item]?.isDeleted == true { lateOfDeleted += 1 }
                if Self.isLateAtAnotherDeletedPlace(recorded.event, state) { atAnotherDeletedPlace = true }
                state.apply(recorded)
            }
            #expect((JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == one) == !atAnotherDeletedPlace, "seed \(seed)")
            lateOfDeletedSeen += lateOfDeleted
        }
        #expect(lateOfDeletedSeen > 0, "the histories buy a deleted item late, which the lean state keeps for it")
    }

    @Test("an id created again that only the history knows (a deleted item or place, a purchase, an ended trip): two threads give up, one names the line")
    func idsUsedBefore() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let events = try written(fixture, seed: 41)
        try #require(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil)?.ok == true, "the journal as written verifies on two threads")
        let deletedItem = events.lazy.compactMap { if case let .itemDeleted(item) = $0.event { item } else { nil } }.first!
        let deletedLocation = events.lazy.compactMap { if case let .locationDeleted(location) = $0.event { location } else { nil } }.first!
        let reverted = Self.reverted(events)
        let purchase = events.lazy.compactMap { if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = $0.event, !reverted.contains(purchase) { purchase } else { nil } }.first!
        let endedTrip = events.lazy.compactMap { if case let .tripEnded(trip) = $0.event { trip } else { nil } }.first!
        // Each event as the rules would make it with a new id, then given the old one.
        let final = events.reduce(into: ShopState.initial) { $0.apply($1) }
        func decided(_ command: Command) throws -> Event { try #require(try ShopDecider.decide(command, final, actor: "ana").first) }
        let name = "Created again \(UUID())"
        guard case let .itemCreated(_, itemName, location, details) = try decided(.createItem(item: ItemID(), name: name, location: nil, details: ItemDetails())),
              case let .locationCreated(_, locationName, position, color) = try decided(.createLocation(location: LocationID(), name: name, color: nil)),
              case let .listCreated(_, listName, priority) = try decided(.createList(list: ListID(), name: name, priority: nil)) else {
            Issue.record("the rules made other events")
            return
        }
        let forgeries: [(String, Event)] = [
            ("a deleted item's id", .itemCreated(item: deletedItem, name: itemName, location: location, details: details)),
            ("a purchase's id, for an item", .itemCreated(item: ItemID(purchase.uuid), name: itemName, location: location, details: details)),
            ("a deleted location's id", .locationCreated(location: deletedLocation, name: locationName, position: position, color: color)),
            ("an ended trip's id, for a list", .listCreated(list: ListID(endedTrip.uuid), name: listName, priority: priority)),
        ]
        for (what, event) in forgeries {
            var forged = events
            let last = forged.last!
            forged.append(RecordedEvent(seq: last.seq + 1, id: EventID(), at: last.at, actor: last.actor, command: CommandID(), event: event, prev: .zero))
            Scratch.write(forge(forged), to: fixture.path)
            #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == nil, "\(what)")
            let report = try JournalVerifier.verify(path: fixture.path)
            #expect(report.events == events.count && report.failure?.line == forged.count, "\(what): \(String(describing: report.failure))")
            #expect(report.failure?.message.contains("id_in_use") == true, "\(what): \(String(describing: report.failure))")
        }
    }
}

/// The fingerprints a run at a time: written runs merged with the one in memory.
@Suite struct FingerprintRunsTests {
    private func ids(_ count: Int, _ random: inout SeededRandom) -> [EventID] {
        (0..<count).map { _ in
            var words = (random.next(), random.next())
            return EventID(withUnsafeBytes(of: &words) { UUID(uuid: $0.load(as: uuid_t.self)) })
        }
    }

    @Test("a repeat found wherever it is — in one run, in two runs, in a run and in memory — and none where there is none")
    func repeats() {
        var random = SeededRandom(seed: 5)
        for (count, runLength) in [(0, 4), (1, 4), (10, 4), (1_000, 7), (5_000, 512), (5_000, 100_000), (20_000, 1_000)] {
            let distinct = ids(count, &random)
            var prints = Fingerprints(runLength: runLength)
            for id in distinct { prints.add(id) }
            #expect(prints.count == count)
            #expect(prints.runsWritten == (runLength >= count ? 0 : count / runLength), "\(count) / \(runLength)")
            let allDistinct = prints.allDistinct()
            #expect(allDistinct, "\(count) / \(runLength)")
            guard count >= 2 else { continue }
            // The first id again at the end (its run and memory, or one run), and the middle one next to itself.
            for (first, second) in [(0, count - 1), (count / 2, count / 2 + 1), (count - 2, count - 1), (0, 1)] {
                var order = distinct
                order[second] = order[first]
                var prints = Fingerprints(runLength: runLength)
                for id in order { prints.add(id) }
                let found = !prints.allDistinct()
                #expect(found, "\(count) / \(runLength): \(first) and \(second)")
            }
        }
    }

    @Test("the scratch file is never seen in its directory: made without a name, or unlinked as soon as it is made")
    func scratchUnlinked() throws {
        let directory = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var random = SeededRandom(seed: 7)
        let some = ids(1_000, &random)
        // Made in the directory and unlinked, or made there without a name (Linux), or (elsewhere) the first.
        for unnamed in [nil, directory.path] {
            var prints = Fingerprints(runLength: 100, unnamedIn: unnamed, directory: directory.path)
            for id in some { prints.add(id) }
            #expect(prints.runsWritten == 10)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == [])
            let distinct = prints.allDistinct()
            prints.add(some[500])
            let repeated = !prints.allDistinct()
            #expect(distinct && repeated)
        }
    }

    @Test("asked twice, and after more are added; where no scratch file can be made, all are kept in memory")
    func againAndWithoutAFile() {
        var random = SeededRandom(seed: 6)
        let some = ids(3_000, &random)
        for directory in [nil, "/nonexistent-\(UUID())"] as [String?] {
            var prints = Fingerprints(runLength: 256, directory: directory)
            for id in some.dropLast() { prints.add(id) }
            #expect(prints.runsWritten == (directory == nil ? 11 : 0))
            let first = prints.allDistinct(), again = prints.allDistinct()
            #expect(first && again)
            prints.add(some.last!)
            let stillDistinct = prints.allDistinct()
            prints.add(some[1_000])
            let repeated = !prints.allDistinct()
            #expect(stillDistinct && repeated && prints.count == 3_001)
        }
    }
}
