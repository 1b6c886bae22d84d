import Foundation
import ShopEvents
import ShopTestSupport
import Testing
@testable import ShopHub

/// The file store's part of ``HubLineStore`` on real files: the head, the lines after a seq,
/// append-if-head-is refused on a moved head (the file byte for byte unchanged), a retry answered
/// from the command's record, and two drivers over one folder, each with a store of its own (two
/// processes: the writer's `flock` orders them).
@Suite("FileLineStore: the household journals as a line store")
struct FileLineStoreTests {
    static let start = MemoryStoreTests.start
    static let household = MemoryStoreTests.household
    static let other = HouseholdID(UUID(uuidString: "00000000-0000-0000-0000-00000000bbbb")!)

    /// A store over `folder` (made if need be) that knows the household, and a driver over it.
    static func driver(_ folder: URL, firstID: UInt64 = 1) -> (HubCore<FileLineStore>, FileLineStore) {
        let ids = IDGenerator.sequential(startingAt: firstID)
        let store = FileLineStore(folder: folder.path, options: Journal.Options(clock: Clock { start }, ids: ids, actor: "shop-hub"))
        store.know(household)
        return (HubCore(store: store, clock: Clock { start }, ids: ids), store)
    }

    static func push(_ core: HubCore<FileLineStore>, _ commands: [CommandEnvelope]) async throws -> SyncResponse {
        try await core.sync(household, .push(commands: commands), as: "ana", token: nil)
    }

    static func ok(_ id: Int, _ seqs: [Int]) -> PushResult { PushResult(command: MemoryStoreTests.id(id), seqs: seqs, error: nil) }

    /// The file's lines, checked as a chain: each `prev` the hash of the line before.
    static func chain(_ path: String) throws -> [RecordedEvent] {
        var prev = SHA256Digest.zero
        var events: [RecordedEvent] = []
        for line in Scratch.bytes(path).split(separator: 0x0A).map(Array.init) {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else { throw HubError.unavailable("not an event") }
            #expect(recorded.prev == prev)
            prev = SHA256.hash(line)
            events.append(recorded)
        }
        return events
    }

