import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// A command is all or nothing on disk (`commandEvents`),
/// and lines written by a newer ShopEvents are never guessed at.
@Suite struct CommandIntegrityTests {
    /// A household, then a location with three items, then `DeleteLocation`:
    /// four events (three relocations, the deletion) in one command at seq 6…9.
    func journalWithFourEventCommand(_ fixture: JournalFixture) throws -> (head: JournalHead, command: CommandID) {
        let journal = try fixture.open()
        defer { journal.close() }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"))
        try journal.execute(.createLocation(location: id(0x50), name: "Dairy", color: nil))
        for n in 1...3 {
            try journal.execute(.createItem(item: id(n), name: "Item \(n)", location: id(0x50), details: .none))
        }
        let before = journal.head
        let outcome = try journal.execute(.deleteLocation(location: id(0x50)))
        #expect(outcome.seqs == [6, 7, 8, 9])
        return (before, outcome.command)
    }

    @Test func theFirstLineOfAMultiEventCommandSaysHowManyEvents() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let (_, command) = try journalWithFourEventCommand(fixture)
        let events = try JournalReader.readAll(path: fixture.path)
        #expect(events.map(\.commandEvents) == [nil, nil, nil, nil, nil, 4, nil, nil, nil])
        #expect(events.suffix(4).allSatisfy { $0.command == command })
        let line6 = String(decoding: fixture.lines()[5], as: UTF8.self)
        #expect(line6.contains(#""command":"\#(command)","commandEvents":4,"data""#), "written after command, in the journal's key order")
        #expect(!String(decoding: fixture.lines()[6], as: UTF8.self).contains("commandEvents"))
    }

    /// Cut after each of the command's lines, with and without torn bytes of
    /// the next: opening backs up exactly those lines, says so, and the next
    /// command lands where the cut command began.
    @Test(arguments: [1, 2, 3], [false, true])
    func aCommandCutShortIsCutWhole(keptLines: Int, tornBytesToo: Bool) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        let (before, command) = try journalWithFourEventCommand(fixture)
        let lines = fixture.lines()
        let prefix = lines[0..<5].flatMap { $0 + [UInt8(0x0A)] }
        let cut = lines[5..<(5 + keptLines)].flatMap { $0 + [UInt8(0x0A)] } + (tornBytesToo ? Array(lines[5 + keptLines].prefix(40)) : [])
        Scratch.write(prefix + cut, to: fixture.path)

        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.events == 5)
        #expect(report.head == before)
        #expect(report.tornTail == VerificationReport.TornTail(line: 6, offset: prefix.count, length: cut.count, commandLines: keptLines))
        #expect(report.failure?.line == 6)
        #expect(report.failure?.message.contains("declares 4 events (commandEvents) but the journal ends after \(keptLines)") == true)

        let views = try JournalReader(path: fixture.path)
        var seen: [Int] = []
        while let recorded = try views.next() { seen.append(recorded.seq) }
        #expect(seen == [1, 2, 3, 4, 5], "a reader never shows part of a command")
        #expect(views.heldBackCommand?.line == 6)
        #expect(views.position.seq == 5)

        let journal = try fixture.open()
        defer { journal.close() }
        let recovery = try #require(journal.recoveredTornTail)
        #expect(recovery == Journal.TornTailRecovery(line: 6, offset: prefix.count, length: cut.count, commandLines: keptLines,
                                                     command: command, backupPath: recovery.backupPath))
        #expect(Scratch.bytes(recovery.backupPath) == cut, "the backup holds exactly the cut bytes")
        #expect(fixture.bytes() == prefix)
        #expect(journal.head == before)
        #expect(journal.state.locations[id(0x50)]?.isDeleted == false, "the state does not hold the cut command's events")
        let next = try journal.execute(.createList(list: id(0x10), name: "Weekly", priority: nil))
        #expect(next.seqs == [6])
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
    }

    /// The same shortfall anywhere but at the end is damage, named at the command's first line.
    @Test func aShortCommandInTheMiddleIsDamage() throws {
        let lines = JournalLinesBuilder()
            .add(.householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), command: 1)
            .add(.locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey), command: 2)
            .add(.itemCreated(item: id(1), name: "Milk", location: id(0x50), details: .none), command: 3)
            .add(.itemRelocated(item: id(1), location: .unknown), command: 4, commandEvents: 3)
            .add(.locationDeleted(location: id(0x50)), command: 4)
            .add(.listCreated(list: id(0x10), name: "Weekly", priority: .normal), command: 5)
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.failure?.line == 4)
        #expect(report.failure?.offset == lines.offset(ofLine: 4))
        #expect(report.failure?.message.contains("declares 3 events (commandEvents) but only 2 follow before line 6") == true)
        #expect(report.tornTail == nil)
        #expect(rejectionCode { _ = try fixture.open() } == "corrupt_line")
        #expect(fixture.bytes() == lines.bytes, "nothing changed")
        #expect(throws: JournalError.self) { _ = try JournalReader.readAll(path: fixture.path) }
    }

    @Test func moreLinesThanDeclaredIsDamage() throws {
        let lines = JournalLinesBuilder()
            .add(.householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), command: 1)
            .add(.locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey), command: 2, commandEvents: 2)
            .add(.locationCreated(location: id(0x51), name: "Bakery", position: 2, color: .grey), command: 2)
            .add(.locationCreated(location: id(0x52), name: "Deli", position: 3, color: .grey), command: 2)
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.failure?.line == 4)
        #expect(report.failure?.message.contains("more lines than the 2 its first line declares") == true)
    }

    /// v1 journals have no `commandEvents`: a command's lines are complete as they stand.
    @Test func linesWithoutCommandEventsAreCompleteAsTheyStand() throws {
        let lines = JournalLinesBuilder()
            .add(.householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), command: 1)
            .add(.locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey), command: 2)
            .add(.itemCreated(item: id(1), name: "Milk", location: id(0x50), details: .none), command: 3)
            .add(.itemRelocated(item: id(1), location: .unknown), command: 4)
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        #expect(try JournalVerifier.verify(path: fixture.path).ok)
        let journal = try fixture.open()
        defer { journal.close() }
        #expect(journal.recoveredTornTail == nil)
        #expect(journal.head.seq == 4)
    }

    // MARK: Lines written by a newer ShopEvents

    enum Newer: CaseIterable { case unknownType, newerVersion }

    func newerLine(_ kind: Newer, _ builder: JournalLinesBuilder, command: Int) -> JournalLinesBuilder {
        switch kind {
        case .unknownType:
            builder.addRaw(type: "ItemPhotographed", version: 1, data: #"{"item":"\#(id(1) as ItemID)","photo":{"w":3}}"#, command: command)
        case .newerVersion:
            builder.addRaw(type: "ItemCreated", version: 3, data: #"{"item":"\#(id(9) as ItemID)","name":{"en":"Tea"}}"#, command: command)
        }
    }

    func household() -> JournalLinesBuilder {
        JournalLinesBuilder()
            .add(.householdCreated(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "UTC"), command: 1)
            .add(.locationCreated(location: id(0x50), name: "Dairy", position: 1, color: .grey), command: 2)
            .add(.itemCreated(item: id(1), name: "Milk", location: id(0x50), details: .none), command: 3)
    }

    @Test(arguments: Newer.allCases, [false, true])
    func aNewerLineIsNeverGuessedAt(_ kind: Newer, atTheEnd: Bool) throws {
        var lines = newerLine(kind, household(), command: 4)
        if !atTheEnd {
            lines = lines.add(.itemRenamed(item: id(1), name: "Oat milk"), command: 5)
                .add(.listCreated(list: id(0x10), name: "Weekly", priority: .normal), command: 6)
        }
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        let code = kind == .unknownType ? "unknown_event_type" : "unsupported_version"

        // Writing is refused, naming line, type and version; nothing changes.
        do {
            _ = try fixture.open()
            Issue.record("opened a journal with a line from a newer version")
        } catch let error as JournalError {
            #expect(error.code == code)
            #expect(error.line == 4)
            #expect(error.offset == lines.offset(ofLine: 4))
            #expect(error.message.contains(kind == .unknownType ? "ItemPhotographed v1" : "ItemCreated v3"))
            #expect(error.message.contains("written by a newer ShopEvents; update"))
        }
        #expect(fixture.bytes() == lines.bytes)

        // Readers stop before it.
        let reader = try JournalReader(path: fixture.path)
        var seqs: [Int] = []
        while let recorded = try reader.next() { seqs.append(recorded.seq) }
        #expect(seqs == [1, 2, 3])
        #expect(reader.newerLine?.line == 4)
        #expect(reader.newerLine?.envelope.type == (kind == .unknownType ? "ItemPhotographed" : "ItemCreated"))

        // verify checks the chain over it and the lines after it, and fails naming it.
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.failure?.code == code)
        #expect(report.failure?.line == 4)
        #expect(report.events == 3)
        #expect(report.newerLine?.line == 4)
        #expect(report.failure?.message.contains("to seq \(lines.count)") == true)
    }

    @Test func verifyChecksTheChainOverANewerLine() throws {
        // A changed line after the newer one is still found.
        var lines = newerLine(.unknownType, household(), command: 4)
            .add(.itemRenamed(item: id(1), name: "Oat milk"), command: 5)
            .add(.listCreated(list: id(0x10), name: "Weekly", priority: .normal), command: 6)
            .add(.listCreated(list: id(0x11), name: "Party", priority: .normal), command: 7)
        lines.replace(line: 5, with: Array(String(decoding: lines.line(5), as: UTF8.self).replacingOccurrences(of: "Oat milk", with: "Oat mylk").utf8))
        let fixture = JournalFixture()
        defer { fixture.remove() }
        Scratch.write(lines.bytes, to: fixture.path)
        let report = try JournalVerifier.verify(path: fixture.path)
        #expect(report.failure?.code == "corrupt_line")
        #expect(report.failure?.line == 5)
        #expect(report.failure?.message.contains("the line was changed") == true)
        #expect(rejectionCode { _ = try fixture.open() } == "corrupt_line", "writing names the damage, not the newer line")
    }
}

