/// Every purchase of a household, kept compactly: an index from purchase id to
/// a row, and rows of fixed size in chunks (no copy of the whole table as it
/// grows). In journal order; a purchase id is never reused.
///
/// A household that has kept years of history holds hundreds of thousands of
/// purchases; each costs about 90 bytes here (it was about 390 as a dictionary
/// of full purchase values).
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct PurchaseTable: Hashable, Sendable {
    private struct Row: Hashable, Sendable {
        var time: Int64
        var seq: Int
        var item: ItemID
        var location: LocationID
        var list: ListID?
        var isReverted: Bool
    }

    private static var chunkSize: Int { 4_096 }
    private var index: [PurchaseID: Int32] = [:]
    private var ids: [[PurchaseID]] = []
    private var chunks: [[Row]] = []

    public init() {}

    /// How many purchases were ever recorded, reverted ones included.
    public var count: Int { index.count }

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = index[id] else { return nil }
        return purchase(at: Int(at))
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> { (0..<count).lazy.map { purchase(at: $0) } }

    /// Where a purchase stands in journal order (0 for the first).
    package func position(of id: PurchaseID) -> Int? { index[id].map(Int.init) }

    /// The purchase at a position in journal order.
    package func purchase(at position: Int) -> Purchase {
        let (chunk, slot) = position.quotientAndRemainder(dividingBy: Self.chunkSize)
        let row = chunks[chunk][slot]
        return Purchase(id: ids[chunk][slot], item: row.item, list: row.list, location: row.location,
                        effectiveTime: Timestamp(millisecondsSince1970: row.time), seq: row.seq, isReverted: row.isReverted)
    }

    /// Makes room for `count` purchases in all, so that adding them does not grow the index step by step.
    mutating func reserveCapacity(_ count: Int) { index.reserveCapacity(count) }

    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    mutating func insert(_ purchase: Purchase) {
        guard index[purchase.id] == nil else { return }
        if chunks.last.map({ $0.count == Self.chunkSize }) ?? true {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(Self.chunkSize)
            ids.append([])
            ids[ids.count - 1].reserveCapacity(Self.chunkSize)
        }
        index[purchase.id] = Int32(count)
        ids[ids.count - 1].append(purchase.id)
        chunks[chunks.count - 1].append(Row(time: purchase.effectiveTime.millisecondsSince1970, seq: purchase.seq, item: purchase.item,
                                            location: purchase.location, list: purchase.list, isReverted: purchase.isReverted))
    }

    mutating func markReverted(_ id: PurchaseID) {
        guard let at = index[id] else { return }
        let (chunk, slot) = Int(at).quotientAndRemainder(dividingBy: Self.chunkSize)
        chunks[chunk][slot].isReverted = true
    }

    public static func == (a: PurchaseTable, b: PurchaseTable) -> Bool { a.ids == b.ids && a.chunks == b.chunks }
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ids)
        hasher.combine(chunks)
    }
}
