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

    @Test("ids in a Dictionary: sequential ids spread evenly, and the seed decides which ids share a bucket")
    func rawHashValue() {
        // Ids such as the bench writes: one counter in the last bytes.
        let ids = (0..<8_192).map { EventID(UUID(uuidString: String(format: "BE4D0000-0000-0000-0000-%012X", $0 * 7))!) }
        var buckets = [Int](repeating: 0, count: 1_024)
        for id in ids { buckets[id._rawHashValue(seed: 42) & 1_023] += 1 }
        // 8 a bucket on average; a fair hash puts at most about 25 in any of them.
        #expect(buckets.max()! <= 25 && buckets.filter { $0 == 0 }.count < 20)
        // Pairs that share a bucket under one seed mostly do not under another.
        var first: [Int: EventID] = [:], pairs = 0, stillTogether = 0
        for id in ids {
            if let other = first[id._rawHashValue(seed: 1) & 1_023] {
                pairs += 1
                if id._rawHashValue(seed: 2) & 1_023 == other._rawHashValue(seed: 2) & 1_023 { stillTogether += 1 }
            } else {
                first[id._rawHashValue(seed: 1) & 1_023] = id
            }
        }
        #expect(pairs > 1_000 && stillTogether * 50 < pairs)
        // And a dictionary keyed by them works as it must.
        var positions: [EventID: Int] = [:]
        for (n, id) in ids.enumerated() { positions[id] = n }
        #expect(positions.count == ids.count && ids.enumerated().allSatisfy { positions[$1] == $0 })
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
        // insert gives a new command's position and refuses a known one; addEvent counts at a position.
        let extra = CommandID()
        let position = table.insert(extra, CommandRecord(firstSeq: 20_001, count: 1, offset: 7))
        #expect(position == 20_000 && table.position(of: extra) == 20_000)
        #expect(table.insert(order[5], CommandRecord(firstSeq: 1, count: 1, offset: 0)) == nil && table[order[5]] == reference[order[5]])
        table.addEvent(at: 20_000)
        table.addEvent(at: 20_000)
        #expect(table[extra] == CommandRecord(firstSeq: 20_001, count: 3, offset: 7))
        reference[extra] = CommandRecord(firstSeq: 20_001, count: 3, offset: 7)
        order.append(extra)
        #expect(table.count == 20_001)
        for id in order { #expect(table[id] == reference[id]) }
        #expect(table[CommandID()] == nil)
        #expect(table.all.map(\.id) == order && table.all.map(\.record) == order.map { reference[$0]! })
    }
}
