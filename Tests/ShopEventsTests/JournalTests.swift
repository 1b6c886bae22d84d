import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Journals in scratch folders with a deterministic clock and ids.
struct JournalFixture {
    let folder = Scratch.directory()
    var path: String { folder.appendingPathComponent("shop.ndjson").path }

    func open(ids: IDGenerator = .sequential(prefix: 0xE0), clock: Clock = TestClock.stepping(),
              lockTimeout: Double = 5) throws -> Journal {
        try Journal.open(path: path, options: .init(clock: clock, ids: ids, actor: "ana", device: "test", lockTimeout: lockTimeout))
    }

    /// A small household: 2 locations, 3 items, a list with entries, a purchase.
    func seeded() throws -> Journal {
        let journal = try open()
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: id(0x50), name: "Dairy", color: nil))
        try journal.execute(.createLocation(location: id(0x51), name: "Bakery", color: nil))
        try journal.execute(.createItem(item: id(1), name: "Milk", location: id(0x50), details: .init(unitPrice: 119)))
        try journal.execute(.createItem(item: id(2), name: "Bread", location: id(0x51), details: .none))
        try journal.execute(.createItem(item: id(3), name: "Käse 🧀 \"Gouda\"", location: id(0x50), details: .init(notes: "line1\nline2")))
        try journal.execute(.createList(list: id(0x10), name: "Weekly", priority: .high))
        try journal.execute(.addItemToList(list: id(0x10), item: id(1), quantity: 2))
        try journal.execute(.addItemToList(list: id(0x10), item: id(2), quantity: nil))
        try journal.execute(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil))
        try journal.execute(.deleteLocation(location: id(0x51)))
        return journal
    }

    /// Opens the journal again: it must come back at `head`, with no torn tail to cut, and verify.
    func expectReopens(at head: JournalHead, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let reopened = try open()
        defer { reopened.close() }
        #expect(reopened.head == head && reopened.recoveredTornTail == nil, sourceLocation: sourceLocation)
        #expect(try JournalVerifier.verify(path: path).ok, sourceLocation: sourceLocation)
    }

    func bytes() -> [UInt8] { Scratch.bytes(path) }
    func lines() -> [[UInt8]] { bytes().split(separator: 0x0A, omittingEmptySubsequences: false).dropLast().map(Array.init) }
    func remove() { try? FileManager.default.removeItem(at: folder) }
}

func rejectionCode(_ body: () throws -> Void) -> String? {
    do {
        try body()
        return nil
    } catch let error as any ShopError {
        return error.code
    } catch {
        return "\(error)"
    }
}

