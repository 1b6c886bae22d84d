import Foundation
import ShopEvents
import Testing
@testable import ShopHub

/// ``HubCore`` over a line store that two drivers share (two processes over one store): the head
/// moved under one driver's cached fold, caught up and decided again under the household's lock;
/// a retry through the other driver answered from the command's record; a revoked token refused.
@Suite("HubCore: one driver over a line store, two drivers over one store")
struct HubCoreTests {
    static let start = Timestamp(millisecondsSince1970: 1_800_000_000_000)
    static let household = MemoryStoreTests.household
    static let ana = TokenHash(of: "ana")

    /// Two drivers over one memory store holding the household and ana's live phone.
    static func drivers() -> (HubCore<MemoryLineStore>, HubCore<MemoryLineStore>, MemoryLineStore) {
        let store = MemoryLineStore(shared: MemoryLineStore.Shared())
        store.shared.state.withLock { state in
            state.households[household] = MemoryHubState.Household(created: start)
            state.devices[ana] = DeviceRecord(household: household, name: "ana-phone", actor: "ana", tokenHash: ana, created: start)
        }
        return (HubCore(store: store, clock: Clock { start }, ids: .sequential()),
                HubCore(store: store, clock: Clock { start }, ids: .sequential(startingAt: 1_000)), store)
    }

    static func push(_ core: HubCore<MemoryLineStore>, _ commands: [CommandEnvelope], token: TokenHash? = ana) async throws -> SyncResponse {
        try await core.sync(household, .push(commands: commands), as: "ana", token: token?.hex)
    }

    static func ok(_ id: Int, _ seqs: [Int]) -> PushResult { PushResult(command: MemoryStoreTests.id(id), seqs: seqs, error: nil) }

    @Test("a head moved by the other driver: caught up, decided again under the lock; the chain holds; a retry answered from its record")
    func contended() async throws {
        let (a, b, store) = Self.drivers()
        #expect(try await Self.push(a, [MemoryStoreTests.create]) == .results([Self.ok(1, [1])]))
        #expect(try await Self.push(b, [MemoryStoreTests.list(2)]) == .results([Self.ok(2, [2])]))
        // `a` decides on its cached head (seq 1), finds seq 2, catches up and writes under the lock.
        #expect(try await Self.push(a, [MemoryStoreTests.list(3)]) == .results([Self.ok(3, [3])]))
        // A retry of b's command through `a`, which last saw the head it wrote: answered from the record.
        #expect(try await Self.push(a, [MemoryStoreTests.list(2)]) == .results([Self.ok(2, [2])]))
        let found = try await store.lines(of: Self.household, after: 0, limit: nil, token: nil)
        #expect(found.lines.map(\.seq) == [1, 2, 3])
        var prev = SHA256Digest.zero
        for line in found.lines {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line.bytes) else { Issue.record("line \(line.seq) is not an event"); return }
            #expect(recorded.prev == prev)
            #expect(SHA256.hash(line.bytes) == line.hash)
            prev = line.hash
        }
        #expect(try await b.sync(Self.household, .hello(protocol: SyncWire.protocolVersion, device: "d", actor: "ana"), as: "ana", token: nil)
                == .hello(protocol: SyncWire.protocolVersion, household: Self.household, head: JournalHead(seq: 3, hash: prev)))
    }

    @Test("a batch of two households, one of them unknown: each push its own answer; a revoked token refused, nothing written")
    func batchAndRevoked() async throws {
        let (a, _, store) = Self.drivers()
        let other = HouseholdID(UUID(uuidString: "00000000-0000-0000-0000-00000000bbbb")!)
        let answers = await a.write([HubPush(household: Self.household, commands: [MemoryStoreTests.create], actor: "ana", token: Self.ana.hex),
                                     HubPush(household: other, commands: [MemoryStoreTests.list(2)], actor: "ana")])
        #expect(try answers[0].get() == .results([Self.ok(1, [1])]))
        #expect(throws: HubError.unknownHousehold(other.description)) { try answers[1].get() }
        store.shared.state.withLock { $0.devices[Self.ana]?.revoked = Self.start }
        await #expect(throws: HubError.unknownToken) { try await Self.push(a, [MemoryStoreTests.list(2)]) }
        await #expect(throws: HubError.unknownToken) {
            try await a.sync(Self.household, .pull(after: 0, hash: .zero), as: "ana", token: Self.ana.hex)
        }
        #expect(try await store.head(of: Self.household, token: nil).seq == 1)
    }
}
