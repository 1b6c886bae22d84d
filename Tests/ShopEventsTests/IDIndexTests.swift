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

    @Test("an index read back where it lies, then added to, equals one built whole: same lookups, same bytes again")
    func storedAndAddedTo() throws {
        var random = SeededRandom(seed: 12)
        let ids = (0..<30_000).map { _ in EventID() }
        for cut in [0, 1, 11, 12, 13, 9_000, 30_000] {
            var whole = IDIndex<EventKind>()
            for id in ids { whole.insert(id) }
            var first = IDIndex<EventKind>()
            for id in ids[..<cut] { first.insert(id) }
            var w = BinaryWriter()
            first.encode(to: &w)
            var r = BinaryReader(w.bytes)
            var read = try IDIndex<EventKind>(from: &r)
            #expect(r.isAtEnd && read == first)
            for id in ids[cut...] { #expect(read.insert(id).inserted) }
            for id in ids.shuffled(using: &random).prefix(500) { #expect(read.insert(id) == (false, whole.position(of: id)!)) }
            #expect(read == whole && read.count == 30_000 && !read.contains(EventID()))
            for position in stride(from: 0, to: 30_000, by: 37) { #expect(read.position(of: ids[position]) == position && read[position] == ids[position]) }
            var again = BinaryWriter(), fresh = BinaryWriter()
            read.encode(to: &again)
            whole.encode(to: &fresh)
            #expect(again.bytes == fresh.bytes)
        }
    }

    @Test("a stored index with a wrong bucket count, a bucket naming no id, a bad tag or a missing id is refused")
    func damagedIndex() throws {
        var index = IDIndex<CommandKind>()
        for _ in 0..<100 { index.insert(CommandID()) }
        var w = BinaryWriter()
        index.encode(to: &w)
        let good = w.bytes
        let capacityAt = 8 + 100 * 16, slotsAt = capacityAt + 8, tagsAt = slotsAt + 256 * 4
        #expect(IDIndex<CommandKind>.capacity(for: 100) == 256 && good.count == tagsAt + 256)
        func refused(_ change: (inout [UInt8]) -> Void) -> Bool {
            var bytes = good
            change(&bytes)
            var r = BinaryReader(bytes)
            return (try? IDIndex<CommandKind>(from: &r)) == nil
        }
        let full = (0..<256).first { good[tagsAt + $0] != 0 }!, empty = (0..<256).first { good[tagsAt + $0] == 0 }!
        #expect(!refused { _ in })
        #expect(refused { $0[capacityAt + 1] = 0 })                              // 0 buckets for 100 ids
        #expect(refused { $0[slotsAt + full * 4] = 100 })                        // names id 100 of 100
        #expect(refused { $0[slotsAt + full * 4 + 3] = 0x80 })                   // a negative position
        #expect(refused { $0[tagsAt + full] = 0x01 })                            // a tag without its high bit
        #expect(refused { $0[tagsAt + full] = 0 })                               // 99 ids found, not 100
        #expect(refused { $0[tagsAt + empty] = 0x81 })                           // 101
        #expect(refused { $0.removeLast() })                                     // cut short
    }

    @Test("a command table read back: records where they lie, a stored command that goes on counted beside them")
    func storedCommandTable() throws {
        var table = CommandTable()
        let ids = (0..<5_000).map { _ in CommandID() }
        for (n, id) in ids.enumerated() { _ = table.insert(id, CommandRecord(firstSeq: n + 1, count: 1, offset: n * 300)) }
        var w = BinaryWriter()
        table.encode(to: &w)
        var r = BinaryReader(w.bytes)
        var read = try CommandTable(from: &r)
        #expect(r.isAtEnd && read == table)
        read.addEvent(at: 4_999)
        table.addEvent(at: 4_999)
        let extra = CommandID()
        #expect(read.insert(extra, CommandRecord(firstSeq: 5_001, count: 1, offset: 1_500_000)) == 5_000)
        _ = table.insert(extra, CommandRecord(firstSeq: 5_001, count: 1, offset: 1_500_000))
        read.addEvent(at: 5_000)
        table.addEvent(at: 5_000)
        #expect(read == table && read[ids[4_999]]?.count == 2 && read[extra]?.count == 2 && read[ids[7]] == CommandRecord(firstSeq: 8, count: 1, offset: 2_100))
        #expect(read.insert(ids[3], CommandRecord(firstSeq: 1, count: 1, offset: 0)) == nil)
        var again = BinaryWriter(), fresh = BinaryWriter()
        read.encode(to: &again)
        table.encode(to: &fresh)
        #expect(again.bytes == fresh.bytes)
        // A record no command can have is refused.
        var bad = w.bytes
        bad[bad.count - 24 + 8] = 0   // the last command's event count: 0
        var damaged = BinaryReader(bad)
        #expect((try? CommandTable(from: &damaged)) == nil)
    }
}
