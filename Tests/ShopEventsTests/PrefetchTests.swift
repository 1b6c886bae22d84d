import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Reading with a second thread that decodes ahead gives exactly what reading
/// on one thread gives: the same events in the same order, the same position
/// and head, and on damage the same error after the same events.
@Suite struct PrefetchTests {
    /// A random history (400 commands from the deciders), then items created,
    /// listed, bought and renamed until the journal has about `count` events.
    static func journal(_ fixture: JournalFixture, seed: UInt64, count: Int) throws {
        let journal = try fixture.open()
        defer { journal.close() }
        var commands = RandomCommands(seed: seed)
        for _ in 0..<2 {
            _ = try journal.execute(batch: (0..<200).map { _ in CommandEnvelope(commands.next(for: journal.state)) })
        }
        let list = ListID()
        try journal.execute(.createList(list: list, name: "Bulk \(seed)", priority: nil))
        var n = 0
        while journal.head.seq < count {
            var batch: [CommandEnvelope] = []
            for _ in 0..<100 {
                let item = ItemID()
                n += 1
                batch += [.createItem(item: item, name: "bulk \(n)", location: nil, details: ItemDetails(unitPrice: n % 500)),
                          .addItemToList(list: list, item: item, quantity: Quantity(n % 4 + 1)),
                          .purchaseItem(purchase: PurchaseID(), item: item, list: list, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil),
                          .renameItem(item: item, name: "bulk \(n) ✓")].map { CommandEnvelope($0) }
                // Now and then a command of two events: an item on the list deleted (removed from it, then deleted).
                if n % 37 == 0 { batch.append(CommandEnvelope(.deleteItem(item: item))) }
            }
            _ = try journal.execute(batch: batch)
        }
        // One line longer than a small chunk: the list in a new order (about 40 bytes an item).
        let order = journal.state.lists[list]!.entries.map(\.item).reversed()
        try journal.execute(.reorderList(list: list, order: Array(order)))
    }

    /// What reading gives: the events, then where the reader stands and what
    /// it found at the end, or the error.
    struct Outcome: Equatable, CustomStringConvertible {
        var events: [RecordedEvent]
        var position: JournalPosition?
        var head: JournalHead?
        var newer: Int?
        var heldBack: Int?
        var tail: [UInt8]?
        var error: String?
        var description: String {
            "\(events.count) events, position \(position.map { "\($0.seq)@\($0.offset)" } ?? "-"), newer \(newer ?? 0), held back \(heldBack ?? 0), tail \(tail?.count ?? 0), error \(error ?? "none")"
        }
    }

    static func read(_ path: String, prefetching: Bool, from seq: Int = 1, verifyChain: Bool = true, stepsFirst: Int = 0,
                     chunkSize: Int = 256 << 10, workers: Int = 2) -> Outcome {
        var events: [RecordedEvent] = []
        do {
            let reader = try JournalReader(path: path, from: seq, verifyChain: verifyChain)
            for _ in 0..<stepsFirst { if let event = try reader.next() { events.append(event) } }
            _ = try reader.readToEnd(prefetching: prefetching, chunkSize: chunkSize, workers: workers) { events.append($0) }
            return Outcome(events: events, position: reader.position, head: try reader.head(), newer: reader.newerLine?.line,
                           heldBack: reader.heldBackCommand?.line, tail: reader.trailingBytes)
        } catch {
            return Outcome(events: events, error: error.description)
        }
    }

    /// `lines` with every `prev` after line `from` (0-based) made the SHA-256 of the line before: a valid chain again.
    static func rechained(_ lines: [[UInt8]], from: Int) -> [UInt8] {
        var lines = lines
        for index in max(from, 1)..<lines.count {
            let hex = Array(SHA256.hash(lines[index - 1]).hex.utf8)
            let count = lines[index].count
            lines[index].replaceSubrange((count - 66)..<(count - 2), with: hex)
        }
        return Array(lines.joined(separator: [0x0A])) + [0x0A]
    }

