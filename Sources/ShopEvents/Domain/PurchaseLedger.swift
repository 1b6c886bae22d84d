/// Every purchase of a household ever recorded (a purchase id is never
/// reused), in journal order: what the rules and the commands that name a
/// purchase need of it. A plain value of arrays, the same whoever folds it.
///
/// Per purchase it keeps the id, a row of 24 bytes (time, `seq`, and item,
/// location and list by small integer handles), a reverted bit, and a slot
/// in an open-addressing index of positions under the id's fixed hash
/// (``EntityID/fixedHash``): about 46–51 bytes a purchase. The index's layout
/// depends only on the ids in their order, so a snapshot stores the arrays as
/// they are and reads each back with one copy, hashing nothing.
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct PurchaseLedger: Hashable, Sendable {
    /// A purchase but its id and revert: 24 bytes. A `seq` outside `0..<UInt32.max`
    /// (a journal past four billion events) is `UInt32.max` here and kept in ``outsizedSeqs``.
    struct Row: Hashable, Sendable {
        var time: Int64
        var seq: UInt32
        var item: Int32
        var location: Int32
        /// -1 for a purchase off any list.
        var list: Int32
    }

    /// The purchase ids in journal order.
    var ids = ChunkedArray<PurchaseID>()
    /// By position, beside ``ids``.
    var rows = ChunkedArray<Row>()
    /// Positions by bucket, -1 where empty; a power of two long (``capacity(for:)``), at most three quarters full.
    var slots: [Int32] = []
    /// One bit a position: reverted.
    var reverted: [UInt64] = []
    /// The `seq` of a row that does not fit ``Row/seq``, by position.
    var outsizedSeqs: [Int: Int] = [:]
    var items = Handles<ItemKind>()
    var locations = Handles<LocationKind>()
    var lists = Handles<ListKind>()

    public init() {}

    /// How many purchases were ever recorded, reverted ones included.
    public var count: Int { ids.count }

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = position(of: id) else { return nil }
        return purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> {
        let ledger = self
        return (0..<count).lazy.map { ledger.purchase(at: $0) }
    }

    /// Where a purchase stands in journal order (0 for the first).
    public func position(of id: PurchaseID) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var bucket = id.fixedHash & mask
        while true {
            let at = Int(slots[bucket])
            if at < 0 { return nil }
            if ids[at] == id { return at }
            bucket = (bucket + 1) & mask
        }
    }

    /// Whether the purchase at `position` was reverted.
    public func isReverted(at position: Int) -> Bool { reverted[position >> 6] & (1 << UInt64(position & 63)) != 0 }

    /// The purchase at a position in journal order.
    public func purchase(at position: Int) -> Purchase {
        let row = rows[position]
        let seq = row.seq == .max ? outsizedSeqs[position] ?? Int(row.seq) : Int(row.seq)
        return Purchase(id: ids[position], item: items.ids[Int(row.item)], list: row.list < 0 ? nil : lists.ids[Int(row.list)],
                        location: locations.ids[Int(row.location)], effectiveTime: Timestamp(millisecondsSince1970: row.time),
                        seq: seq, isReverted: isReverted(at: position))
    }

    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    mutating func insert(_ purchase: Purchase) {
        if (count + 1) * 4 > slots.count * 3 { grow() }
        let mask = slots.count - 1
        var bucket = purchase.id.fixedHash & mask
        while slots[bucket] >= 0 {
            if ids[Int(slots[bucket])] == purchase.id { return }
            bucket = (bucket + 1) & mask
        }
        let at = count
        slots[bucket] = Int32(at)
        ids.append(purchase.id)
        let fits = purchase.seq >= 0 && purchase.seq < Int(UInt32.max)
        if !fits { outsizedSeqs[at] = purchase.seq }
        rows.append(Row(time: purchase.effectiveTime.millisecondsSince1970, seq: fits ? UInt32(purchase.seq) : .max,
                        item: items.handle(purchase.item), location: locations.handle(purchase.location),
                        list: purchase.list.map { lists.handle($0) } ?? -1))
        if at & 63 == 0 { reverted.append(0) }
        if purchase.isReverted { reverted[at >> 6] |= 1 << UInt64(at & 63) }
    }

    /// Marks a known purchase reverted.
    mutating func markReverted(_ id: PurchaseID) {
        guard let at = position(of: id) else { return }
        reverted[at >> 6] |= 1 << UInt64(at & 63)
    }

    /// Forgets every purchase.
    package mutating func removeAll() { self = PurchaseLedger() }

    /// The buckets of an index of `count` ids added one by one: 16, doubled
    /// while more than three quarters would be full; 0 for none.
    static func capacity(for count: Int) -> Int {
        guard count > 0 else { return 0 }
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        return capacity
    }

    /// Twice the buckets (16 at first), every id placed again in journal order.
    private mutating func grow() {
        slots = Array(repeating: -1, count: max(16, slots.count * 2))
        let mask = slots.count - 1
        for at in 0..<count {
            var bucket = ids[at].fixedHash & mask
            while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
            slots[bucket] = Int32(at)
        }
    }

    public static func == (a: PurchaseLedger, b: PurchaseLedger) -> Bool {
        guard a.ids == b.ids, a.reverted == b.reverted else { return false }
        if a.items.ids == b.items.ids, a.locations.ids == b.locations.ids, a.lists.ids == b.lists.ids {
            return a.rows == b.rows && a.outsizedSeqs == b.outsizedSeqs
        }
        return a.values.elementsEqual(b.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if let last = ids.last { hasher.combine(last) }
    }

    /// Ids of one kind in the order first seen, and the handle of each.
    struct Handles<Kind: EntityKind>: Hashable, Sendable {
        private(set) var ids: [EntityID<Kind>] = []
        private var handles: [EntityID<Kind>: Int32] = [:]

        init() {}

        /// Handles for `ids` in that order; nil if an id comes twice.
        init?(unique ids: [EntityID<Kind>]) {
            self.ids = ids
            handles.reserveCapacity(ids.count)
            for (handle, id) in ids.enumerated() where handles.updateValue(Int32(handle), forKey: id) != nil { return nil }
        }

        mutating func handle(_ id: EntityID<Kind>) -> Int32 {
            if let known = handles[id] { return known }
            let new = Int32(ids.count)
            ids.append(id)
            handles[id] = new
            return new
        }
    }
}
