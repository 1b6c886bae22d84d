import ShopEvents

/// A store's id and name, as views show it: the store the shopping list by
/// location used (docs/VIEWS.md).
///
/// ```swift
/// if let store = ShoppingListView(views, list: weekly, grouping: .byLocation)?.store { print("at", store.name) }
/// ```
public struct StoreRef: Hashable, Sendable {
    public var id: StoreID
    public var name: String

    /// Memberwise, for preview data and tests.
    public init(id: StoreID, name: String) {
        self.id = id; self.name = name
    }
    var json: JSONValue { .object([("id", .string(id.description)), ("name", .string(name))]) }
}

/// The live stores by name, each with the order its
/// shopping list is walked in, what was bought there and when last.
///
/// `order` is the whole order the store's shopping list by location uses
/// (``ShopState/visitingOrder(at:)``: the store's own order, the locations it
/// leaves out in the household's order, Unknown last); `ownOrder` only the
/// locations the store's order names. Purchases and spend are the statistics'
/// (``StatsView/stores``: reverted purchases never count); the last purchase is
/// the latest time (`purchasedAt`, else `at`) of a purchase there not reverted.
/// Built from views with the statistics projection, as ``PricesView`` is.
///
/// ```swift
/// for store in StoresView(views).stores { print(store.name, store.purchases, store.lastPurchased as Any) }
/// ```
public struct StoresView: Hashable, Sendable {
    /// One store.
    public struct Row: Hashable, Sendable {
        public var id: StoreID
        public var name: String
        /// Every live location in the order the store is walked, Unknown last.
        public var order: [LocationID]
        /// The locations the store's own order names (empty: the household's order).
        public var ownOrder: [LocationID]
        public var purchases: Int
        public var spend: Int
        public var lastPurchased: Timestamp?

        /// Memberwise, for preview data and tests.
        public init(id: StoreID, name: String, order: [LocationID], ownOrder: [LocationID], purchases: Int, spend: Int, lastPurchased: Timestamp?) {
            self.id = id; self.name = name; self.order = order; self.ownOrder = ownOrder
            self.purchases = purchases; self.spend = spend; self.lastPurchased = lastPurchased
        }
    }

    public var asOf: Int
    public var stores: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, stores: [Row]) {
        self.asOf = asOf; self.stores = stores
    }

    public init(_ views: some StatisticsFold) {
        let state = views.state
        let last = views.statistics.lastPurchased(in: state)
        asOf = views.asOf
        let tallies = views.statistics.totals.stores
        let rows = state.stores.values.filter { !$0.isDeleted }.map { store in
            let tally = tallies[store.id] ?? Tally()
            return Row(id: store.id, name: store.name, order: state.visitingOrder(at: store.id), ownOrder: store.order,
                       purchases: tally.purchases, spend: tally.spend, lastPurchased: last[store.id])
        }
        stores = sortedByName(rows) { ($0.name, $0.id) }
    }

    /// The live stores with an order of their own, by name, each with its whole order (``Row/order``); for the report.
    static func ordered(_ views: some StateFold) -> [(name: String, order: [LocationID])] {
        let own = views.state.stores.values.filter { !$0.isDeleted && !$0.order.isEmpty }
        return sortedByName(own.map { ($0.name, $0.id) }) { ($0.0, $0.1) }.map { ($0.0, views.state.visitingOrder(at: $0.1)) }
    }

    /// `{"view": "stores", "asOf", "stores": [{id, name, order, ownOrder, purchases, spend, lastPurchased}]}`.
    public var json: JSONValue {
        .object([
            ("view", "stores"), ("asOf", .int(asOf)),
            ("stores", .array(stores.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)),
                         ("order", .array(row.order.map { .string($0.description) })),
                         ("ownOrder", .array(row.ownOrder.map { .string($0.description) })),
                         ("purchases", .int(row.purchases)), ("spend", .int(row.spend)),
                         ("lastPurchased", .optional(row.lastPurchased?.description))])
            })),
        ])
    }
}
