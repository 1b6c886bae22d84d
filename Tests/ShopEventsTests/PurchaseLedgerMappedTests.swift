import Foundation
import Testing
import ShopTestSupport
@testable import ShopEvents

/// A ledger read from a mapped snapshot lets go of its pages; they are read
/// back from the file, unchanged, if those bytes are ever read again.
@Suite struct PurchaseLedgerMappedTests {
    @Test("a ledger of 40,000 purchases read from a mapped file twice, and passed over, reads back equal each time")
    func readTwiceFromAMapping() throws {
        var ledger = PurchaseLedger()
        let items = (0..<30).map { _ in ItemID() }
        for seq in 1...40_000 {
            ledger.insert(Purchase(id: PurchaseID(), item: items[seq % 30], list: nil, location: .unknown,
                                   effectiveTime: Timestamp(millisecondsSince1970: Int64(seq) * 1_000), seq: seq))
            if seq % 9 == 0 { ledger.markReverted(ledger.purchase(at: seq / 2).id) }
        }
        var w = BinaryWriter()
        w.int(7)   // a field before, so the ledger starts off a page boundary
        ledger.encode(to: &w)
        w.int(8)   // and one after
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("ledger.bin").path
        Scratch.write(w.bytes, to: path)
        let fd = open(path, O_RDONLY)
        defer { close(fd) }
        let mapped = try #require(BinaryReader.mapping(fd, size: w.bytes.count))
        for _ in 0..<2 {
            var r = mapped.slice(at: 0, end: w.bytes.count)
            #expect(try r.int() == 7)
            #expect(try PurchaseLedger(from: &r) == ledger)
            #expect(try r.int() == 8 && r.isAtEnd)
        }
        var passed = mapped.slice(at: 8, end: w.bytes.count)
        try PurchaseLedger.skip(&passed)
        #expect(try passed.int() == 8)
        var again = mapped.slice(at: 8, end: w.bytes.count)
        #expect(try PurchaseLedger(from: &again) == ledger)
    }
}