@Suite struct JournalTests {
    @Test func reopeningGivesTheSameStateHeadAndEvents() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let state = journal.state
        let head = journal.head
        #expect(head.seq == 12)
        journal.close()
        let again = try fixture.open()
        #expect(again.state == state)
        #expect(again.head == head)
        #expect(again.recoveredTornTail == nil)
        #expect(head.hash == SHA256.hash(fixture.lines().last!))
        let events = try JournalReader.readAll(path: fixture.path)
        #expect(events.map(\.seq) == Array(1...12))
        #expect(events[10].event == .itemRelocated(item: id(2), location: .unknown))
        #expect(events[10].command == events[11].command, "one command's events share its id")
        #expect(try JournalReader.readAll(path: fixture.path, from: 11).map(\.seq) == [11, 12])
    }

    @Test func writesTheExactLines() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.open()
        try journal.execute(CommandEnvelope(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"),
                                            id: id(0xC1), actor: "ana"))
        let first = String(decoding: fixture.lines()[0], as: UTF8.self)
        #expect(first == """
        {"seq":1,"id":"000000E0-0000-0000-0000-000000000001","type":"HouseholdCreated","v":1,"at":"2026-03-01T09:00:00.000Z",\
        "actor":"ana","device":"test","command":"00000000-0000-0000-0000-0000000000C1","data":{"household":"00000000-0000-0000-0000-0000000000AA",\
        "name":"Home","currency":"EUR","timeZone":"UTC"},"prev":"0000000000000000000000000000000000000000000000000000000000000000"}
        """)
    }

    @Test func aRejectedCommandLeavesTheFileByteIdentical() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let before = fixture.bytes()
        let head = journal.head
        let state = journal.state
        #expect(rejectionCode { try journal.execute(.addItemToList(list: id(0x10), item: id(2), quantity: 1)) } == "already_on_list")
        #expect(rejectionCode { try journal.execute(.createItem(item: id(9), name: "milk", location: nil, details: .none)) } == "name_taken")
        #expect(rejectionCode { try journal.execute(CommandEnvelope(.renameItem(item: id(1), name: "M"), actor: "")) } == "invalid_actor")
        #expect(fixture.bytes() == before)
        #expect(journal.head == head)
        #expect(journal.state == state)
    }

    @Test func aRetriedCommandAppendsNothingAndReportsTheFirstEvents() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let request = CommandEnvelope(.deleteItem(item: id(1)), id: id(0xD1))
        let first = try journal.execute(request)
        #expect(first.seqs == [13, 14])
        #expect(first.isRetry == false)
        let before = fixture.bytes()
        let second = try journal.execute(request)
        #expect(second == CommandOutcome(command: id(0xD1), events: first.events, isRetry: true))
        #expect(fixture.bytes() == before)
        journal.close()
        let reopened = try fixture.open()
        #expect(try reopened.execute(request).events == first.events, "retry works across reopening")
    }

    @Test func expectedSeqGuardsAgainstConcurrentChanges() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        #expect(rejectionCode { try journal.execute(CommandEnvelope(.renameItem(item: id(1), name: "Oat milk"), expectedSeq: 11)) } == "conflict")
        #expect(try journal.execute(CommandEnvelope(.renameItem(item: id(1), name: "Oat milk"), expectedSeq: 12)).seqs == [13])
    }

    @Test func timeNeverGoesBackwards() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let late = Timestamp("2030-01-01T00:00:00.000Z")!
        // A writer whose clock was at `late` wrote the first event.
        let ahead = try fixture.open(clock: Clock { late })
        try ahead.execute(CommandEnvelope(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), at: late))
        ahead.close()
        let journal = try fixture.open()
        #expect(rejectionCode { try journal.execute(CommandEnvelope(.createList(list: id(1), name: "L", priority: nil), at: late.adding(milliseconds: -1))) } == "time_out_of_order")
        // the clock (2026) is behind the last event: the event is stamped with the last time instead
        let outcome = try journal.execute(.createList(list: id(1), name: "L", priority: nil))
        #expect(outcome.events[0].at == late)
        // an `at` that far ahead of this writer's clock is refused (docs/COMMANDS.md, "The envelope")
        #expect(rejectionCode { try journal.execute(CommandEnvelope(.createList(list: id(2), name: "M", priority: nil), at: late)) } == "in_future")
    }

    @Test func aBatchSharesOneWriteAndRejectsOnlyItsBadCommands() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let results = try journal.execute(batch: [
            CommandEnvelope(.createItem(item: id(4), name: "Eggs", location: nil, details: .none)),
            CommandEnvelope(.createItem(item: id(5), name: "eggs", location: nil, details: .none)),
            CommandEnvelope(.addItemToList(list: id(0x10), item: id(4), quantity: 12)),
            CommandEnvelope(.addItemToList(list: id(0x10), item: id(4), quantity: 12)),
        ])
        #expect(results.map { (try? $0.get())?.seqs ?? [] } == [[13], [], [14], []])
        let reasons: [RuleViolation.Reason?] = results.map { result in
            if case let .failure(violation) = result { return violation.reason }
            return nil
        }
        #expect(reasons == [nil, .nameTaken, nil, .alreadyOnList])
        #expect(fixture.lines().count == 14)
    }

    @Test func everyLineCarriesTheHashOfTheOneBefore() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        _ = try fixture.seeded()
        let lines = fixture.lines()
        for (index, line) in lines.enumerated() {
            let recorded = try EventLineCodec.decode(line)
            #expect(recorded.prev == (index == 0 ? .zero : SHA256.hash(lines[index - 1])))
        }
    }

    @Test func aTornTailOfEveryLengthIsBackedUpAndCut() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        let complete = fixture.bytes()
        let state = journal.state
        let head = journal.head
        try journal.execute(.renameItem(item: id(2), name: "Sourdough"))
        journal.close()
        let full = fixture.bytes()
        let lastLine = Array(full[complete.count...])
        for cut in 1..<lastLine.count {   // every length short of the newline
            Scratch.write(complete + lastLine[0..<cut], to: fixture.path)
            let reopened = try fixture.open()
            let recovery = try #require(reopened.recoveredTornTail)
            #expect(recovery.line == 13)
            #expect(recovery.offset == complete.count)
            #expect(recovery.length == cut)
            #expect(Scratch.bytes(recovery.backupPath) == Array(lastLine[0..<cut]))
            #expect(fixture.bytes() == complete)
            #expect(reopened.state == state)
            #expect(reopened.head == head)
            reopened.close()
            try FileManager.default.removeItem(atPath: recovery.backupPath)
        }
    }

    @Test func tailsThatAreNotTornWritesAreRefused() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let complete = fixture.bytes()
        Scratch.write(complete + Array("garbage".utf8), to: fixture.path)
        let error = try #require(throws: JournalError.self) { try fixture.open() }
        #expect(error.reason == .corruptLine)
        #expect(error.line == 13)
        #expect(error.offset == complete.count)
        #expect(fixture.bytes() == complete + Array("garbage".utf8), "nothing is cut")
    }

    @Test func aFlippedByteInTheMiddleIsRefusedNamingItsLine() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let original = fixture.bytes()
        let lines = fixture.lines()
        var offsets: [Int] = []
        var offset = 0
        for line in lines { offsets.append(offset); offset += line.count + 1 }
        var rng = SplitMix64(seed: 99)
        for _ in 0..<60 {
            // In the middle: a line with two after it, so that the line after the
            // damaged one can be confirmed by its successor.
            let lineIndex = Int.random(in: 1..<(lines.count - 2), using: &rng)
            let at = offsets[lineIndex] + Int.random(in: 0..<lines[lineIndex].count, using: &rng)
            var damaged = original
            damaged[at] ^= [0x01, 0x02, 0x20, 0x40].randomElement(using: &rng)!
            Scratch.write(damaged, to: fixture.path)
            let error = try #require(throws: JournalError.self) { try fixture.open() }
            #expect(error.reason == .corruptLine)
            #expect(error.line == lineIndex + 1, "byte \(at): \(error.message)")
            #expect(error.offset.map { $0 >= offsets[lineIndex] && $0 <= offsets[lineIndex + 1] } == true, "\(error.message)")
            #expect(fixture.bytes() == damaged, "a refused journal is not changed")
        }
    }

    @Test func aMissingOrSwappedLineIsRefused() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        var lines = fixture.lines()
        lines.remove(at: 5)
        Scratch.write(Array(lines.joined(separator: [0x0A])) + [0x0A], to: fixture.path)
        #expect(try #require(throws: JournalError.self) { try fixture.open() }.line == 6)
        lines = fixture.lines()
        lines.swapAt(3, 4)
        Scratch.write(Array(lines.joined(separator: [0x0A])) + [0x0A], to: fixture.path)
        #expect(try #require(throws: JournalError.self) { try fixture.open() }.line == 4)
    }

    @Test func aSecondWriterInTheSameProcessWaitsThenFails() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let first = try fixture.seeded()
        let error = try #require(throws: JournalError.self) { try fixture.open(lockTimeout: 0.2) }
        #expect(error.reason == .locked)
        #expect(error.message.contains("process \(getpid())"))
        first.close()
        #expect(try fixture.open().head.seq == 12)
    }

    @Test func aClosedJournalRefusesCommands() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let journal = try fixture.seeded()
        journal.close()
        #expect(rejectionCode { try journal.execute(.deleteList(list: id(0x10))) } == "journal_closed")
    }

    @Test func readersStopAtTheFirstBadLineAndIgnoreAPartialLastLine() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        let complete = fixture.bytes()
        Scratch.write(complete + Array(#"{"seq":13,"#.utf8), to: fixture.path)
        let reader = try JournalReader(path: fixture.path)
        var count = 0
        while try reader.next() != nil { count += 1 }
        #expect(count == 12)
        #expect(reader.incompleteTail == 10)
        #expect(try reader.head() == JournalHead(seq: 12, hash: SHA256.hash(fixture.lines().last!)))
        #expect(throws: JournalError(.notFound, "there is no journal at /nonexistent/shop.ndjson")) {
            try JournalReader(path: "/nonexistent/shop.ndjson")
        }
    }
}

/// Random valid (and invalid) command sequences generated from the current
/// state: whatever the journal accepted is exactly what reopening it gives.
@Suite struct JournalPropertyTests {
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomHistoriesSurviveReopening(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var generator = RandomCommands(seed: seed)
        var rng = SplitMix64(seed: seed &* 31)
        var accepted: [RecordedEvent] = []
        var rejections = Set<RuleViolation.Reason>()
        var journal = try fixture.open()
        for round in 0..<60 {
            let size = Int.random(in: 1...8, using: &rng)
            var batch: [CommandEnvelope] = []
            var shadow = journal.state
            var seq = journal.head.seq
            for _ in 0..<size {
                let command = generator.next(for: shadow)
                batch.append(CommandEnvelope(command, actor: ["ana", "ben", "cleo"].randomElement(using: &rng)))
                if let events = try? ShopDecider.decide(command, shadow, actor: "ana") {
                    for event in events {
                        seq += 1
                        shadow.apply(event, EventContext(seq: seq, at: .earliest, actor: "ana"))
                    }
                }
            }
            for result in try journal.execute(batch: batch) {
                switch result {
                case let .success(outcome): accepted += outcome.events
                case let .failure(violation): rejections.insert(violation.reason)
                }
            }
            #expect(accepted.last?.seq ?? 0 == journal.head.seq)
            if round % 15 == 14 {
                let state = journal.state
                journal.close()
                journal = try fixture.open()
                #expect(journal.state == state)
            }
        }
        journal.close()
        let read = try JournalReader.readAll(path: fixture.path)
        #expect(read == accepted)
        #expect(read.map(\.seq) == Array(1...read.count))
        var folded = ShopState.initial
        for recorded in read { folded.apply(recorded) }
        #expect(try fixture.open().state == folded)
        #expect(rejections.count >= 5, "the generator exercises rejections too: \(rejections)")
    }
}

@Suite struct DescriptorTests {
    /// Refusing a damaged journal must close its descriptors once: closing a
    /// number twice closes whatever file another thread of the app opened
    /// under that number in between.
    @Test func aRefusedOpenClosesEachDescriptorOnce() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try fixture.seeded().close()
        var bytes = fixture.bytes()
        bytes[40] ^= 0x01
        Scratch.write(bytes, to: fixture.path)
        let bystander = fixture.folder.appendingPathComponent("bystander").path
        Scratch.write(Array("still here".utf8), to: bystander)
        let failures = Counter()
        let done = Counter()
        let thread = Thread {
            while done.value == 0 {
                let fd = open(bystander, O_RDONLY)
                var buffer = [UInt8](repeating: 0, count: 10)
                for _ in 0..<20 where pread(fd, &buffer, 10, 0) != 10 { failures.add() }
                close(fd)
            }
        }
        thread.start()
        for _ in 0..<300 { #expect(throws: JournalError.self) { try fixture.open() } }
        done.add()
        while !thread.isFinished { usleep(1_000) }
        #expect(failures.value == 0, "a refused open closed another thread's descriptor \(failures.value) times")
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
    func add() { lock.lock(); count += 1; lock.unlock() }
}
