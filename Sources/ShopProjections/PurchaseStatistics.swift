import ShopEvents

/// The statistics projection: the running totals (``PurchaseTotals``) and
/// the compact purchase table they need — per purchase its quantity, price,
/// buyer, place, store and `seq`, by its position in the state's purchase
/// ledger — so that a revert takes its purchase out of every total, and the
/// prices and stores views can look at each purchase. About 30 bytes a
/// purchase; no names (the audit's records keep those: ``PurchaseAudit``).
///
/// Applying one event costs a few dictionary updates; a revert also looks
/// through the purchases of that one item to find its new first and last.
/// It is folded beside the state, which it reads as it was just before each
/// event (``apply(_:before:)``), as ``HouseholdViews`` does.
///
/// ```swift
/// var state = ShopState.initial, statistics = PurchaseStatistics()
/// for recorded in events {
///     statistics.apply(recorded, before: state)
///     state.apply(recorded)
/// }
/// print(statistics.totals.items[milk]?.tally.purchases ?? 0)
/// ```
public struct PurchaseStatistics: Hashable, Sendable {
    // Equal and hashed by what it counts, not by the buyer it last looked up (`lastActor`).
    public static func == (a: Self, b: Self) -> Bool {
        a.totals == b.totals && a.byItem == b.byItem && a.amounts == b.amounts && a.rows == b.rows
            && a.amountStores == b.amountStores && a.actorNames == b.actorNames
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(totals)
        hasher.combine(amounts)
    }

    /// The totals per item, month, buyer, place and store.
    public internal(set) var totals = PurchaseTotals()
    /// Per item, where its purchases stand in the state's purchase ledger.
    var byItem: [ItemID: [Int32]] = [:]
    /// Quantity, price and buyer of each purchase, by its position in the state's purchase ledger.
    var amounts = AmountTable()
    /// Where each purchase was bought and its `seq`, by its position in the
    /// state's purchase ledger (which keeps only what the rules need).
    var rows = PurchaseRows()
    /// The store of each purchase that names one, by its position in the state's purchase ledger.
    var amountStores: [Int32: StoreID] = [:]
    var actorNames: [String] = []
    var actorHandles: [String: Int32] = [:]
    /// The buyer of the last purchase counted and its handle: most purchases come in runs by one
    /// person (a trip), which then cost a comparison of two short strings rather than a hash.
    private var lastActor: (name: String, handle: Int32)?

    struct Amount: Hashable, Sendable {
        var quantity: Quantity
        var unitPrice: Int?
        var actor: Int32
    }

    public init() {}

    /// Days and months in the household's time zone.
    public var calendar: HouseholdCalendar { totals.calendar }

    /// Folds `recorded` in; `state` is the household just before it.
    public mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        switch recorded.event {
        case .householdCreated:
            totals.noteCalendar(recorded.event)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            bought(purchase, item: item, quantity: quantity, unitPrice: unitPrice, location: location, time: purchasedAt ?? recorded.at,
                   store: store, actor: recorded.actor, seq: recorded.seq, before: state)
        case let .purchaseReverted(purchase):
            reverted(purchase, before: state)
        default:
            break   // the statistics read only the calendar, purchases and reverts (names come from the state)
        }
    }

    /// A purchase event's part of ``apply(_:before:)`` (its fields taken apart once by whoever folds it).
    mutating func bought(_ purchase: PurchaseID, item: ItemID, quantity: Quantity, unitPrice: Int?, location: LocationID, time: Timestamp,
                         store: StoreID?, actor: String, seq: Int, before state: borrowing ShopState) {
        // The state keeps the first purchase of an id (a legal journal has no other); so do the totals.
        guard state.purchases.position(of: purchase) == nil else { return }
        rows.append(seq: seq, location: location)
        byItem[item, default: []].append(Int32(state.purchases.count))
        if let store { amountStores[Int32(state.purchases.count)] = store }
        amounts.append(Amount(quantity: quantity, unitPrice: unitPrice, actor: handle(actor)))
        totals.count(PurchaseTotals.Fact(item: item, location: location, actor: actor, time: time,
                                         quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
    }

    /// A revert's part of ``apply(_:before:)``.
    mutating func reverted(_ purchase: PurchaseID, before state: borrowing ShopState) {
        guard let at = state.purchases.position(of: purchase) else { return }
        let bought = state.purchases.purchase(at: at)
        guard !bought.isReverted else { return }
        let amount = amounts[at]
        let purchases = state.purchases   // for the closure, which may not capture the borrowed state
        totals.count(PurchaseTotals.Fact(item: bought.item, location: rows.location(at: at), actor: actorNames[Int(amount.actor)],
                                         time: bought.effectiveTime, quantity: amount.quantity, unitPrice: amount.unitPrice,
                                         store: amountStores[Int32(at)]), sign: -1, positions: byItem[bought.item] ?? []) { position in
            position == at || purchases.isReverted(at: position) ? nil : purchases.time(at: position)
        }
    }

    mutating func handle(_ actor: String) -> Int32 {
        if let lastActor, lastActor.name == actor { return lastActor.handle }
        let handle: Int32
        if let known = actorHandles[actor] {
            handle = known
        } else {
            handle = Int32(actorNames.count)
            actorNames.append(actor)
            actorHandles[actor] = handle
        }
        lastActor = (actor, handle)
        return handle
    }

    /// The whole purchase of an id `state`'s ledger knows; nil for one it does not.
    public func purchase(_ id: PurchaseID, in state: ShopState) -> Purchase? {
        rows.purchase(id, in: state.purchases)
    }

    /// How many a purchase bought; nil for one `state`'s ledger does not know.
    public func quantity(of purchase: PurchaseID, in state: ShopState) -> Quantity? {
        state.purchases.position(of: purchase).map { amounts[$0].quantity }
    }

    /// One purchase as the prices count it: not reverted, with a price.
    struct PricedPurchase {
        var item: ItemID
        var store: StoreID?
        var unitPrice: Int
        var time: Timestamp
        var seq: Int
    }

    /// Every purchase that is not reverted and has a price (of `item` only, if given), in journal order.
    func pricedPurchases(of item: ItemID?, in state: ShopState) -> [PricedPurchase] {
        let positions = item.map { (byItem[$0] ?? []).map(Int.init) } ?? Array(0..<state.purchases.count)
        return positions.compactMap { position in
            let bought = state.purchases.purchase(at: position)
            guard !bought.isReverted, let price = amounts[position].unitPrice else { return nil }
            return PricedPurchase(item: bought.item, store: amountStores[Int32(position)], unitPrice: price,
                                  time: bought.effectiveTime, seq: rows.seq(at: position))
        }
    }

    /// The latest time (`purchasedAt`, else `at`) of a purchase not reverted,
    /// per store that has one: from the stores of the purchases and `state`'s
    /// purchase ledger (time, reverted) — nothing kept for it, so a revert of
    /// a store's last purchase makes the one before it the last.
    func lastPurchased(in state: ShopState) -> [StoreID: Timestamp] {
        var last: [StoreID: Timestamp] = [:]
        for (position, store) in amountStores where !state.purchases.isReverted(at: Int(position)) {
            let time = state.purchases.purchase(at: Int(position)).effectiveTime
            if last[store].map({ $0 < time }) ?? true { last[store] = time }
        }
        return last
    }
}
