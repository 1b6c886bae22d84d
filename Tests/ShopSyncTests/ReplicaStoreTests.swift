import Foundation
import Testing
import ShopEvents
import ShopTestSupport

/// A replica in an app: ReplicaStore executes into the outbox from several
/// tasks, syncs with a `shop-replay hub` process, and streams what sync brings.
@Suite("Sync: ReplicaStore")
struct ReplicaStoreTests {
    @Test("two tasks execute at once into the outbox; sync sends them; events(after:) delivers what sync appended; ShopStore refuses a replica")
    func replicaStore() async throws {
        let world = SyncWorld()
        let hub = try world.makeHub(items: ["Milk", "Eggs"], onList: [], members: [("ana", .owner)])
        try world.clone("a", actor: "ana")
        let list = hub.lists.values.first!.id
        let items = hub.items.values.map(\.id).sorted()
        let phone = try await ReplicaStore(path: world.path("a"), options: .init(actor: "ana"))
        let start = await phone.head.seq
        async let first = phone.execute(.addItemToList(list: list, item: items[0], quantity: 1))
        async let second = phone.execute(.addItemToList(list: list, item: items[1], quantity: 2))
        let outcomes = try await [first, second]
        #expect(outcomes.allSatisfy { $0.isPending })
        #expect(await phone.pending.count == 2)
        let entries = await phone.state.lists[list]?.entries.count
        #expect(entries == 2, "the optimistic state has both")
        let optimistic = await phone.state
        #expect(try Replica(path: world.path("a")).state == optimistic)

        let stream = Task {
            var seen: [CommandID] = []
            for try await recorded in phone.events(after: start) {
                seen.append(recorded.command)
                if seen.count == 2 { break }
            }
            return seen
        }
        let transport = try ProcessTransport(command: "'\(ToolRunner.binary)' hub --journal '\(world.hub)'")
        let report = try await phone.sync(over: transport)
        transport.close()
        #expect(report.accepted == 2 && report.pending == 0)
        #expect(await phone.pending.isEmpty)
        let streamed = try await stream.value
        #expect(Set(streamed) == Set(outcomes.map(\.command)))
        #expect(Scratch.bytes(world.path("a")) == Scratch.bytes(world.hub))
        let synced = await phone.state
        #expect(try world.hubState() == synced)

        await #expect(throws: JournalError.self) { _ = try await ShopStore(path: world.path("a")) }
        do { _ = try await ShopStore(path: world.path("a")) } catch let error as JournalError { #expect(error.reason == .replica) }
    }
}
