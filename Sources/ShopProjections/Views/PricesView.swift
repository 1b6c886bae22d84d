import ShopEvents

/// What things cost at each store (docs/VIEWS.md): per live item, per
/// store it was bought at with a price (and "no store" for priced purchases
/// that name none), the last unit price paid and when, the lowest and
/// highest in the 365 days before now, and how many priced purchases; per
/// item, the store where its last price was lowest.
///
/// Reverted purchases and purchases without a price do not count. "Now" is
/// the time of the last event the views hold (``HouseholdViews/asOfTime``):
/// the view is the same whenever it is read. Items by
/// name; stores by name, "no store" last; the cheapest of a tie is the first
/// of them in that order. Right on any views the public API folds (a
/// ``HouseholdModel``'s, a ``ViewEngine``'s, ``ReplicaViews``'), which keep
/// every purchase's record; the package's own one-view reads fold only the
/// totals, which give the same rows.
///
/// ```swift
/// for item in PricesView(views).items { print(item.name, item.cheapest as Any, item.stores.map(\.lastUnitPrice)) }
/// ```
public struct PricesView: Hashable, Sendable {
    /// An item's prices at one store.
    public struct StoreRow: Hashable, Sendable {
        /// `nil`: the purchases that named no store.
        public var store: StoreID?
        public var name: String
        public var lastUnitPrice: Int
        public var lastPurchased: Timestamp
        /// Over the 365 days before now; `nil` when none was bought then.
        public var lowest: Int?
        public var highest: Int?
        public var purchases: Int

        /// Memberwise, for preview data and tests.
        public init(store: StoreID?, name: String, lastUnitPrice: Int, lastPurchased: Timestamp, lowest: Int?, highest: Int?, purchases: Int) {
            self.store = store; self.name = name; self.lastUnitPrice = lastUnitPrice; self.lastPurchased = lastPurchased
            self.lowest = lowest; self.highest = highest; self.purchases = purchases
        }
    }

    /// One item's prices.
    public struct ItemRow: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var unit: String?
        public var stores: [StoreRow]
        /// Where its last price was lowest (`nil`: with no store named).
        public var cheapest: StoreID?

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, unit: String?, stores: [StoreRow], cheapest: StoreID?) {
            self.item = item; self.name = name; self.unit = unit; self.stores = stores; self.cheapest = cheapest
        }
    }

    /// The window of ``StoreRow/lowest`` and ``StoreRow/highest``.
    public static let windowDays = 365
    /// The name of the row of purchases that name no store.
    public static let noStoreName = "No store"

    public var asOf: Int
    public var items: [ItemRow]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, items: [ItemRow]) {
        self.asOf = asOf; self.items = items
    }

    /// From views with the statistics projection (``HouseholdViews`` has it); `item`: that item's row only.
    public init(_ views: some StatisticsFold, item only: ItemID? = nil) {
        let priced = views.statistics.pricedPurchases(of: only, in: views.state)
        asOf = views.asOf
        let windowStart = (views.asOfTime?.millisecondsSince1970 ?? 0) - Int64(Self.windowDays) * 86_400_000
        let live = priced.lazy.filter { views.state.items[$0.item].map { !$0.isDeleted } == true }
        let byItem = Self.storeRows(priced: live, lowestAndHighestFrom: windowStart) { store in
            store.map { views.state.stores[$0]?.name ?? $0.description } ?? Self.noStoreName
        }
        let unsorted = byItem.map { item, rows -> ItemRow in
            // reason: the rows filtered to those with a store
            let named = sortedByName(rows.filter { $0.store != nil }) { ($0.name, $0.store!) }
            let stores = named + rows.filter { $0.store == nil }
            let cheapest = stores.enumerated().min { ($0.element.lastUnitPrice, $0.offset) < ($1.element.lastUnitPrice, $1.offset) }?.element.store
            return ItemRow(item: item, name: views.name(of: item), unit: views.state.items[item]?.details.unit, stores: stores, cheapest: cheapest)
        }
        items = sortedByName(unsorted) { ($0.name, $0.item) }
    }

    private struct StoreKey: Hashable { var item: ItemID, store: StoreID? }

    /// Each item's rows, one a store it was bought at with a price (unsorted), from `records`:
    /// the purchases that are not reverted and have a price count; the last price is the last
    /// by when it was bought, then by the journal's order; the lowest and highest are over
    /// the purchases from `lowestAndHighestFrom` (ms since 1970) on. The one computation of
    /// an item's prices at a store: this view (over the 365 days before now) and the report's
    /// "Stores and prices" (``ReportFigures/prices``, over its period) both use it.
    static func storeRows(_ records: some Sequence<PurchaseRecord>, lowestAndHighestFrom windowStart: Int64,
                          name: (StoreID?) -> String) -> [ItemID: [StoreRow]] {
        let priced = records.lazy.compactMap { r in
            r.isReverted ? nil : r.unitPrice.map { PurchaseStatistics.PricedPurchase(item: r.item, store: r.store, unitPrice: $0, time: r.purchasedAt, seq: r.seq) }
        }
        return storeRows(priced: priced, lowestAndHighestFrom: windowStart, name: name)
    }

    /// ``storeRows(_:lowestAndHighestFrom:name:)`` of purchases already found not reverted and priced.
    static func storeRows(priced purchases: some Sequence<PurchaseStatistics.PricedPurchase>, lowestAndHighestFrom windowStart: Int64,
                          name: (StoreID?) -> String) -> [ItemID: [StoreRow]] {
        var rows: [StoreKey: StoreRow] = [:]
        var lastSeq: [StoreKey: Int] = [:]
        for record in purchases {
            let price = record.unitPrice
            let key = StoreKey(item: record.item, store: record.store)
            var row = rows[key] ?? StoreRow(store: record.store, name: name(record.store), lastUnitPrice: price, lastPurchased: record.time,
                                            lowest: nil, highest: nil, purchases: 0)
            row.purchases += 1
            if (record.time, record.seq) >= (row.lastPurchased, lastSeq[key] ?? 0) {
                (row.lastUnitPrice, row.lastPurchased, lastSeq[key]) = (price, record.time, record.seq)
            }
            if record.time.millisecondsSince1970 >= windowStart {
                row.lowest = min(row.lowest ?? price, price)
                row.highest = max(row.highest ?? price, price)
            }
            rows[key] = row
        }
        return Dictionary(grouping: rows, by: \.key.item).mapValues { $0.map(\.value) }
    }

    public var json: JSONValue {
        .object([
            ("view", "prices"), ("asOf", .int(asOf)),
            ("items", .array(items.map { item in
                .object([("item", .string(item.item.description)), ("name", .string(item.name)), ("unit", .optional(item.unit)),
                         ("stores", .array(item.stores.map(Self.json))),
                         ("cheapest", .optional(item.cheapest?.description))])
            })),
        ])
    }
}

extension PricesView {
    /// One row of an item's `stores` in ``json`` (the item view's `prices` too).
    static func json(_ row: StoreRow) -> JSONValue {
        .object([("store", .optional(row.store?.description)), ("name", .string(row.name)),
                 ("lastUnitPrice", .int(row.lastUnitPrice)), ("lastPurchased", .string(row.lastPurchased.description)),
                 ("lowest", .optional(row.lowest)), ("highest", .optional(row.highest)),
                 ("purchases", .int(row.purchases))])
    }
}
