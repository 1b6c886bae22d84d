import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// The id index answers as an array and a set together would, across chunks
/// and growth; the command table as a dictionary would.
@Suite struct IDIndexTests {
    @Test("40,000 ids, some added twice: positions, membership and order as an array and a set give them")
    func likeAnArrayAndASet() {
        var random = SeededRandom(seed: 11)
        var index = IDIndex<EventKind>()
        var order: [EventID] = [], positions: [EventID: Int] = [:]
        for _ in 0..<40_000 {
            let id = (order.isEmpty || Int.random(in: 0..<10, using: &random) > 0) ? EventID() : order.randomElement(using: &random)!
            let (inserted, position) = index.insert(id)
            #expect(inserted == (positions[id] == nil))
            if inserted { positions[id] = order.count; order.append(id) }
            #expect(position == positions[id] && index[position] == id)
        }
        #expect(index.count == order.count && Array(index.ids) == order)
        for (position, id) in order.enumerated() where position % 97 == 0 { #expect(index.position(of: id) == position) }
        #expect(!index.contains(EventID()))
        var copy = index
        #expect(copy == index)
        copy.insert(EventID())
        #expect(copy != index && copy.count == index.count + 1)
    }

    @Test("the command table: records found, changed and kept in the order first seen")
    func commandTable() {
        var table = CommandTable(), reference: [CommandID: CommandRecord] = [:], order: [CommandID] = []
        for seq in 1...20_000 {
            let id = CommandID()
            table[id] = CommandRecord(firstSeq: seq, count: 1, offset: seq * 100)
            reference[id] = CommandRecord(firstSeq: seq, count: 1, offset: seq * 100)
            order.append(id)
            if seq % 3 == 0 { table[id]?.count += 2; reference[id]?.count += 2 }
        }
        #expect(table.count == 20_000)
        for id in order { #expect(table[id] == reference[id]) }
        #expect(table[CommandID()] == nil)
        #expect(table.all.map(\.id) == order && table.all.map(\.record) == order.map { reference[$0]! })
    }
}
