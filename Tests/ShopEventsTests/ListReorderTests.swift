import Foundation
import Testing
@testable import ShopEvents

/// Reordering a list places each entry straight where the order puts it;
/// it must give what a stable sort by rank gives (the way it was written
/// before), for orders short and long, with items missing, added, named
/// twice, and lists that hold an item twice.
@Suite struct ListReorderTests {
    /// The rule as first written: each entry's rank in `order` (its first
    /// place there), those not in it after them in the order they had.
    static func bySort(_ entries: [ListEntry], _ order: [ItemID]) -> [ListEntry] {
        var rank: [ItemID: Int] = [:]
        for (index, item) in order.enumerated() where rank[item] == nil { rank[item] = index }
        return entries.enumerated()
            .map { (key: rank[$0.element.item] ?? order.count + $0.offset, offset: $0.offset, entry: $0.element) }
            .sorted { ($0.key, $0.offset) < ($1.key, $1.offset) }
            .map(\.entry)
    }

    @Test(arguments: [3, 30, 100])
    func placingEqualsSorting(size: Int) {
        var rng = SeededRandom(seed: UInt64(size))
        let pool: [ItemID] = (1...(size * 2)).map { id($0) }
        for round in 0..<300 {
            var items = Array(pool.shuffled(using: &rng).prefix(Int.random(in: 0...size, using: &rng)))
            if round % 10 == 0, let twice = items.randomElement(using: &rng) { items.append(twice) }   // a list holding an item twice
            let entries = items.enumerated().map { ListEntry(item: $1, quantity: Quantity($0 + 1), addedSeq: $0) }
            var order = items.shuffled(using: &rng).filter { _ in Int.random(in: 0..<10, using: &rng) > 0 }
            order += pool.shuffled(using: &rng).prefix(Int.random(in: 0...3, using: &rng))          // items not on the list
            if round % 3 == 0, let again = order.randomElement(using: &rng) {                        // an item named twice
                order.insert(again, at: Int.random(in: 0...order.count, using: &rng))
            }
            #expect(ShopState.reordered(entries, by: order) == Self.bySort(entries, order), "round \(round)")
        }
    }

    @Test func wholeValues() {
        let (a, b, c, d): (ItemID, ItemID, ItemID, ItemID) = (id(1), id(2), id(3), id(4))
        let entries = [a, b, c, d].enumerated().map { ListEntry(item: $1, quantity: 1, addedSeq: $0) }
        #expect(ShopState.reordered(entries, by: [c, a, c, id(9) as ItemID]).map(\.item) == [c, a, b, d])
        #expect(ShopState.reordered(entries, by: []).map(\.item) == [a, b, c, d])
        #expect(ShopState.reordered([], by: [a, b]).isEmpty)
    }
}
