import Foundation
import Testing
import ShopEvents
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
                          .addItemToList(list: list, item: item, quantity: n % 4 + 1),
                          .purchaseItem(purchase: PurchaseID(), item: item, list: list, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil),
                          .renameItem(item: item, name: "bulk \(n) ✓")].map { CommandEnvelope($0) }
            }
            _ = try journal.execute(batch: batch)
        }
    }

    static func read(_ path: String, prefetching: Bool) -> (events: [RecordedEvent], position: JournalPosition?, error: String?) {
        var events: [RecordedEvent] = []
        do {
            let reader = try JournalReader(path: path)
            _ = try reader.readToEnd(prefetching: prefetching) { events.append($0) }
            return (events, reader.position, nil)
        } catch {
            return (events, nil, error.description)
        }
    }

    @Test("the same events, position and head as one thread, over several batches", arguments: [3, 17] as [UInt64])
    func sameAsOneThread(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        try Self.journal(fixture, seed: seed, count: 7_000)
        let one = Self.read(fixture.path, prefetching: false), two = Self.read(fixture.path, prefetching: true)
        #expect(one.events.count > 2 * 2_048, "more than two batches")
        #expect(one.error == nil && two.error == nil)
        #expect(two.events == one.events)
        #expect(two.position == one.position)
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
