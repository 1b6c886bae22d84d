import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// A batch of `Journal.encodeAsideFrom` commands or more is encoded and hashed
/// on a second thread while the journal decides: it must write exactly what
/// deciding and encoding one command at a time writes.
@Suite struct EncodeAsideTests {
    @Test("a large batch, its lines encoded on a second thread, writes the bytes, outcomes, head and command records that the same commands one at a time write",
          arguments: [61, 62] as [UInt64])
    func sameAsOneAtATime(seed: UInt64) throws {
        let (aside, alone) = (JournalFixture(), JournalFixture())
        defer { aside.remove(); alone.remove() }
        let together = try aside.open(), oneByOne = try alone.open()
        var commands = RandomCommands(seed: seed)
        var repeatedEarlier: CommandEnvelope?
        var retriesSeen = 0, severalEvents = 0, rejected = 0
        for round in 0..<5 {
            // Commands drawn against the state the batch's earlier commands leave, so that most are accepted.
            var shadow = together.state, seq = together.head.seq
            var batch: [CommandEnvelope] = []
            var firstAccepted: Int?
            for index in 0..<150 {
                let command = commands.next(for: shadow)
                batch.append(CommandEnvelope(command, id: CommandID()))
                guard let events = try? ShopDecider.decide(command, shadow, actor: "ana") else { continue }
                if firstAccepted == nil { firstAccepted = index }
                for event in events {
                    seq += 1
                    shadow.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana"))
                }
            }
            // A command repeated within the batch, and one from the batch before: retries, answered from the file.
            batch.insert(batch[firstAccepted ?? 0], at: 120)
            if let repeatedEarlier { batch.insert(repeatedEarlier, at: 60) }
            #expect(batch.count >= Journal.encodeAsideFrom)
            let results = try together.execute(batch: batch)
            let accepted = results.indices.first { (try? results[$0].get())?.isRetry == false }
            repeatedEarlier = accepted.map { batch[$0] }
            var expected: [Result<CommandOutcome, RuleViolation>] = []
            for request in batch { expected += try oneByOne.execute(batch: [request]) }
            #expect(results == expected, "round \(round)")
            #expect(together.head == oneByOne.head && together.state == oneByOne.state)
            #expect(together.endPosition == oneByOne.endPosition)
            for result in results {
                switch result {
                case let .success(outcome):
                    if outcome.isRetry { retriesSeen += 1 }
                    if outcome.events.count > 1 { severalEvents += 1 }
                case .failure: rejected += 1
                }
            }
        }
        #expect(aside.bytes() == alone.bytes())
        #expect(retriesSeen >= 9 && severalEvents > 0 && rejected > 0,
                "retries (\(retriesSeen)), commands of several events (\(severalEvents)) and rejections (\(rejected)) all met")
        // Reopened, the chain (head, command records for retries) is the one the writer kept.
        let head = together.head
        together.close(); oneByOne.close()
        let reopened = try aside.open()
        defer { reopened.close() }
        #expect(reopened.head == head)
        #expect(try JournalVerifier.verify(path: aside.path).ok)
        let retry = try reopened.execute(batch: (0..<Journal.encodeAsideFrom).map { _ in repeatedEarlier! })
        let first = try retry[0].get()
        #expect(first.isRetry && retry.allSatisfy { (try? $0.get()) == first })
        #expect(reopened.head == head && aside.bytes() == alone.bytes())
    }

    @Test("all or nothing: a rejection in a large batch writes nothing and leaves the chain as it was; the next batch goes on from it")
    func allOrNothing() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let (before, head, state) = (fixture.bytes(), journal.head, journal.state)
        var batch = (0..<100).map { CommandEnvelope(.createItem(item: ItemID(), name: "Item \($0)", location: nil, details: .none)) }
        batch.append(CommandEnvelope(.createItem(item: ItemID(), name: "item 3", location: nil, details: .none)))   // the name is taken
        #expect(throws: BatchRejection.self) { try journal.execute(allOrNothing: batch) }
        #expect(fixture.bytes() == before && journal.head == head && journal.state == state)
        let outcomes = try journal.execute(allOrNothing: Array(batch.dropLast()))
        #expect(outcomes.map(\.events.count) == Array(repeating: 1, count: 100) && journal.head.seq == head.seq + 100)
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }

    @Test("a batch whose lines exceed a write chunk is written in several pieces as it is encoded: the same bytes, outcomes and head as one command at a time, and a reopen agrees")
    func writtenInPieces() throws {
        let (aside, alone) = (JournalFixture(), JournalFixture())
        defer { aside.remove(); alone.remove() }
        let together = try aside.seeded(), oneByOne = try alone.seeded()
        let start = aside.bytes().count
        #expect(alone.bytes() == aside.bytes())
        // Long names: some 650 bytes a line, so 500 of them fill more than four chunks.
        let batch = (0..<500).map { index in
            CommandEnvelope(.createItem(item: ItemID(), name: "Item \(index) " + String(repeating: "é", count: 180), location: nil, details: .none),
                            id: CommandID())
        }
        let results = try together.execute(batch: batch)
        var expected: [Result<CommandOutcome, RuleViolation>] = []
        for request in batch { expected += try oneByOne.execute(batch: [request]) }
        #expect(results == expected)
        #expect(aside.bytes().count - start > 4 * 65_536)
        #expect(aside.bytes() == alone.bytes())
        #expect(together.head == oneByOne.head && together.endPosition == oneByOne.endPosition)
        // The next batch goes on from where the pieces ended.
        let more = try together.execute(batch: [CommandEnvelope(.createList(list: ListID(), name: "Monthly", priority: .normal))]
                                          + (0..<100).map { CommandEnvelope(.createItem(item: ItemID(), name: "More \($0)", location: nil, details: .none)) })
        #expect(more.allSatisfy { (try? $0.get())?.events.count == 1 })
        let head = together.head
        together.close(); oneByOne.close()
        try aside.expectReopens(at: head)
    }

    @Test("after a reopen the injected generator repeats event ids the journal holds: a large batch (pipelined: its ids claimed on the encoding thread) replaces them exactly as one command at a time does",
          arguments: [false, true])
    func takenEventIDsAreReplacedTheSameWay(pipelined: Bool) throws {
        let (aside, alone) = (JournalFixture(), JournalFixture())
        defer { aside.remove(); alone.remove() }
        try aside.seeded().close()
        try alone.seeded().close()
        // Opened again, the sequential generator starts over at 1: the first ids it gives are taken.
        let together = try aside.open(), oneByOne = try alone.open()
        defer { together.close(); oneByOne.close() }
        let taken = Set(try JournalReader.readAll(path: aside.path).map(\.id))
        let batch = (0..<100).map { CommandEnvelope(.createItem(item: ItemID(), name: "Item \($0)", location: nil, details: .none), id: CommandID()) }
        #expect(batch.count >= Journal.encodeAsideFrom)
        var results: [Result<CommandOutcome, RuleViolation>] = []
        if pipelined {
            try together.execute(batches: [batch]) { results += $0 }
        } else {
            results = try together.execute(batch: batch)
        }
        var expected: [Result<CommandOutcome, RuleViolation>] = []
        for request in batch { expected += try oneByOne.execute(batch: [request]) }
        #expect(results == expected)
        #expect(aside.bytes() == alone.bytes())
        let ids = try results.flatMap { try $0.get().events.map(\.id) }
        #expect(Set(ids).isDisjoint(with: taken) && Set(ids).count == 100)
        let replaced = ids.filter { !$0.description.uppercased().hasPrefix("000000E0") }
        #expect(!replaced.isEmpty, "some ids were taken and replaced: \(replaced.count)")
        #expect(try JournalVerifier.verify(path: aside.path).ok)
        #expect(try JournalReader.readAll(path: aside.path).suffix(100).map(\.id) == ids)
    }
}
