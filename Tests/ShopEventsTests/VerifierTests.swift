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
