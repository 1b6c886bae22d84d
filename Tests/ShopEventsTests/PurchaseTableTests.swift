import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// The compact purchase table answers exactly as a plain dictionary of
/// purchase values would, across many chunks.
@Suite struct PurchaseTableTests {
    @Test("10,000 purchases and 1,500 reverts (some with a seq past 2³² or a time far out): every lookup, the order and the count as a dictionary gives them", arguments: [1, 2] as [UInt64])
    func likeADictionary(seed: UInt64) throws {
        var random = SeededRandom(seed: seed)
        var table = PurchaseTable()
        var reference: [PurchaseID: Purchase] = [:]
        var order: [PurchaseID] = []
        let items = (0..<50).map { _ in ItemID() }, lists = (0..<3).map { _ in ListID() }, places = (0..<7).map { _ in LocationID() }
        for seq in 1...10_000 {
            let purchase = Purchase(id: PurchaseID(), item: items.randomElement(using: &random)!,
                                    list: Bool.random(using: &random) ? nil : lists.randomElement(using: &random)!,
                                    location: places.randomElement(using: &random)!,
                                    effectiveTime: Timestamp(millisecondsSince1970: seq % 1_500 == 0 ? Int64.min / 3 + Int64(seq)
                                                             : Int64.random(in: 0...4_000_000_000_000, using: &random)),
                                    // Now and then numbers a packed row cannot hold: kept beside the rows.
                                    seq: seq % 1_000 == 0 ? 5_000_000_000 + seq : seq * 3)
            table.insert(purchase)
            reference[purchase.id] = purchase
            order.append(purchase.id)
            if seq % 7 == 0, let earlier = order.randomElement(using: &random) {
                table.markReverted(earlier)
                reference[earlier]?.isReverted = true
            }
        }
        #expect(table.count == reference.count)
        #expect(Array(table.values) == order.map { reference[$0]! })
        for id in order { #expect(table[id] == reference[id]) }
        #expect(table[PurchaseID()] == nil)
        // Stored as it is and read back: equal, the same bytes again, every lookup the same, and it grows on alike.
        var w = BinaryWriter()
        table.encode(to: &w)
        var r = BinaryReader(w.bytes)
        var decoded = try PurchaseTable(from: &r)
        #expect(r.isAtEnd)
        #expect(decoded == table)
        var again2 = BinaryWriter()
        decoded.encode(to: &again2)
        #expect(again2.bytes == w.bytes)
        for id in order { #expect(decoded[id] == reference[id]) }
        #expect(decoded[PurchaseID()] == nil)
        var grown = table
        for seq in 10_001...10_100 {
            let purchase = Purchase(id: PurchaseID(), item: ItemID(), list: lists[seq % 3], location: places[seq % 7],
                                    effectiveTime: .earliest, seq: seq * 3)
            grown.insert(purchase); decoded.insert(purchase)
            if seq % 10 == 0 { grown.markReverted(order[seq - 10_001]); decoded.markReverted(order[seq - 10_001]) }
        }
        #expect(decoded == grown && Array(decoded.values) == Array(grown.values))
        for id in order.suffix(500) { #expect(decoded[id] == grown[id]) }
        // Stored again, a table read from a snapshot and grown gives the very bytes of one folded whole.
        var fromDecoded = BinaryWriter(), fromGrown = BinaryWriter()
        decoded.encode(to: &fromDecoded); grown.encode(to: &fromGrown)
        #expect(fromDecoded.bytes == fromGrown.bytes)
        // A known id is never replaced.
        var again = table
        again.insert(Purchase(id: order[5], item: items[0], list: nil, location: places[0], effectiveTime: .earliest, seq: 1))
        #expect(again == table)
        let standing = order.first { !reference[$0]!.isReverted }!
        again.markReverted(standing)
        #expect(again != table)
        #expect(again[standing]?.isReverted == true)
    }

    @Test("built in the same order, equal and hashing equal; a revert makes them differ")
    func equality() {
        let purchases = (1...5_000).map { Purchase(id: PurchaseID(), item: ItemID(), list: nil, location: .unknown,
                                                   effectiveTime: Timestamp(millisecondsSince1970: Int64($0)), seq: $0) }
        var a = PurchaseTable(), b = PurchaseTable()
        for p in purchases { a.insert(p); b.insert(p) }
        #expect(a == b && a.hashValue == b.hashValue)
        b.markReverted(purchases[4_500].id)
        #expect(a != b)
        #expect(b[purchases[4_500].id]?.isReverted == true && a[purchases[4_500].id]?.isReverted == false)
    }

    @Test("stored bytes that name a handle, flag or purchase that does not exist are refused")
    func damagedBytes() throws {
        var table = PurchaseTable()
        for seq in 1...20 {
            table.insert(Purchase(id: PurchaseID(), item: ItemID(), list: nil, location: .unknown,
                                  effectiveTime: .earliest, seq: seq))
        }
        var w = BinaryWriter()
        table.encode(to: &w)
        // Where the rows start: after three id lists (20 items, 1 location, no list) and the count.
        let rows = 8 + 20 * 16 + 8 + 16 + 8 + 8
        // Then the index: its count, the 20 ids, the number of buckets (32), 32 positions, 32 tags.
        let buckets = rows + 20 * 32 + 8 + 20 * 16, tags = buckets + 8 + 32 * 4
        #expect(w.bytes.count == tags + 32)
        let occupied = (0..<32).first { w.bytes[tags + $0] != 0 }!
        var intact = BinaryReader(w.bytes)
        #expect(try PurchaseTable(from: &intact) == table)
        let cases: [(String, Int, [UInt8])] = [("item handle", rows + 16, [20, 0, 0, 0]), ("location handle", rows + 32 + 20, [1, 0, 0, 0]),
                                               ("list handle", rows + 24, [0, 0, 0, 0]), ("reverted flag", rows + 28, [2, 0, 0, 0]),
                                               ("bucket count", buckets, [24]), ("a bucket", buckets + 8 + 4 * occupied, [20, 0, 0, 0]),
                                               ("a tag", tags + occupied, [0])]
        for (what, at, value) in cases {
            var bytes = w.bytes
            bytes.replaceSubrange(at..<(at + value.count), with: value)
            var r = BinaryReader(bytes)
            #expect(throws: BinaryDecodingError.self, "\(what)") { _ = try PurchaseTable(from: &r) }
        }
    }

    @Test("a snapshot file with any one byte changed, or cut short, is recognised as damaged")
    func snapshotChecksum() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("file.snapshot").path, magic = Array("SHOPTEST".utf8)
        var random = SeededRandom(seed: 7)
        let body = magic + (0..<301).map { _ in UInt8.random(in: 0...255, using: &random) }
        try SnapshotFile.write(body, to: path)
        let good = Scratch.bytes(path)
        #expect(good.count == body.count + 8)
        guard case var .success(r) = SnapshotFile.read(path, magic: magic) else { Issue.record("the file does not read back"); return }
        var read: [UInt8] = []
        try r.block(301) { read = Array($0) }
        #expect(r.isAtEnd && magic + read == body)
        for at in 0..<good.count {
            for bit in [0x01, 0x80] as [UInt8] {
                var bytes = good
                bytes[at] ^= bit
                Scratch.write(bytes, to: path)
                let expected: SnapshotFile.Problem = at < magic.count ? .notASnapshot : .damaged
                #expect(SnapshotFile.read(path, magic: magic).failure == expected, "byte \(at) bit \(bit)")
            }
        }
        for length in [0, 7, magic.count + 11, good.count - 1] {
            Scratch.write(Array(good.prefix(length)), to: path)
            #expect(SnapshotFile.read(path, magic: magic).failure != nil, "cut to \(length) bytes")
        }
    }

    @Test("a snapshot read without keeping it resident (its pages let go once checksummed) reads the same bytes, and damage anywhere is found")
    func snapshotNotResident() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("file.snapshot").path, magic = Array("SHOPTEST".utf8)
        var random = SeededRandom(seed: 8)
        let size = 9 << 20 + 77   // past two 4 MiB marks, and not a whole number of stripes
        var body = magic
        body.reserveCapacity(magic.count + size)
        while body.count < magic.count + size {
            withUnsafeBytes(of: random.next()) { body.append(contentsOf: $0.prefix(magic.count + size - body.count)) }
        }
        var marks: [Int] = []
        let (whole, streamed) = body.withUnsafeBytes { raw in (SnapshotFile.checksum(raw), SnapshotFile.checksum(raw) { marks.append($0) }) }
        #expect(whole == streamed && marks == [4 << 20, 8 << 20])
        try SnapshotFile.write(body, to: path)
        guard case var .success(r) = SnapshotFile.read(path, magic: magic, resident: false) else { Issue.record("the file does not read back"); return }
        var read: [UInt8] = []
        try r.block(size) { read = Array($0) }
        #expect(r.isAtEnd && magic + read == body)
        let good = Scratch.bytes(path)
        for at in [magic.count, 4 << 20 - 1, 4 << 20, 5 << 20 + 3, good.count - 9, good.count - 1] {
            var bytes = good
            bytes[at] ^= 0x10
            Scratch.write(bytes, to: path)
            #expect(SnapshotFile.read(path, magic: magic, resident: false).failure == .damaged, "byte \(at)")
        }
    }
}

private extension Result {
    var failure: Failure? { if case let .failure(problem) = self { problem } else { nil } }
}
