import Foundation
import Testing
@testable import ShopEvents
import ShopTestSupport

/// Where a force unwrap went (issue 50, item 6), what takes its place gives
/// what it gave, and an empty buffer that may come has its answer.
@Suite struct UnwrapsTests {
    /// An imported purchase's id, now made from the digest's bytes: the id the
    /// text of its first 32 hex digits (the 13th made `5`) gave before.
    @Test func anImportedPurchaseIdIsTheOneItsDigestsTextGave() {
        var rng = SeededRandom(seed: 50)
        for _ in 0..<200 {
            let item = ItemID(UUID(uuid: (UInt8(truncatingIfNeeded: rng.next()), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14,
                                          UInt8(truncatingIfNeeded: rng.next()))))
            let time = Timestamp(millisecondsSince1970: Int64(rng.next() % 4_000_000_000_000))
            var hex = Array(SHA256.hash(Array("SL17 purchase \(item) \(time)".utf8)).hex.utf8.prefix(32))
            hex[12] = UInt8(ascii: "5")
            let h = String(decoding: hex, as: UTF8.self)
            let text = "\(h.prefix(8))-\(h.dropFirst(8).prefix(4))-\(h.dropFirst(12).prefix(4))-\(h.dropFirst(16).prefix(4))-\(h.dropFirst(20))"
            #expect(SL17Transfer.purchaseID(item: item, at: time) == PurchaseID(text))
        }
    }

    /// The bytes of an empty array: a reader with an address and nothing to read.
    @Test func aReaderOfNoBytesHasAnAddressAndNothingToRead() throws {
        let reader = BinaryReader([])
        #expect(reader.all.count == 0)
        #expect(reader.isAtEnd)
        #expect(reader.start == reader.all.baseAddress)
        let records = MappedRecords(reader, at: 0, count: 0, size: 16)
        #expect(records.raw.count == 0)
    }

    /// Nothing to write is written at once, whatever the descriptor; a byte to a bad one is not.
    @Test func writingNoBytesWholeSucceedsWithoutAWrite() {
        #expect(DurableFile.writeWhole(-1, UnsafeRawBufferPointer(start: nil, count: 0), at: 0))
        #expect(![UInt8(1)].withUnsafeBytes { DurableFile.writeWhole(-1, $0, at: 0) })
    }

    /// A `\u` escape of a scalar beyond the first plane, and of one in it, decode to their UTF-8.
    @Test func unicodeEscapesDecodeToTheirUTF8() throws {
        let line = Array(#"{"name":"b\u00e9n \ud83d\uded2"}"#.utf8)
        let value = try JSONValue.parse(line)
        #expect(value["name"]?.stringValue == "bén 🛒")
    }
}
