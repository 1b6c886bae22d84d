import Foundation
@testable import ShopEvents
import ShopTestSupport
import Testing
@testable import ShopHub

/// The file store keeps one state a household: ``HubCore``'s fold. The writer's journal under the
/// line store checks the chain and keeps the command and event ids, and folds no state of its own;
/// a chain snapshot a `shop-replay` writer saved beside the journal is read (its state let go) and
/// never written over with an empty one.
@Suite("FileLineStore: one state a household (the driver's), none in the writer's journal")
struct FileLineStoreStateTests {
    static let household = MemoryStoreTests.household

    /// A driver and store over `folder` whose household was created and given a list (seqs 1 and 2).
    static func householdWithAList(_ folder: URL) async throws -> (HubCore<FileLineStore>, FileLineStore) {
        let (core, store) = FileLineStoreTests.driver(folder)
        #expect(try await FileLineStoreTests.push(core, [MemoryStoreTests.create, MemoryStoreTests.list(2)])
                == .results([FileLineStoreTests.ok(1, [1]), FileLineStoreTests.ok(2, [2])]))
        return (core, store)
    }

    /// The state the writer's journal under the store holds for the household.
    static func writerState(_ store: FileLineStore) async throws -> ShopState? {
        guard let lane = store.existingLane(household) else { return nil }
        return try await lane.locked { try $0.writer().journal.state }
    }

    @Test("after pushes, the driver's fold is the journal's state, the writer's journal holds none, and its head and records are the file's")
    func oneState() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (core, store) = try await Self.householdWithAList(folder)
        #expect(try await FileLineStoreTests.push(core, [MemoryStoreTests.list(3)]) == .results([FileLineStoreTests.ok(3, [3])]))
        let path = store.path(of: Self.household)
        let reopened = try Journal.open(path: path)
        let folded = reopened.state
        let head = reopened.head
        reopened.close()
        #expect(folded != ShopState.compact)
        #expect(core.heads.withLock { $0[Self.household]?.fold.state } == folded)
        #expect(try await Self.writerState(store) == ShopState.compact)
        #expect(try await store.head(of: Self.household, token: nil) == head)
        #expect(try await store.records(of: Self.household, commands: [MemoryStoreTests.id(3)])
                == [MemoryStoreTests.id(3): HubRules.CommandRecord(first: 3, count: 1, type: .createList)])
        // The stdio hub's journal over the same file still folds its state.
        let stdio = HubJournalFile(path: path)
        try stdio.lock()
        #expect(try stdio.writer().journal.state == folded)
        stdio.unlock()
    }

    @Test("a chain snapshot beside the journal: read, its state let go, never saved over; what the store appends reopens to the whole state")
    func snapshotKept() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, store) = try await Self.householdWithAList(folder)
        let path = store.path(of: Self.household)
        // A `shop-replay` writer saves a snapshot of its chain, state and all.
        let writer = try Journal.open(path: path)
        try writer.saveSnapshot()
        writer.close()
        let snapshot = Scratch.bytes(ChainSnapshot.path(forJournal: path))
        // A second store (a restarted hub) opens from that snapshot and appends.
        let (again, second) = FileLineStoreTests.driver(folder, firstID: 1_000)
        #expect(try await FileLineStoreTests.push(again, [MemoryStoreTests.list(3)]) == .results([FileLineStoreTests.ok(3, [3])]))
        #expect(try await Self.writerState(second) == ShopState.compact)
        let lane = try #require(second.existingLane(Self.household))
        try await lane.locked { try $0.writer().saveSnapshot() }
        #expect(Scratch.bytes(ChainSnapshot.path(forJournal: path)) == snapshot)
        // Opened from the snapshot, and without it: the same whole state, the driver's.
        let fromSnapshot = try Journal.open(path: path)
        #expect(fromSnapshot.startedFromSnapshot == 2)
        let state = fromSnapshot.state
        fromSnapshot.close()
        try FileManager.default.removeItem(atPath: ChainSnapshot.path(forJournal: path))
        let whole = try Journal.open(path: path)
        #expect(whole.state == state)
        #expect(whole.head.seq == 3)
        whole.close()
        #expect(again.heads.withLock { $0[Self.household]?.fold.state } == state)
    }

    @Test("lines decided elsewhere are written only if they follow the chain (seq, prev, times); else the head is said to have moved and the file is byte for byte unchanged")
    func linesThatDoNotFollowAreRefused() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, store) = try await Self.householdWithAList(folder)
        let path = store.path(of: Self.household)
        let before = Scratch.bytes(path)
        let file = HubJournalFile(path: path, keepsState: false)
        try file.lock()
        defer { file.unlock() }
        let head = file.head
        let read = try file.lockedLines(after: 0)
        guard case let .event(first) = try EventLineCodec.decodeLine(read.lines[0]) else { Issue.record("not an event"); return }
        func line(_ event: RecordedEvent) -> HubRules.Line { HubRules.Line(event: event, bytes: read.lines[0], hash: read.hashes[0]) }
        var fresh = first
        fresh.id = EventID(UUID(uuidString: "00000000-0000-0000-0000-00000000f00d")!)
        // Line 1 again under a new id: its seq is not the next one.
        #expect(try file.append([line(fresh)], expected: head, checked: []) == .headMoved(head))
        // The next seq, but `prev` not the hash of the last line.
        fresh.seq = head.seq + 1
        #expect(try file.append([line(fresh)], expected: head, checked: []) == .headMoved(head))
        // The next seq and `prev`, but earlier than the last line.
        fresh.prev = head.hash
        fresh.at = Timestamp(millisecondsSince1970: 0)
        #expect(try file.append([line(fresh)], expected: head, checked: []) == .headMoved(head))
        #expect(Scratch.bytes(path) == before)
        #expect(file.head == head)
    }
}
