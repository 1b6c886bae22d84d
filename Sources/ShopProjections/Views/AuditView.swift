import ShopEvents

/// Who bought what, when, where and for how much: every purchase ever
/// recorded, in journal order, with names as they were at the time.
/// Reverted purchases are shown, marked.
///
/// ```swift
/// var filter = AuditView.Filter()
/// filter.actor = "ben"
/// for row in AuditView(views, filter: filter).purchases { print(row.purchasedAt, row.itemName, row.quantity) }
/// ```
public struct AuditView: Hashable, Sendable {
    /// Which purchases to show; `nil` fields do not filter.
    public struct Filter: Hashable, Sendable {
        public var actor: String?
        public var item: ItemID?
        public var list: ListID?
        /// Purchases at or after this time (`purchasedAt`, else `at`).
        public var from: Timestamp?
        /// Purchases before this time.
        public var to: Timestamp?
        /// Purchases at this store.
        public var store: StoreID?

        public init(actor: String? = nil, item: ItemID? = nil, list: ListID? = nil, from: Timestamp? = nil, to: Timestamp? = nil,
                    store: StoreID? = nil) {
            self.actor = actor; self.item = item; self.list = list; self.from = from; self.to = to; self.store = store
        }

        func matches(_ record: PurchaseRecord) -> Bool {
            (actor.map { $0 == record.actor } ?? true) && (item.map { $0 == record.item } ?? true)
                && (list.map { $0 == record.list } ?? true) && (from.map { record.purchasedAt >= $0 } ?? true)
                && (to.map { record.purchasedAt < $0 } ?? true) && (store.map { $0 == record.store } ?? true)
        }
    }

    public var asOf: Int
    public var purchases: [PurchaseRecord]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, purchases: [PurchaseRecord]) {
        self.asOf = asOf; self.purchases = purchases
    }

    /// From views folded with every record: any views the public API folds
    /// (a ``HouseholdModel``'s included). The package's one-view reads that
    /// keep less use ``AuditQuery``, which streams the same rows from the journal.
    public init(_ views: HouseholdViews, filter: Filter = Filter()) {
        asOf = views.asOf
        purchases = views.audit.records.filter(filter.matches)
    }

    public var json: JSONValue {
        .object([("view", "audit"), ("asOf", .int(asOf)), ("purchases", .array(purchases.map(Self.json)))])
    }

    /// One row of ``json``'s `purchases`.
    public static func json(_ r: PurchaseRecord) -> JSONValue {
        .object([("seq", .int(r.seq)), ("event", .string(r.event.description)),
                 ("purchase", .string(r.purchase.description)), ("purchasedAt", .string(r.purchasedAt.description)),
                 ("actor", .string(r.actor)), ("item", .string(r.item.description)), ("itemName", .string(r.itemName)),
                 ("quantity", .quantity(r.quantity)), ("unitPrice", .optional(r.unitPrice)),
                 ("list", .optional(r.list?.description)), ("listName", .optional(r.listName)),
                 ("location", .string(r.location.description)), ("locationName", .string(r.locationName)),
                 ("reverted", .bool(r.isReverted)),
                 ("store", .optional(r.store?.description)), ("storeName", .optional(r.storeName))])
    }
}