    @Test("head and lines after a seq: what was appended, each line with its hash; no line `after`: missing")
    func headAndLines() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (core, store) = Self.driver(folder)
        #expect(try await store.head(of: Self.household, token: nil) == .empty)
        #expect(try await Self.push(core, [MemoryStoreTests.create, MemoryStoreTests.list(2)]) == .results([Self.ok(1, [1]), Self.ok(2, [2])]))
        let path = store.path(of: Self.household)
        let bytes = Scratch.bytes(path)
        let lines = bytes.split(separator: 0x0A).map(Array.init)
        let head = JournalHead(seq: 2, hash: SHA256.hash(lines[1]))
        #expect(try await store.head(of: Self.household, token: nil) == head)
        let all = try await store.lines(of: Self.household, after: 0, limit: nil, token: nil)
        #expect(all.lines.map(\.seq) == [1, 2])
        #expect(all.lines.map(\.bytes) == lines)
        #expect(all.lines.map(\.hash) == lines.map { SHA256.hash($0) })
        let page = try await store.lines(of: Self.household, after: 1, limit: 11, token: nil)
        guard case let .hash(first) = page.after else { Issue.record("no hash of line 1: \(page.after)"); return }
        #expect(first == SHA256.hash(lines[0]))
        #expect(page.lines.map(\.bytes) == [lines[1]])
        #expect(page.toEnd)
        let beyond = try await store.lines(of: Self.household, after: 5, limit: 11, token: nil)
        guard case .missing = beyond.after else { Issue.record("line 5 found: \(beyond.after)"); return }
        #expect(beyond.lines.isEmpty)
        #expect(try Self.chain(path).map(\.seq) == [1, 2])
        await #expect(throws: HubError.unknownHousehold(Self.other.description)) {
            try await store.head(of: Self.other, token: nil)
        }
    }

    @Test("append-if-head-is: refused on a moved head and on a recorded command, the file byte for byte unchanged; a retry answered from its record")
    func appendIfHeadIs() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (core, store) = Self.driver(folder)
        #expect(try await Self.push(core, [MemoryStoreTests.create]) == .results([Self.ok(1, [1])]))
        let path = store.path(of: Self.household)
        let before = Scratch.bytes(path)
        let head = try await store.head(of: Self.household, token: nil)
        // Lines decided on the empty journal: its head has moved since.
        let stale = HubRules(household: Self.household).push([HubRules.Push(commands: [MemoryStoreTests.list(2)], actor: "ana")], on: HubRules.Fold(),
                                                           known: [:], now: { Self.start }, ids: .sequential(startingAt: 500))
        let moved = try await store.append([HubAppend(household: Self.household, expected: .empty, checked: [MemoryStoreTests.id(2)], decided: stale)])
        guard case let .headMoved(found)? = moved[Self.household] else { Issue.record("not refused: \(moved)"); return }
        #expect(found == head)
        #expect(Scratch.bytes(path) == before)
        // On the right head, but with a command the journal holds checked.
        let recorded = try await store.append([HubAppend(household: Self.household, expected: head, checked: [MemoryStoreTests.id(1)], decided: stale)])
        guard case .recorded? = recorded[Self.household] else { Issue.record("not refused: \(recorded)"); return }
        #expect(Scratch.bytes(path) == before)
        // A retry of the first command: answered from its record, nothing written.
        #expect(try await Self.push(core, [MemoryStoreTests.create]) == .results([Self.ok(1, [1])]))
        #expect(Scratch.bytes(path) == before)
        #expect(try await store.records(of: Self.household, commands: [MemoryStoreTests.id(1), MemoryStoreTests.id(9)])
                == [MemoryStoreTests.id(1): HubRules.CommandRecord(first: 1, count: 1, type: .createHousehold)])
        // An unknown household's part: unknown, nothing made.
        let unknown = try await store.append([HubAppend(household: Self.other, expected: .empty, decided: stale)])
        guard case .unknown? = unknown[Self.other] else { Issue.record("not unknown: \(unknown)"); return }
        #expect(!FileManager.default.fileExists(atPath: store.path(of: Self.other)))
    }

    @Test("two drivers over one folder, a store each (two processes): a moved head caught up under the writer's lock; pushes at once keep the chain")
    func twoDrivers() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (a, storeA) = Self.driver(folder)
        let (b, _) = Self.driver(folder, firstID: 1_000)
        #expect(try await Self.push(a, [MemoryStoreTests.create]) == .results([Self.ok(1, [1])]))
        #expect(try await Self.push(b, [MemoryStoreTests.list(2)]) == .results([Self.ok(2, [2])]))
        // `a` decides on its cached head (seq 1), finds seq 2, catches up and writes under the lock.
        #expect(try await Self.push(a, [MemoryStoreTests.list(3)]) == .results([Self.ok(3, [3])]))
        // b's command again, through `a`: answered from its record.
        #expect(try await Self.push(a, [MemoryStoreTests.list(2)]) == .results([Self.ok(2, [2])]))
        // Pushes through both drivers at once, from threads of the pool.
        let answers = try await withThrowingTaskGroup(of: SyncResponse.self) { group in
            for n in 4..<24 {
                group.addTask { try await Self.push(n.isMultiple(of: 2) ? a : b, [MemoryStoreTests.list(n)]) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        var seqs: [Int] = []
        for answer in answers {
            guard case let .results(results) = answer, results.count == 1, results[0].ok else { Issue.record("refused: \(answer)"); return }
            seqs += results[0].seqs
        }
        #expect(seqs.sorted() == Array(4..<24))
        let path = storeA.path(of: Self.household)
        let events = try Self.chain(path)
        #expect(events.map(\.seq) == Array(1..<24))
        #expect(Set(events.map(\.id)).count == 23)
        #expect(try JournalVerifier.verify(path: path).failure == nil)
    }

    @Test("a damaged journal is refused naming its line and byte offset; nothing is written to it")
    func damaged() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (core, store) = Self.driver(folder)
        #expect(try await Self.push(core, [MemoryStoreTests.create, MemoryStoreTests.list(2), MemoryStoreTests.list(3)])
                == .results([Self.ok(1, [1]), Self.ok(2, [2]), Self.ok(3, [3])]))
        let path = store.path(of: Self.household)
        var bytes = Scratch.bytes(path)
        let second = (bytes.firstIndex(of: 0x0A) ?? 0) + 1
        bytes[second + 1] = UInt8(ascii: "#")
        Scratch.write(bytes, to: path)
        let (fresh, _) = Self.driver(folder, firstID: 2_000)
        do {
            _ = try await Self.push(fresh, [MemoryStoreTests.list(4)])
            Issue.record("a damaged journal was written to")
        } catch let unusable as FileLineStore.Unusable {
            #expect(unusable.failure.code == "corrupt_line")
            #expect(unusable.failure.message.hasPrefix("line 2 (byte offset \(second + 1))"))
        }
        #expect(Scratch.bytes(path) == bytes)
    }

    @Test("a journal exported from the memory store imports into the file store through the driver, byte for byte; a second import is refused")
    func importExport() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (memory, ana, _) = try await MemoryStoreTests.store()
        _ = try await MemoryStoreTests.push(memory, [MemoryStoreTests.create, MemoryStoreTests.list(2), MemoryStoreTests.list(3)], token: ana)
        let bytes = try await memory.journal(Self.household)
        let (core, store) = Self.driver(folder)
        try await core.importJournal(Self.household, journal: bytes) {}
        #expect(Scratch.bytes(store.path(of: Self.household)) == bytes)
        #expect(try await core.export(Self.household) == bytes)
        #expect(try JournalVerifier.verify(path: store.path(of: Self.household)).failure == nil)
        await #expect(throws: HubError.conflict("household_exists", "household \(Self.household) has events here already")) {
            try await core.importJournal(Self.household, journal: bytes) {}
        }
        // The records came with the lines: a retry of an imported command is answered from its record.
        #expect(try await Self.push(core, [MemoryStoreTests.list(2)]) == .results([Self.ok(2, [2])]))
        #expect(Scratch.bytes(store.path(of: Self.household)) == bytes)
    }

    @Test("a pull's page on files is the stdio hub's, line for line and `more` for `more`, at every `after` and small page sizes (commands of several lines across a page's end)")
    func pullsAsTheStdioHub() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (_, store) = Self.driver(folder)
        let path = store.path(of: Self.household)
        let journal = try Journal.open(path: path, options: Journal.Options(clock: TestClock.stepping(), ids: .sequential(), actor: "ana"))
        var commands = RandomCommands(seed: 50)
        for round in 1...3 {
            for _ in 0..<100 { _ = try journal.execute(batch: [CommandEnvelope(commands.next(for: journal.state), id: CommandID())]) }
            // A location with three items, deleted: a command of four events (three relocations and the deletion).
            let location = LocationID()
            _ = try journal.execute(batch: [CommandEnvelope(.createLocation(location: location, name: "Aisle \(round)"), id: CommandID())]
                                      + (1...3).map { CommandEnvelope(.createItem(name: "Thing \(round)-\($0)", location: location), id: CommandID()) }
                                      + [CommandEnvelope(.deleteLocation(location: location), id: CommandID())])
        }
        journal.close()
        let lines = Scratch.bytes(path).split(separator: 0x0A).map(Array.init)
        let events = try lines.map { line -> RecordedEvent in
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else { throw HubError.unavailable("not an event") }
            return recorded
        }
        #expect(events.contains { ($0.commandEvents ?? 1) > 1 })
        for size in [1, 2, 3, 5] {
            let core = HubCore(store: store, linesPerPull: size)
            let hub = SyncHub(journal: path)
            hub.linesPerPull = size
            for after in 0...lines.count {
                let request = SyncRequest.pull(after: after, hash: after == 0 ? .zero : SHA256.hash(lines[after - 1]))
                #expect(try await core.sync(Self.household, request, as: "ana", token: nil) == hub.respond(to: request), "page \(size), after \(after)")
            }
        }
    }
}
