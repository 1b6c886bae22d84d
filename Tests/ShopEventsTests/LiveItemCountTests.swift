import Testing
import ShopTestSupport
@testable import ShopEvents

/// The state's count of live items per location is derived from its items:
/// after every event of random histories it equals counting them again, and
/// deleting a location moves exactly the items a look through all of them finds.
@Suite struct LiveItemCountTests {
    @Test(arguments: [21, 22, 23] as [UInt64])
    func equalsCountingAgain(seed: UInt64) throws {
        var generator = RandomCommands(seed: seed)
        var state = ShopState.initial
        var seq = 0, locationsDeletedWithItems = 0
        for _ in 0..<1_500 {
            let (command, actor) = generator.nextWithActor(for: state)
            guard let events = try? ShopDecider.decide(command, state, actor: actor) else { continue }
            if case let .deleteLocation(location) = command {
                let kept = state.items.values.filter { $0.location == location && !$0.isDeleted }.map(\.id).sorted()
                #expect(events == kept.map { .itemRelocated(item: $0, location: .unknown) } + [.locationDeleted(location: location)])
                if !kept.isEmpty { locationsDeletedWithItems += 1 }
            }
            for event in events {
                seq += 1
                state.apply(event, EventContext(seq: seq, at: TestClock.start, actor: actor))
                var recount: [LocationID: Int] = [:]
                for item in state.items.values where !item.isDeleted { recount[item.location, default: 0] += 1 }
                #expect(state.liveItemCounts == recount)
            }
        }
        #expect(locationsDeletedWithItems > 0, "the histories should delete locations that still keep items")
        // Read back from a snapshot, the counts are derived again.
        var w = BinaryWriter()
        state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        #expect(try ShopState(from: &r) == state)
    }
}
