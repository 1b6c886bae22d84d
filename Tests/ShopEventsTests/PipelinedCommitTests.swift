import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// `Journal.execute(batches:acknowledge:)`: group commit with each batch's
/// `fsync` running while the next batch is decided. It must write exactly
/// what `execute(batch:)` writes batch after batch, and report a batch only
/// once it is durable.
@Suite struct PipelinedCommitTests {
    /// Batches of random commands (small ones encoded in place, large ones on
    /// the second thread), with retries from earlier batches and within one,
    /// a batch of a retry alone (no line) and an empty batch.
    static func batches(seed: UInt64, against journal: Journal) -> [[CommandEnvelope]] {
        var commands = RandomCommands(seed: seed)
        var shadow = journal.state, seq = journal.head.seq
        var batches: [[CommandEnvelope]] = []
        for size in [1, 5, 150, 0, 64, 300, 2, 90] {
            var batch: [CommandEnvelope] = []
            for _ in 0..<size {
                let command = commands.next(for: shadow)
                batch.append(CommandEnvelope(command, id: CommandID()))
                guard let events = try? ShopDecider.decide(command, shadow, actor: "ana") else { continue }
                for event in events {
                    seq += 1
                    shadow.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana"))
                }
            }
            if let earlier = batches.last?.first { batch.append(earlier) }
            if size > 3 { batch.insert(batch[1], at: size / 2) }
            batches.append(batch)
        }
        batches.insert([], at: 5)
        return batches
    }

    @Test("batches pipelined write the bytes, outcomes and head that execute(batch:) writes one batch after the other, and each is reported once its lines are in the file",
          arguments: [71, 72] as [UInt64])
    func sameAsBatchAfterBatch(seed: UInt64) throws {
        let (piped, plain) = (JournalFixture(), JournalFixture())
        defer { piped.remove(); plain.remove() }
        let pipelined = try piped.seeded(), oneByOne = try plain.seeded()
        let batches = Self.batches(seed: seed, against: pipelined)
        var reported: [[Result<CommandOutcome, RuleViolation>]] = []
        try pipelined.execute(batches: batches) { results in
            reported.append(results)
            // Every event reported is in the file, whole, with its newline.
            let lastSeq = results.compactMap { (try? $0.get())?.events.last?.seq }.max() ?? 0
            #expect(piped.lines().count >= lastSeq)
        }
        let expected = try batches.map { try oneByOne.execute(batch: $0) }
        #expect(reported == expected)
        #expect(reported.joined().contains { (try? $0.get())?.isRetry == true })
        #expect(reported.joined().contains { (try? $0.get()) == nil })
        #expect(piped.bytes() == plain.bytes())
        #expect(pipelined.head == oneByOne.head && pipelined.state == oneByOne.state && pipelined.endPosition == oneByOne.endPosition)
        // The next call, of either kind, goes on from there.
        let next = try pipelined.execute(batch: [CommandEnvelope(.createList(list: id(0x77), name: "After", priority: nil))])
        #expect(try next.count == 1 && next[0].get().events.count == 1)
        let head = pipelined.head
        pipelined.close(); oneByOne.close()
        try piped.expectReopens(at: head)
    }

    struct Stop: Error, Equatable {}

    @Test("an acknowledgement that throws stops the run: the error comes back, the batch written meanwhile is kept and durable, none after it is decided")
    func aThrowingAcknowledgementStops() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let before = journal.head.seq
        let batches = (0..<5).map { round in
            (0..<100).map { CommandEnvelope(.createItem(item: ItemID(), name: "Item \(round)-\($0)", location: nil, details: .none)) }
        }
        var calls = 0
        #expect(throws: Stop.self) {
            try journal.execute(batches: batches) { _ in
                calls += 1
                if calls == 2 { throw Stop() }
            }
        }
        // Batch 3 was decided and written while batch 2 was made durable; it is kept, unreported.
        #expect(calls == 2 && journal.head.seq == before + 300)
        let head = journal.head
        journal.close()
        try fixture.expectReopens(at: head)
    }

    @Test("in shared mode the run takes the writer's lock once and folds what another writer appended before it decides")
    func sharedMode() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let options = Journal.Options(clock: TestClock.stepping(), ids: .sequential(prefix: 0xE1), actor: "ana")
        let first = try SharedJournal.open(path: fixture.path, options: options)
        let second = try SharedJournal.open(path: fixture.path, options: Journal.Options(ids: .sequential(prefix: 0xE2), actor: "ben"))
        defer { first.close(); second.close() }
        try second.execute(.createItem(item: id(0x99), name: "Butter", location: nil, details: .none))
        var reported: [[Result<CommandOutcome, RuleViolation>]] = []
        try first.execute(batches: [[CommandEnvelope(.addItemToList(list: id(0x10), item: id(0x99), quantity: 1))]]) { reported.append($0) }
        #expect(try reported.count == 1 && reported[0][0].get().events.count == 1, "Butter, written by the other writer, is known")
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }
}
