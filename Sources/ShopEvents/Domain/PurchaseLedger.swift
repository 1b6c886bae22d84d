/// Every purchase of a household ever recorded (a purchase id is never
/// reused), in journal order: what the rules and the commands that name a
/// purchase need of it, and no more. A plain value of arrays, the same
/// whoever folds it.
///
/// Per purchase it keeps the id, a row of 16 bytes (time, and item and list by
/// small integer handles: a revert un-buys the entry of that item on that
/// list, `revert --item` takes an item's latest purchase by time), a reverted
/// bit, and a slot in an open-addressing index of positions under the id's
/// fixed hash (``EntityID/fixedHash``): about 38–43 bytes a purchase. Where a
/// purchase was bought and its `seq` are no rule's business: the projections
/// that show them keep them. The index's layout depends only on the ids in
/// their order, so a snapshot stores the arrays as they are and reads each
/// back with one copy, hashing nothing.
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct PurchaseLedger: Hashable, Sendable {
    /// What the rules need of a purchase but its id and revert: 16 bytes.
    struct Row: Hashable, Sendable {
        var time: Int64
        var item: Int32
        /// -1 for a purchase off any list.
        var list: Int32
    }

    /// One purchase as the ledger keeps it: what the rules need of it.
    /// Where it was bought and its `seq` are kept by the projections that
    /// show them (`PurchaseRows` in ShopProjections gives the whole ``Purchase``).
    ///
    /// ```swift
    /// let state = ShopState.initial
    /// let live = state.purchases.values.filter { !$0.isReverted }
    /// print(live.map(\.item), live.map(\.effectiveTime))
    /// ```
    public struct Entry: Hashable, Sendable {
        public var id: PurchaseID
        public var item: ItemID
        public var list: ListID?
        /// When it was bought: `purchasedAt` if the event gave one, else its `at`.
        public var effectiveTime: Timestamp
        public var isReverted: Bool

        public init(id: PurchaseID, item: ItemID, list: ListID?, effectiveTime: Timestamp, isReverted: Bool = false) {
            self.id = id; self.item = item; self.list = list; self.effectiveTime = effectiveTime; self.isReverted = isReverted
        }

        /// What the ledger keeps of `purchase`.
        public init(_ purchase: Purchase) {
            self.init(id: purchase.id, item: purchase.item, list: purchase.list, effectiveTime: purchase.effectiveTime,
                      isReverted: purchase.isReverted)
        }
    }

    /// The purchase ids in journal order.
    var ids = ChunkedArray<PurchaseID>()
    /// By position, beside ``ids``.
    var rows = ChunkedArray<Row>()
    /// Positions by bucket, -1 where empty; a power of two long (``capacity(for:)``), at most three quarters full.
    var slots: [Int32] = []
    /// One bit a position: reverted.
    var reverted: [UInt64] = []
    var items = Handles<ItemKind>()
    var lists = Handles<ListKind>()

    public init() {}

    /// How many purchases were ever recorded, reverted ones included.
    public var count: Int { ids.count }

    public subscript(id: PurchaseID) -> Entry? {
        guard let at = position(of: id) else { return nil }
        return purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Entry> {
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

    /// The effective time (`purchasedAt`, else `at`) of the purchase at `position`.
    public func time(at position: Int) -> Timestamp { Timestamp(millisecondsSince1970: rows[position].time) }

    /// The purchase at a position in journal order.
    public func purchase(at position: Int) -> Entry {
        let row = rows[position]
        return Entry(id: ids[position], item: items.ids[Int(row.item)], list: row.list < 0 ? nil : lists.ids[Int(row.list)],
                     effectiveTime: Timestamp(millisecondsSince1970: row.time), isReverted: isReverted(at: position))
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
        rows.append(Row(time: purchase.effectiveTime.millisecondsSince1970, item: items.handle(purchase.item),
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
        if a.items.ids == b.items.ids, a.lists.ids == b.lists.ids { return a.rows == b.rows }
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