    @Test("the same events, position and head as one thread, over several batches", arguments: [3, 17] as [UInt64])
    func sameAsOneThread(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try Self.journal(fixture, seed: seed, count: 7_000)
        let one = Self.read(fixture.path, prefetching: false), two = Self.read(fixture.path, prefetching: true)
        #expect(one.events.count > 2 * 2_048, "more than two batches")
        #expect(one.error == nil && two.error == nil)
        #expect(two == one)
        // Small chunks (each a few lines; the reorder line is longer than one), none to three workers,
        // reading from a later seq, after a few events read one by one, without the chain checked.
        // No worker at all: the consumer prepares every chunk itself when it finds none ready.
        for (chunkSize, workers) in [(4_096, 0), (4_096, 1), (4_096, 2), (1_000, 3), (64 << 10, 1), (64 << 10, 2)] {
            #expect(Self.read(fixture.path, prefetching: true, chunkSize: chunkSize, workers: workers) == one, "\(chunkSize) \(workers)")
            #expect(Self.read(fixture.path, prefetching: true, from: 2_345, chunkSize: chunkSize, workers: workers)
                        == Self.read(fixture.path, prefetching: false, from: 2_345))
            #expect(Self.read(fixture.path, prefetching: true, stepsFirst: 1_001, chunkSize: chunkSize, workers: workers) == one)
            #expect(Self.read(fixture.path, prefetching: true, verifyChain: false, chunkSize: chunkSize, workers: workers)
                        == Self.read(fixture.path, prefetching: false, verifyChain: false))
        }
    }

    @Test("after reading to the end the reader stands there: a reader resuming at its position reads what is written next")
    func readsOnAfterTheEnd() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try Self.journal(fixture, seed: 9, count: 3_000)
        let reader = try JournalReader(path: fixture.path)
        var events: [RecordedEvent] = []
        _ = try reader.readToEnd(prefetching: true, chunkSize: 4_096, workers: 2) { events.append($0) }
        #expect(reader.position.offset == fixture.bytes().count && reader.position.seq == events.count)
        let journal = try fixture.open()
        try journal.execute(.createItem(item: ItemID(), name: "After", location: nil, details: .none))
        journal.close()
        let later = try JournalReader(path: fixture.path, resumingAt: reader.position)
        let next = try later.next()
        #expect(next?.seq == events.count + 1 && next?.event.typeName == "ItemCreated")
        #expect(try later.next() == nil)
        #expect(try events + [try #require(next)] == JournalReader.readAll(path: fixture.path))
    }

    @Test("damage of every kind, a newer version's line, a command cut short, a torn tail: the same as one thread")
    func everyEnding() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try Self.journal(fixture, seed: 11, count: 3_000)
        let lines = fixture.lines()
        let multi = try #require(lines.indices.last { (try? EventLineCodec.decode(lines[$0]))?.commandEvents != nil },
                                 "a command of several events")
        func text(_ line: [UInt8]) -> String { String(decoding: line, as: UTF8.self) }
        func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }
        func joined(_ lines: [[UInt8]]) -> [UInt8] { Array(lines.joined(separator: [0x0A])) + [0x0A] }
        var cases: [(String, [UInt8])] = []
        var flipped = lines; flipped[1_234][flipped[1_234].count / 3] ^= 0x01
        cases.append(("a bit flipped", joined(flipped)))
        var removed = lines; removed.remove(at: 2_001)
        cases.append(("a line removed", joined(removed)))
        var swapped = lines; swapped.swapAt(1_700, 1_701)
        cases.append(("two lines swapped", joined(swapped)))
        var repeated = lines; repeated.insert(lines[900], at: 901)
        cases.append(("a line repeated", joined(repeated)))
        var changed = lines; changed[1_400] = bytes(text(lines[1_400]).replacingOccurrences(of: "\"actor\":\"", with: "\"actor\":\"x"))
        cases.append(("a line changed, the next one intact (blamed)", joined(changed)))
        var earlier = lines; earlier[1_600] = bytes(text(lines[1_600]).replacingOccurrences(of: "\"at\":\"2", with: "\"at\":\"1"))
        cases.append(("a time earlier than the line before, re-chained", Self.rechained(earlier, from: 1_601)))
        var newer = lines; newer[2_100] = bytes(text(lines[2_100]).replacingOccurrences(of: "\"v\":[12],", with: "\"v\":9,", options: .regularExpression))
        cases.append(("a newer version's line, re-chained", Self.rechained(newer, from: 2_101)))
        var strange = lines; strange[2_200] = bytes(text(lines[2_200]).replacingOccurrences(of: "\"type\":\"", with: "\"type\":\"Future"))
        cases.append(("a newer version's type, not re-chained", joined(strange)))
        cases.append(("a command cut short at the end", joined(Array(lines.prefix(multi + 1)))))
        var apart = lines; apart.remove(at: multi + 1)
        cases.append(("a command's line removed, re-chained", Self.rechained(apart, from: multi + 1)))
        cases.append(("a torn tail", joined(lines) + Array(lines[5].prefix(40))))
        cases.append(("garbage after the last newline", joined(lines) + bytes("garbage")))
        cases.append(("a line that is not JSON", joined(Array(lines.prefix(2_500)) + [bytes("not json")] + Array(lines.suffix(from: 2_500)))))
        for (name, journal) in cases {
            Scratch.write(journal, to: fixture.path)
            let one = Self.read(fixture.path, prefetching: false)
            #expect(one.error != nil || one.newer != nil || one.heldBack != nil || one.tail != nil, "\(name): \(one)")
            for (chunkSize, workers) in [(4_096, 0), (4_096, 1), (4_096, 2), (1_000, 3), (256 << 10, 1), (256 << 10, 2)] {
                let two = Self.read(fixture.path, prefetching: true, chunkSize: chunkSize, workers: workers)
                #expect(two == one, "\(name), chunks of \(chunkSize): \(two) where one thread gives \(one)")
            }
        }
    }

    @Test("damage: the same error after the same events")
    func sameFailure() throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try Self.journal(fixture, seed: 5, count: 5_000)
        var lines = fixture.lines()
        lines[4_321][lines[4_321].count / 2] ^= 0x01
        Scratch.write(Array(lines.joined(separator: [0x0A])) + [0x0A], to: fixture.path)
        let one = Self.read(fixture.path, prefetching: false), two = Self.read(fixture.path, prefetching: true)
        #expect(one.error != nil)
        #expect(two.error == one.error)
        #expect(two.events == one.events)
        #expect(one.events.count <= 4_322, "nothing after the damaged line (4,322) or the line that names it")
    }
}
