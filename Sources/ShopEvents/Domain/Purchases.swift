// Purchases: buying an item on or off a list, and reverting a purchase.

extension ShopDecider {
    /// On a list, the item must be on it and not bought; quantity defaults to
    /// the entry's, price to the item's, location to the item's. Off a list,
    /// quantity defaults to 1. Off a list and with `purchasedAt`, the item may
    /// have been deleted since (a purchase recorded after the fact: an offline
    /// phone, an import); its location then defaults to the item's last one,
    /// even if that location was deleted since.
    ///
    /// `store` must be live; with `purchasedAt` (bought earlier, recorded
    /// now) it need only exist. Without `store` and without `purchasedAt`, a
    /// purchase made while its actor's own trip at a store runs is at that
    /// store, while that store is live (deleted during the trip: at no store);
    /// another shopper's trip gives it no store.
    static func decidePurchaseItem(_ purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Quantity?,
                                   unitPrice: Int?, location: LocationID?, purchasedAt: Timestamp?, store: StoreID? = nil,
                                   _ state: ShopState, actor: String) throws(RuleViolation) -> [Event] {
        try state.requireNew(purchase, field: "purchase")
        let store = try purchaseStore(store, purchasedAt: purchasedAt, state, actor: actor)
        if list == nil, purchasedAt != nil, let deleted = state.items[item], deleted.isDeleted {
            let quantity = try ShopState.validQuantity(quantity ?? 1)
            try ShopState.validPrice(unitPrice)
            let place = location ?? deleted.location
            guard state.locations[place] != nil else {
                throw RuleViolation(.unknownLocation, "location \(place) does not exist", field: "location")
            }
            return [.itemPurchased(purchase: purchase, item: item, list: nil, quantity: quantity,
                                   unitPrice: unitPrice ?? deleted.details.unitPrice, location: place, purchasedAt: purchasedAt, store: store)]
        }
        let bought = try state.requireLiveItem(item)
        var defaultQuantity: Quantity = 1
        if let list {
            let shoppingList = try state.requireLiveList(list)
            let entry = try state.requireEntry(item, on: shoppingList)
            if entry.isBought {
                throw RuleViolation(.alreadyBought, "item \(item) (\(ShopState.quoted(bought.name))) on list \(list) is already bought", field: "item")
            }
            defaultQuantity = entry.quantity
        }
        let quantity = try ShopState.validQuantity(quantity ?? defaultQuantity)
        try ShopState.validPrice(unitPrice)
        let place = location ?? bought.location
        _ = try state.requireLiveLocation(place)
        return [.itemPurchased(purchase: purchase, item: item, list: list, quantity: quantity,
                               unitPrice: unitPrice ?? bought.details.unitPrice, location: place,
                               purchasedAt: purchasedAt, store: store)]
    }

    /// The purchase's store: the one given (live, or with `purchasedAt` only existing), else the store of the actor's own
    /// running trip while that store is live.
    private static func purchaseStore(_ store: StoreID?, purchasedAt: Timestamp?, _ state: ShopState, actor: String) throws(RuleViolation) -> StoreID? {
        guard let store else { return purchasedAt == nil ? state.liveRunningTripStore(for: actor) : nil }
        if purchasedAt != nil {
            guard state.stores[store] != nil else { throw RuleViolation(.unknownStore, "store \(store) does not exist", field: "store") }
            return store
        }
        return try state.requireLiveStore(store).id
    }

    static func decideRevertPurchase(_ purchase: PurchaseID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        guard let found = state.purchases[purchase] else {
            throw RuleViolation(.unknownPurchase, "purchase \(purchase) does not exist", field: "purchase")
        }
        if found.isReverted {
            throw RuleViolation(.alreadyReverted, "purchase \(purchase) was already reverted", field: "purchase")
        }
        return [.purchaseReverted(purchase: purchase)]
    }
}

extension ShopState {
    mutating func applyItemPurchased(_ purchase: Purchase) {
        purchases.insert(purchase)
        markBought(by: purchase)
    }

    /// The entry the purchase bought, if it was bought on a list, is bought.
    mutating func markBought(by purchase: Purchase) {
        guard let list = purchase.list else { return }
        lists.change(list) {
            $0.updateEntry(for: purchase.item) {
                $0.purchase = purchase.id
                $0.boughtSeq = purchase.seq
            }
        }
    }

    /// The purchase drops out of statistics; its entry, if still bought by it, is to buy again.
    mutating func applyPurchaseReverted(_ id: PurchaseID) {
        guard let purchase = purchases[id] else { return }
        purchases.markReverted(id)
        if let list = purchase.list, lists[list]?.entry(for: purchase.item)?.purchase == id {
            lists.change(list) {
                $0.updateEntry(for: purchase.item) {
                    $0.purchase = nil
                    $0.boughtSeq = nil
                }
            }
        }
    }
}