/// Journal lines written one by one with their hash chain, for journals no
/// writer of this version would produce (a command cut in the middle, lines
/// from a newer version).
struct JournalLinesBuilder {
    private(set) var lines: [[UInt8]] = []
    var count: Int { lines.count }
    var bytes: [UInt8] { lines.flatMap { $0 + [UInt8(0x0A)] } }

    func line(_ number: Int) -> [UInt8] { lines[number - 1] }
    func offset(ofLine number: Int) -> Int { lines[0..<(number - 1)].reduce(0) { $0 + $1.count + 1 } }
    private var prev: SHA256Digest { lines.last.map { SHA256.hash($0) } ?? .zero }
    private var at: Timestamp { TestClock.start.adding(milliseconds: Int64(lines.count) * 1000) }

    func add(_ event: Event, command: Int, commandEvents: Int? = nil, actor: String = "ana") -> JournalLinesBuilder {
        var copy = self
        let recorded = RecordedEvent(seq: lines.count + 1, id: id(0xE000 + lines.count), at: at, actor: actor,
                                     command: id(0xC000 + command), commandEvents: commandEvents, event: event, prev: prev)
        copy.lines.append(EventLineCodec.encode(recorded))
        return copy
    }

    func addRaw(type: String, version: Int, data: String, command: Int) -> JournalLinesBuilder {
        var copy = self
        let eventID: EventID = id(0xE000 + lines.count), commandID: CommandID = id(0xC000 + command)
        let text = #"{"seq":\#(lines.count + 1),"id":"\#(eventID)","type":"\#(type)","v":\#(version),"at":"\#(at)","actor":"ana","command":"\#(commandID)","data":\#(data),"prev":"\#(prev)"}"#
        copy.lines.append(Array(text.utf8))
        return copy
    }

    /// Replaces a line's bytes, leaving the chain after it as it was (damage).
    mutating func replace(line number: Int, with bytes: [UInt8]) { lines[number - 1] = bytes }
}
