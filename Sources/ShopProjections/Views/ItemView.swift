import ShopEvents

/// One item's details (docs/VIEWS.md): what it is and where, the lists it
/// is on, its prices per store (``PricesView``'s rows) and its last
/// purchases, newest first (``AuditView``'s rows). A deleted item is shown
/// too, marked. Built from views that keep every purchase's record.
///
/// ```swift
/// guard let view = ItemView(views, item: milk) else { return }   // no such item
/// print(view.item.name, view.lists.map(\.name), view.prices.map(\.name), view.purchases.count)
/// ```
public struct ItemView: Hashable, Sendable {
    /// A list the item is on, with its entry there.
    public struct ListRow: Hashable, Sendable {
        public var id: ListID
        public var name: String
        public var quantity: Quantity
        public var bought: Bool

        /// Memberwise, for preview data and tests.
        public init(id: ListID, name: String, quantity: Quantity, bought: Bool) {
            self.id = id; self.name = name; self.quantity = quantity; self.bought = bought
        }
    }

    /// How many of its last purchases the view shows.
    public static let purchaseLimit = 20

    public var asOf: Int
    public var item: Item
    public var locationName: String
    /// The live lists it is on, as ``ListsView`` orders them.
    public var lists: [ListRow]
    /// What it cost at each store (none for a deleted item, as ``PricesView``).
    public var prices: [PricesView.StoreRow]
    /// Its last ``purchaseLimit`` purchases, newest first (in the journal's order, reversed).
    public var purchases: [PurchaseRecord]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, item: Item, locationName: String, lists: [ListRow], prices: [PricesView.StoreRow], purchases: [PurchaseRecord]) {
        self.asOf = asOf; self.item = item; self.locationName = locationName; self.lists = lists; self.prices = prices
        self.purchases = purchases
    }

    /// `nil` when `views` have no such item.
    public init?(_ views: HouseholdViews, item id: ItemID) {
        guard let item = views.state.items[id] else { return nil }
        asOf = views.asOf
        self.item = item
        locationName = views.name(of: item.location)
        lists = ListsView(views).lists.compactMap { row in
            views.state.lists[row.id]?.entry(for: id).map { ListRow(id: row.id, name: row.name, quantity: $0.quantity, bought: $0.isBought) }
        }
        prices = PricesView(views, item: id).items.first { $0.item == id }?.stores ?? []
        purchases = Array(AuditView(views, filter: AuditView.Filter(item: id)).purchases.suffix(Self.purchaseLimit).reversed())
    }

    public var json: JSONValue {
        let d = item.details
        return .object([
            ("view", "item"), ("asOf", .int(asOf)),
            ("item", .object([("id", .string(item.id.description)), ("name", .string(item.name)),
                              ("location", .string(item.location.description)), ("locationName", .string(locationName)),
                              ("unitPrice", .optional(d.unitPrice)), ("unit", .optional(d.unit)), ("barcode", .optional(d.barcode)),
                              ("category", .optional(d.category)), ("notes", .optional(d.notes)),
                              ("available", .bool(item.isAvailable)), ("deleted", .bool(item.isDeleted))])),
            ("lists", .array(lists.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)), ("quantity", .quantity(row.quantity)),
                         ("bought", .bool(row.bought))])
            })),
            ("prices", .array(prices.map(PricesView.json))),
            ("purchases", .array(purchases.map(AuditView.json))),
        ])
    }
}
