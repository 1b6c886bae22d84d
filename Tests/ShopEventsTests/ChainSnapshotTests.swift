import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Opening for writing from `<journal>.chain`: the same journal as reading it
/// all, only faster; a stale, damaged or foreign snapshot is ignored.
@Suite struct ChainSnapshotTests {
    func fullRead(_ fixture: JournalFixture) throws -> (ShopState, JournalHead) {
        let snapshot = ChainSnapshot.path(forJournal: fixture.path)
        let aside = snapshot + ".aside"
        if FileManager.default.fileExists(atPath: snapshot) { try FileManager.default.moveItem(atPath: snapshot, toPath: aside) }
        defer { try? FileManager.default.moveItem(atPath: aside, toPath: snapshot) }
        let journal = try fixture.open()
        defer { journal.close() }
        #expect(journal.startedFromSnapshot == nil)
        return (journal.state, journal.head)
    }

    @Test func openingStartsFromAGoodSnapshotAndReadsOnlyWhatFollows() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let first: CommandOutcome
        do {
            let journal = try fixture.seeded()
            first = try journal.execute(CommandEnvelope(.createList(list: id(0x11), name: "Party", priority: nil), id: id(0xC1)))
            try journal.saveSnapshot()
            try journal.execute(.renameList(list: id(0x11), name: "Big party"))
            journal.close()
        }
        let (state, head) = try fullRead(fixture)
        let journal = try fixture.open()
        #expect(journal.startedFromSnapshot == 13)
        #expect(journal.state == state)
        #expect(journal.head == head)
        // A retry of a command from before the snapshot still answers from the record.
        let retry = try journal.execute(CommandEnvelope(.createList(list: id(0x11), name: "Party", priority: nil), id: id(0xC1)))
        #expect(retry.isRetry)
        #expect(retry.events == first.events)
        try journal.execute(.deleteList(list: id(0x11)))
        journal.close()
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }

    @Test func aSnapshotThatNoLongerFitsIsIgnored() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        do {
            let journal = try fixture.seeded()
            try journal.saveSnapshot()
            journal.close()
        }
        let snapshot = ChainSnapshot.path(forJournal: fixture.path)
        let good = Scratch.bytes(snapshot)
        // Damaged: one byte changed.
        var damaged = good
        damaged[damaged.count / 2] ^= 0x40
        Scratch.write(damaged, to: snapshot)
        var journal = try fixture.open()
        #expect(journal.startedFromSnapshot == nil)
        #expect(journal.head.seq == 12)
        journal.close()
        // Foreign: another journal's snapshot.
        Scratch.write(Array("SHOPCHAN not really".utf8), to: snapshot)
        journal = try fixture.open()
        #expect(journal.startedFromSnapshot == nil)
        journal.close()
        // The journal cut back under it by a whole line: shorter than the head the snapshot
        // records, it is not written on (the lost line was acknowledged once).
        Scratch.write(good, to: snapshot)
        let lines = fixture.lines()
        let cut = lines.dropLast().flatMap { $0 + [UInt8(0x0A)] }
        Scratch.write(cut, to: fixture.path)
        #expect(throws: JournalError.self) { try fixture.open() }
        do { _ = try fixture.open() } catch let error as JournalError {
            #expect(error.code == "journal_shorter_than_known_head")
            #expect(error.message.hasPrefix("\(fixture.path) is shorter than its last known head: \(snapshot) records seq 12"))
        }
        #expect(Scratch.bytes(fixture.path) == cut)
        // A journal started anew on purpose: the snapshot moved away, it opens as any journal.
        // (Line 12 ends a two-event command: without it, opening cuts line 11 too.)
        try FileManager.default.moveItem(atPath: snapshot, toPath: snapshot + ".moved")
        journal = try fixture.open()
        #expect(journal.startedFromSnapshot == nil)
        #expect(journal.head.seq == 10)
        #expect(journal.recoveredTornTail?.commandLines == 1)
        journal.close()
    }

    /// Snapshots at random points of random histories: reopening always gives what reading it all gives.
    @Test(arguments: [5, 6] as [UInt64])
    func reopeningFromSnapshotsEqualsReadingItAll(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var generator = RandomCommands(seed: seed)
        var rng = SplitMix64(seed: seed)
        for round in 0..<6 {
            let journal = try fixture.open(ids: .sequential(prefix: UInt32(0x5A00 + round)))
            if round > 0 { #expect(journal.startedFromSnapshot != nil) }
            for _ in 0..<Int.random(in: 20...80, using: &rng) {
                _ = try? journal.execute(generator.next(for: journal.state))
            }
            if Bool.random(using: &rng) || round == 0 { try journal.saveSnapshot() }
            journal.close()
            let (state, head) = try fullRead(fixture)
            let again = try fixture.open()
            #expect(again.state == state)
            #expect(again.head == head)
            again.close()
        }
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }
}

/// Shared mode (`SharedJournal`): other writers' events are folded before each write.
@Suite struct SharedJournalTests {
    @Test func anAllOrNothingBatchRejectedAfterOthersWroteKeepsTheChain() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        do { try fixture.seeded().close() }
        let shared = try SharedJournal.open(path: fixture.path, options: .init(ids: .sequential(prefix: 0x5E), actor: "ana"))
        defer { shared.close() }
        // Another writer appends while the shared journal is open.
        let other = try fixture.open(ids: .sequential(prefix: 0x07))
        try other.execute(.createList(list: id(0x12), name: "Other", priority: nil))
        other.close()
        // A batch with a rejected command writes nothing …
        #expect(throws: BatchRejection.self) {
            _ = try shared.execute(allOrNothing: [CommandEnvelope(.createList(list: id(0x13), name: "Fine", priority: nil)),
                                                  CommandEnvelope(.createList(list: id(0x14), name: "other", priority: nil))])
        }
        #expect(shared.head.seq == 13, "the other writer's event is folded")
        // … and the next write chains onto the other writer's line.
        let next = try shared.execute(.createList(list: id(0x13), name: "Fine", priority: nil))
        #expect(next.seqs == [14])
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }
}
