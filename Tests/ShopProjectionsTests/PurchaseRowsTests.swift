import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// The state's ledger keeps what the rules need of a purchase; the rows
/// folded beside it give back the whole purchase, as the events said it.
@Suite struct PurchaseRowsTests {
    /// Every purchase of `events` as its event gave it, the first of an id only, reverts marked.
    static func expected(_ events: [RecordedEvent]) -> [Purchase] {
        var order: [PurchaseID] = [], byID: [PurchaseID: Purchase] = [:]
        for recorded in events {
            switch recorded.event {
            case let .itemPurchased(purchase, item, list, _, _, location, purchasedAt, _) where byID[purchase] == nil:
                order.append(purchase)
                byID[purchase] = Purchase(id: purchase, item: item, list: list, location: location,
                                          effectiveTime: purchasedAt ?? recorded.at, seq: recorded.seq)
            case let .purchaseReverted(purchase):
                byID[purchase]?.isReverted = true
            default:
                break
            }
        }
        return order.compactMap { byID[$0] }
    }

    static func history(seed: UInt64) throws -> [RecordedEvent] {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: seed, commands: 500)
        return try JournalReader.readAll(path: journal.path)
    }

    @Test("random histories: ledger and rows give every purchase whole, as its event said it; the history's rows equal them; stored and read back equal",
          arguments: [11, 12, 13] as [UInt64])
    func wholePurchases(seed: UInt64) throws {
        let events = try Self.history(seed: seed)
        var state = ShopState.initial
        var rows = PurchaseRows()
        var views = HouseholdViews()
        for recorded in events {
            rows.apply(recorded, before: state)
            state.apply(recorded)
            views.apply(recorded)
        }
        let expected = Self.expected(events)
        #expect(expected.count > 20 && expected.contains(where: \.isReverted), "the history buys things and reverts some")
        #expect(rows.count == state.purchases.count)
        #expect((0..<rows.count).map { rows.purchase(at: $0, in: state.purchases) } == expected)
        #expect(expected.map { rows.purchase($0.id, in: state.purchases) } == expected)
        #expect(rows.purchase(PurchaseID(), in: state.purchases) == nil)
        #expect(expected.map { views.statistics.purchase($0.id, in: views.state) } == expected, "the statistics projection's rows")
        var w = BinaryWriter()
        rows.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let decoded = try PurchaseRows(from: &r)
        #expect(r.isAtEnd && decoded == rows)
        var skipped = BinaryReader(w.bytes)
        try PurchaseRows.skip(&skipped)
        #expect(skipped.isAtEnd)
    }

    @Test("a seq past UInt32 and a negative one are kept whole; a place or an outsized seq that does not exist is refused")
    func outsizedAndDamaged() throws {
        var rows = PurchaseRows()
        let home = LocationID(), shop = LocationID()
        rows.append(seq: 5_000_000_000, location: home)
        rows.append(seq: -3, location: shop)
        rows.append(seq: 7, location: home)
        #expect((0..<3).map(rows.seq(at:)) == [5_000_000_000, -3, 7] && (0..<3).map(rows.location(at:)) == [home, shop, home])
        var w = BinaryWriter()
        rows.encode(to: &w)
        var intact = BinaryReader(w.bytes)
        let decoded = try PurchaseRows(from: &intact)
        #expect(decoded == rows && (0..<3).map(decoded.seq(at:)) == [5_000_000_000, -3, 7])
        // Two places (8 + 32 bytes), the count, three rows of 8 bytes: the third row's place, then the outsized seqs' first position.
        let thirdPlace = 8 + 32 + 8 + 2 * 8 + 4, firstOutsized = 8 + 32 + 8 + 3 * 8 + 8
        for (what, at, value) in [("a place that does not exist", thirdPlace, [2, 0, 0, 0] as [UInt8]),
                                  ("an outsized seq for a row that has none", firstOutsized, [2, 0, 0, 0, 0, 0, 0, 0])] {
            var bytes = w.bytes
            bytes.replaceSubrange(at..<(at + value.count), with: value)
            var r = BinaryReader(bytes)
            #expect(throws: BinaryDecodingError.self, "\(what)") { _ = try PurchaseRows(from: &r) }
        }
    }
}
