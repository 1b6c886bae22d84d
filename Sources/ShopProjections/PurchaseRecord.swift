import ShopEvents

/// One purchase as the audit shows it: names as they were when it was bought.
public struct PurchaseRecord: Hashable, Sendable {
    public var seq: Int
    public var event: EventID
    public var purchase: PurchaseID
    /// When it was bought: `purchasedAt`, or the event's `at`.
    public var purchasedAt: Timestamp
    public var actor: String
    public var item: ItemID
    public var itemName: String
    public var quantity: Quantity
    public var unitPrice: Int?
    public var list: ListID?
    public var listName: String?
    public var location: LocationID
    public var locationName: String
    public var isReverted: Bool
    /// Where it was bought; `nil`: no store named.
    public var store: StoreID?
    /// The store's name when it was bought.
    public var storeName: String?

    /// Memberwise, for preview data and tests.
    public init(seq: Int, event: EventID, purchase: PurchaseID, purchasedAt: Timestamp, actor: String, item: ItemID, itemName: String, quantity: Quantity, unitPrice: Int?, list: ListID?, listName: String?, location: LocationID, locationName: String, isReverted: Bool,
                store: StoreID? = nil, storeName: String? = nil) {
        self.seq = seq; self.event = event; self.purchase = purchase; self.purchasedAt = purchasedAt; self.actor = actor; self.item = item; self.itemName = itemName; self.quantity = quantity; self.unitPrice = unitPrice; self.list = list; self.listName = listName; self.location = location; self.locationName = locationName; self.isReverted = isReverted
        self.store = store; self.storeName = storeName
    }

    /// quantity × unitPrice, rounded half to even; a purchase without a price adds none.
    public var spend: Int { unitPrice.map { quantity.cost(unitPrice: $0) } ?? 0 }
}
