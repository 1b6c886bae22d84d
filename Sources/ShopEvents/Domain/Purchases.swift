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
    /// purchase made while a trip at a store runs is at that store.
    static func decidePurchaseItem(_ purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Quantity?,
                                   unitPrice: Int?, location: LocationID?, purchasedAt: Timestamp?, store: StoreID? = nil,
                                   _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(purchase, field: "purchase")
        let store = try purchaseStore(store, purchasedAt: purchasedAt, state)
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

    /// The purchase's store: the one given (live, or with `purchasedAt` only existing), else the running trip's.
    private static func purchaseStore(_ store: StoreID?, purchasedAt: Timestamp?, _ state: ShopState) throws(RuleViolation) -> StoreID? {
        guard let store else { return purchasedAt == nil ? state.runningTripStore : nil }
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

/// Where the state keeps its purchases. The domain asks only this of them:
/// how they are laid out is the folder's choice. ``ShopState/initial`` keeps
/// them in a ``PurchaseList``; the journal and the views keep them in a
/// compact table below the domain, which a snapshot maps in place.
public protocol PurchaseStorage: Sendable {
    /// How many purchases were ever recorded, reverted ones included.
    var count: Int { get }
    /// Where a purchase stands in journal order (0 for the first).
    func position(of id: PurchaseID) -> Int?
    /// The purchase at a position in journal order.
    func purchase(at position: Int) -> Purchase
    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    mutating func insert(_ purchase: Purchase)
    /// Marks a known purchase reverted.
    mutating func markReverted(_ id: PurchaseID)
    /// The same storage with nothing in it.
    func emptied() -> any PurchaseStorage
    /// Whether `other` holds the same purchases, where this storage can tell
    /// cheaply (one of its own kind); nil where it cannot.
    func quicklyEquals(_ other: any PurchaseStorage) -> Bool?
}

/// Every purchase of a household ever recorded (a purchase id is never
/// reused), in journal order, in whatever ``PurchaseStorage`` the fold began with.
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct Purchases: Hashable, Sendable {
    /// Where they are kept.
    public private(set) var storage: any PurchaseStorage

    public init(in storage: any PurchaseStorage = PurchaseList()) { self.storage = storage }

    public var count: Int { storage.count }

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = storage.position(of: id) else { return nil }
        return storage.purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> {
        let storage = self.storage
        return (0..<storage.count).lazy.map { storage.purchase(at: $0) }
    }

    /// Where a purchase stands in journal order (0 for the first).
    public func position(of id: PurchaseID) -> Int? { storage.position(of: id) }

    /// The purchase at a position in journal order.
    public func purchase(at position: Int) -> Purchase { storage.purchase(at: position) }

    mutating func insert(_ purchase: Purchase) { storage.insert(purchase) }

    mutating func markReverted(_ id: PurchaseID) { storage.markReverted(id) }

    /// The same storage, emptied.
    package mutating func removeAll() { storage = storage.emptied() }

    public static func == (a: Purchases, b: Purchases) -> Bool {
        guard a.count == b.count else { return false }
        return a.storage.quicklyEquals(b.storage) ?? a.values.elementsEqual(b.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if count > 0 { hasher.combine(purchase(at: count - 1).id) }
    }
}

/// The plain ``PurchaseStorage``: an array in journal order and a dictionary
/// from id to position (about 390 bytes a purchase).
public struct PurchaseList: PurchaseStorage, Hashable {
    private var all: [Purchase] = []
    private var positions: [PurchaseID: Int] = [:]

    public init() {}

    public var count: Int { all.count }
    public func position(of id: PurchaseID) -> Int? { positions[id] }
    public func purchase(at position: Int) -> Purchase { all[position] }

    public mutating func insert(_ purchase: Purchase) {
        guard positions[purchase.id] == nil else { return }
        positions[purchase.id] = all.count
        all.append(purchase)
    }

    public mutating func markReverted(_ id: PurchaseID) {
        guard let at = positions[id] else { return }
        all[at].isReverted = true
    }

    public func emptied() -> any PurchaseStorage { PurchaseList() }

    public func quicklyEquals(_ other: any PurchaseStorage) -> Bool? {
        (other as? PurchaseList).map { $0.all == all }
    }
}
