import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Re-encodes events with a fresh, valid hash chain: what a careful forger would do.
func forge(_ events: [RecordedEvent]) -> [UInt8] {
    var out: [UInt8] = []
    var prev = SHA256Digest.zero
    for var event in events {
        event.prev = prev
        let line = EventLineCodec.encode(event)
        prev = SHA256.hash(line)
        out += line + [0x0A]
    }
    return out
}

@Suite struct VerifierTests {
    @Test func aJournalWrittenByTheRulesVerifies() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        var generator = RandomCommands(seed: 77)
        for _ in 0..<400 { _ = try? journal.execute(generator.next(for: journal.state)) }
        let head = journal.head
        journal.close()
        let report = try JournalVerifier.verify(path: fixture.path, expecting: head)
        #expect(report == VerificationReport(events: head.seq, head: head, failure: nil, tornTail: nil))
        let empty = fixture.folder.appendingPathComponent("empty.ndjson").path
        Scratch.write([], to: empty)
        #expect(try JournalVerifier.verify(path: empty).ok)
    }

    @Test func anEventTheRulesWouldNotMakeIsNamedEvenWithAValidChain() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        var events = try JournalReader.readAll(path: fixture.path)
        // line 9 adds Bread with quantity 1; a forger makes it 0 and re-chains everything after
        guard case let .itemAddedToList(list, item, _) = events[8].event else { Issue.record("line 9 changed"); return }
        events[8].event = .itemAddedToList(list: list, item: item, quantity: 0)
        Scratch.write(forge(events), to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.events == 8)
        #expect(report.failure?.line == 9)
        #expect(report.failure?.message.contains("invalid_quantity") == true, "\(report.failure!.message)")
    }

    @Test(arguments: [
        // the location is deleted without first relocating its item
        { (events: inout [RecordedEvent]) in events.remove(at: 10) },
        // the same item added to a list twice while it is not bought
        { (events: inout [RecordedEvent]) in events[7].event = .itemAddedToList(list: id(0x10), item: id(3), quantity: 2) },
        // a location created at a position the core would not assign
        { (events: inout [RecordedEvent]) in events[1].event = .locationCreated(location: id(0x50), name: "Dairy", position: 7, color: .grey) },
    ] as [@Sendable (inout [RecordedEvent]) -> Void])
    func illegalHistoriesAreRefused(forgery: @Sendable (inout [RecordedEvent]) -> Void) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        var events = try JournalReader.readAll(path: fixture.path)
        forgery(&events)
        for index in events.indices { events[index].seq = index + 1 }
        Scratch.write(forge(events), to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(!report.ok)
        #expect(report.failure?.message.contains("is not legal here") == true, "\(String(describing: report.failure))")
    }

    @Test func anExpectedHeadDetectsTruncationAndChange() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let head = journal.head
        journal.close()
        let lines = fixture.lines()
        Scratch.write(Array(lines.dropLast(2).joined(separator: [0x0A])) + [0x0A], to: fixture.path)
        let truncated = try JournalVerifier.verify(path: fixture.path, expecting: head)
        #expect(truncated.failure?.message.contains("truncated") == true)
        #expect(truncated.events == 10)
        var events = try JournalReader.readAll(path: fixture.path)
        events[4].actor = "mallory"
        Scratch.write(forge(events), to: fixture.path)
        let middle = JournalHead(seq: 10, hash: SHA256.hash(lines[9]))
        let changed = try JournalVerifier.verify(path: fixture.path, expecting: middle)
        #expect(changed.failure?.line == 10)
        #expect(changed.failure?.message.contains("was changed") == true)
    }

    @Test func aTornTailFailsVerification() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        Scratch.write(fixture.bytes() + Array(#"{"seq":13"#.utf8), to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.events == 12)
        #expect(report.failure?.line == 13)
        #expect(report.failure?.message.contains("torn write") == true)
        #expect(report.tornTail == VerificationReport.TornTail(line: 13, offset: fixture.bytes().count - 9, length: 9, commandLines: 0))
    }
}

/// Two rules of the chain that no forger can hide by re-chaining: an event id
/// is never used twice, and the events of one command stand together.
@Suite struct ChainIdentityTests {
    /// A journal of `count` events, read back, with `forgery` applied and a valid chain.
    private func forged(_ fixture: JournalFixture, _ forgery: (inout [RecordedEvent]) -> Void) throws -> [RecordedEvent] {
        try PrefetchTests.journal(fixture, seed: 14, count: 3_000)
        var events = try JournalReader.readAll(path: fixture.path)
        forgery(&events)
        Scratch.write(forge(events), to: fixture.path)
        return events
    }

