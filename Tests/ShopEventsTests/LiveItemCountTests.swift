import Testing
import ShopTestSupport
@testable import ShopEvents

/// The state's live items per location and its live locations are derived
/// from its items and locations: after every event of random histories they
/// equal finding them again among all of them; deleting a location moves
/// exactly the items a look through all of them finds, and a new location
/// comes after the last live one a look through all of them finds.
@Suite struct LiveItemCountTests {
    @Test(arguments: [21, 22, 23] as [UInt64])
    func equalsCountingAgain(seed: UInt64) throws {
        var generator = RandomCommands(seed: seed)
        var state = ShopState.initial
        var seq = 0, locationsDeletedWithItems = 0, newLocationsAfterADelete = 0
        for _ in 0..<1_500 {
            let (command, actor) = generator.nextWithActor(for: state)
            guard let events = try? ShopDecider.decide(command, state, actor: actor) else { continue }
            if case let .deleteLocation(location) = command {
                let kept = state.items.values.filter { $0.location == location && !$0.isDeleted }.map(\.id).sorted()
                #expect(events == kept.map { .itemRelocated(item: $0, location: .unknown) } + [.locationDeleted(location: location)])
                if !kept.isEmpty { locationsDeletedWithItems += 1 }
            }
            if case let .createLocation(location, _, _) = command {
                let last = state.locations.values.filter { !$0.isDeleted && $0.id != .unknown }.map(\.position).max() ?? 0
                guard case let .locationCreated(created, _, position, _) = events.first else { Issue.record("\(events)"); continue }
                #expect(created == location && position == last + 1)
                if state.locations.values.contains(where: \.isDeleted) { newLocationsAfterADelete += 1 }
            }
            for event in events {
                seq += 1
                state.apply(event, EventContext(seq: seq, at: TestClock.start, actor: actor))
                var recount: [LocationID: Set<ItemID>] = [:]
                for item in state.items.values where !item.isDeleted { recount[item.location, default: []].insert(item.id) }
                #expect(state.liveItemsAt == recount)
                #expect(state.liveLocationIDs == Set(state.locations.values.filter { !$0.isDeleted && $0.id != .unknown }.map(\.id)))
            }
        }
        #expect(locationsDeletedWithItems > 0, "the histories should delete locations that still keep items")
        #expect(newLocationsAfterADelete > 0, "the histories should create locations after deleting some")
        // Read back from a snapshot, they are derived again.
        var w = BinaryWriter()
        state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        #expect(try ShopState(from: &r) == state)
    }
}
