import Foundation
import Testing
@testable import ShopEvents

/// The compact purchase table answers exactly as a plain dictionary of
/// purchase values would, across many chunks.
@Suite struct PurchaseTableTests {
    @Test("10,000 purchases and 1,500 reverts: every lookup, the order and the count as a dictionary gives them", arguments: [1, 2] as [UInt64])
    func likeADictionary(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        var table = PurchaseTable()
        var reference: [PurchaseID: Purchase] = [:]
        var order: [PurchaseID] = []
        let items = (0..<50).map { _ in ItemID() }, lists = (0..<3).map { _ in ListID() }, places = (0..<7).map { _ in LocationID() }
        for seq in 1...10_000 {
            let purchase = Purchase(id: PurchaseID(), item: items.randomElement(using: &random)!,
                                    list: Bool.random(using: &random) ? nil : lists.randomElement(using: &random)!,
                                    location: places.randomElement(using: &random)!,
                                    effectiveTime: Timestamp(millisecondsSince1970: Int64.random(in: 0...4_000_000_000_000, using: &random)),
                                    seq: seq * 3)
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
}