    /// The first line at or after `from` whose command is its own (one line, neighbours of other commands).
    private func loneCommand(_ events: [RecordedEvent], from: Int) -> Int {
        (from..<(events.count - 1)).first { events[$0].command != events[$0 - 1].command && events[$0].command != events[$0 + 1].command }!
    }

    @Test("an event id used again: verify names its line on one thread and on two, and opening for writing refuses it")
    func eventIDUsedAgain() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let events = try forged(fixture) { $0[2_500].id = $0[1_200].id }
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.events == 2_500 && report.failure?.line == 2_501)
        #expect(report.failure?.message.contains("event id \(events[1_200].id) appears twice") == true, "\(String(describing: report.failure))")
        #expect(try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil) == report)
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == nil)
        #expect(rejectionCode { _ = try fixture.open() } == "corrupt_line")
    }

    @Test("a command whose events stand apart: verify names the line on one thread and on two, and opening for writing refuses it")
    func commandApart() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var line = 0, earlier: CommandID?
        _ = try forged(fixture) { events in
            line = loneCommand(events, from: 2_000)
            earlier = events[loneCommand(events, from: 1_000)].command
            events[line].command = earlier!
        }
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.events == line && report.failure?.line == line + 1)
        #expect(report.failure?.message.contains("the events of command \(earlier!) are not contiguous") == true, "\(String(describing: report.failure))")
        #expect(try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil) == report)
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == nil)
        #expect(rejectionCode { _ = try fixture.open() } == "corrupt_line")
    }

    /// An id of `kind` that is not `id` but has its fingerprint (``EntityID/fixedHash``):
    /// the second word changed, the first changed to make up for it.
    private func twin<Kind>(of id: EntityID<Kind>) -> EntityID<Kind> {
        let (a, b) = id.words
        let k: UInt64 = 0x9E37_79B9_7F4A_7C15
        let b2 = b ^ 0x5A5A_0000_0000_0001
        var words = (a ^ (b &* k) ^ (b2 &* k), b2)
        let twin = EntityID<Kind>(withUnsafeBytes(of: &words) { UUID(uuid: $0.load(as: uuid_t.self)) })
        precondition(twin != id && twin.fixedHash == id.fixedHash)
        return twin
    }

    @Test("two different ids with one fingerprint: the two-thread check looks closer, and the journal verifies")
    func fingerprintsShared() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        _ = try forged(fixture) { events in
            events[2_500].id = twin(of: events[1_200].id)
            let line = loneCommand(events, from: 2_000)
            events[line].command = twin(of: events[loneCommand(events, from: 1_000)].command)
        }
        #expect(JournalVerifier.verifyWhole(path: fixture.path, expecting: nil) == nil, "a shared fingerprint is not taken as proof")
        let report = try JournalVerifier.verify(path: fixture.path)
        let oneThread = try JournalVerifier.verifyOneThread(path: fixture.path, expecting: nil)
        #expect(report.failure == nil && report == oneThread)
        var prints = Fingerprints()
        let id = EventID()
        prints.add(id); prints.add(EventID()); prints.add(EventID())
        let distinct = prints.allDistinct()
        #expect(distinct)
        prints.add(twin(of: id))
        let stillDistinct = prints.allDistinct()
        #expect(!stillDistinct && prints.count == 4)
    }

    @Test("the fingerprints' in-place sort equals the standard library's on random, sorted, reversed, repeating and one-bucket values")
    func fingerprintSort() {
        var random = SeededRandom(seed: 77)
        for count in [0, 1, 2, 255, 256, 257, 1_000, 20_000] {
            let inputs: [[UInt64]] = [
                (0..<count).map { _ in random.next() },
                (0..<count).map { _ in random.next() % 7 },
                (0..<count).map { _ in random.next() | 0xFF00_0000_0000_0000 },
                (0..<count).map { _ in random.next() & 0x0300_FFFF_0000_0000 },
                (0..<UInt64(count)).map { $0 << 50 }, (0..<UInt64(count)).reversed().map { $0 &* 0x9E37_79B9_7F4A_7C15 },
                Array(repeating: 5, count: count),
            ]
            for input in inputs {
                var values = input
                values.withUnsafeMutableBufferPointer { Fingerprints.sortInPlace($0) }
                #expect(values == input.sorted(), "\(count) values")
            }
        }
    }
}
