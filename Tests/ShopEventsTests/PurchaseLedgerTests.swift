import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// The purchase ledger answers exactly as a plain dictionary of purchase
/// values would; its snapshot reads back equal, and gives the same bytes again.
@Suite struct PurchaseLedgerTests {
    static func purchases(_ count: Int, seed: UInt64) -> [Purchase] {
        var random = SeededRandom(seed: seed)
        let items = (0..<50).map { _ in ItemID() }, lists = (0..<3).map { _ in ListID() }, places = (0..<7).map { _ in LocationID() }
        return (1...count).map { seq in
            Purchase(id: PurchaseID(), item: items[Int.random(in: 0..<50, using: &random)],
                     list: Bool.random(using: &random) ? nil : lists[seq % 3], location: places[Int.random(in: 0..<7, using: &random)],
                     effectiveTime: Timestamp(millisecondsSince1970: seq % 1_500 == 0 ? Int64.min / 3 + Int64(seq)
                                              : Int64.random(in: 0...4_000_000_000_000, using: &random)),
                     // Now and then a seq a row cannot hold (kept beside the rows), or a negative one.
                     seq: seq % 1_000 == 0 ? 5_000_000_000 + seq : seq % 2_500 == 7 ? -seq : seq * 3)
        }
    }

    @Test("10,000 purchases and 1,430 reverts: every lookup, the order and the count as a dictionary gives them; stored and read back equal, the same bytes again, grown alike", arguments: [1, 2] as [UInt64])
    func likeADictionary(seed: UInt64) throws {
        var random = SeededRandom(seed: seed &+ 100)
        var ledger = PurchaseLedger()
        var reference: [PurchaseID: PurchaseLedger.Entry] = [:]
        let bought = Self.purchases(10_000, seed: seed)
        for (at, purchase) in bought.enumerated() {
            ledger.insert(purchase)
            reference[purchase.id] = PurchaseLedger.Entry(purchase)
            if at % 7 == 0, let earlier = bought[0...at].randomElement(using: &random) {
                ledger.markReverted(earlier.id)
                reference[earlier.id]?.isReverted = true
            }
        }
        let expected = bought.map { reference[$0.id] }
        #expect(ledger.count == 10_000)
        #expect(Array(ledger.values) == expected.compactMap { $0 })
        #expect(bought.map { ledger[$0.id] } == expected)
        #expect(bought.indices.allSatisfy { ledger.position(of: bought[$0].id) == $0 })
        #expect(ledger[PurchaseID()] == nil && ledger.slots.count == PurchaseLedger.capacity(for: 10_000))
        var w = BinaryWriter()
        ledger.encode(to: &w)
        var r = BinaryReader(w.bytes)
        var decoded = try PurchaseLedger(from: &r)
        #expect(r.isAtEnd && decoded == ledger && decoded.hashValue == ledger.hashValue)
        var again = BinaryWriter()
        decoded.encode(to: &again)
        #expect(again.bytes == w.bytes)
        #expect(bought.map { decoded[$0.id] } == expected)
        var grown = ledger
        for purchase in Self.purchases(300, seed: seed &+ 7) {
            grown.insert(purchase); decoded.insert(purchase)
            if purchase.seq % 10 == 0 { grown.markReverted(bought[purchase.seq].id); decoded.markReverted(bought[purchase.seq].id) }
        }
        #expect(decoded == grown && Array(decoded.values) == Array(grown.values) && grown.count == 10_300)
        var fromDecoded = BinaryWriter(), fromGrown = BinaryWriter()
        decoded.encode(to: &fromDecoded); grown.encode(to: &fromGrown)
        #expect(fromDecoded.bytes == fromGrown.bytes)
    }

    @Test("a known id is never replaced; built in the same order, equal and hashing equal; a revert makes them differ; emptied, equal to a new one")
    func equality() {
        let bought = Self.purchases(5_000, seed: 3)
        var a = PurchaseLedger(), b = PurchaseLedger()
        for p in bought { a.insert(p); b.insert(p) }
        b.insert(Purchase(id: bought[5].id, item: ItemID(), list: nil, location: .unknown, effectiveTime: .earliest, seq: 1))
        #expect(a == b && a.hashValue == b.hashValue && b.count == 5_000 && b[bought[5].id] == PurchaseLedger.Entry(bought[5]))
        b.markReverted(bought[4_500].id)
        #expect(a != b)
        #expect(b[bought[4_500].id]?.isReverted == true && a[bought[4_500].id]?.isReverted == false)
        b.removeAll()
        #expect(b == PurchaseLedger() && b.count == 0 && b[bought[0].id] == nil)
    }

    @Test("stored bytes that name a handle, bucket or bit that does not exist are refused")
    func damagedBytes() throws {
        var ledger = PurchaseLedger()
        for seq in 1...20 {
            ledger.insert(Purchase(id: PurchaseID(), item: ItemID(), list: nil, location: .unknown, effectiveTime: .earliest, seq: seq))
        }
        var w = BinaryWriter()
        ledger.encode(to: &w)
        // After two id lists (20 items, no list) and the count: 20 rows, 20 ids,
        // the number of buckets (32), 32 buckets, one word of reverted bits.
        let rows = 8 + 20 * 16 + 8 + 8
        let buckets = rows + 20 * 16 + 20 * 16, bits = buckets + 8 + 32 * 4
        #expect(w.bytes.count == bits + 8)
        func slot(_ bucket: Int) -> Int32 { w.bytes[(buckets + 8 + 4 * bucket)...].withUnsafeBytes { $0.loadUnaligned(as: Int32.self) } }
        let occupied = (0..<32).first { slot($0) >= 0 }!, empty = (0..<32).first { slot($0) < 0 }!
        var intact = BinaryReader(w.bytes)
        #expect(try PurchaseLedger(from: &intact) == ledger)
        let cases: [(String, Int, [UInt8])] = [("item handle", rows + 8, [20, 0, 0, 0]),
                                               ("list handle", rows + 16 + 12, [0, 0, 0, 0]), ("bucket count", buckets, [16]),
                                               ("a bucket out of range", buckets + 8 + 4 * occupied, [20, 0, 0, 0]),
                                               ("a position twice", buckets + 8 + 4 * empty, [UInt8(slot(occupied)), 0, 0, 0]),
                                               ("a bit past the last purchase", bits + 2, [0x10])]
        for (what, at, value) in cases {
            var bytes = w.bytes
            bytes.replaceSubrange(at..<(at + value.count), with: value)
            var r = BinaryReader(bytes)
            #expect(throws: BinaryDecodingError.self, "\(what)") { _ = try PurchaseLedger(from: &r) }
        }
        var skipped = BinaryReader(w.bytes)
        try PurchaseLedger.skip(&skipped)
        #expect(skipped.isAtEnd)
    }

    @Test("random histories: the state's snapshot reads back equal, purchases and all, and writes the same bytes", arguments: [5, 6] as [UInt64])
    func stateRoundTrip(seed: UInt64) throws {
        let fixture = JournalFixture()
        defer { fixture.remove() }
        var generator = RandomCommands(seed: seed)
        let journal = try fixture.open()
        for _ in 0..<400 { _ = try? journal.execute(CommandEnvelope(generator.next(for: journal.state), actor: "ana")) }
        journal.close()
        var state = ShopState.initial
        var purchases: [PurchaseID] = [], reverted: Set<PurchaseID> = []
        for recorded in try JournalReader.readAll(path: fixture.path) {
            state = ShopState.evolve(state, recorded)
            if case let .itemPurchased(purchase, _, _, _, _, _, _, _) = recorded.event { purchases.append(purchase) }
            if case let .purchaseReverted(purchase) = recorded.event { reverted.insert(purchase) }
        }
        #expect(purchases.count > 20 && !reverted.isEmpty, "the history buys things and reverts some")
        #expect(state.purchases.values.map(\.id) == purchases)
        #expect(Set(state.purchases.values.filter(\.isReverted).map(\.id)) == reverted)
        var w = BinaryWriter()
        state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let decoded = try ShopState(from: &r)
        #expect(decoded == state && decoded.purchases == state.purchases)
        var again = BinaryWriter()
        decoded.encode(to: &again)
        #expect(again.bytes == w.bytes)
    }
}
