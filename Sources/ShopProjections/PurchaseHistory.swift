import ShopEvents

/// Every purchase in journal order, with running totals per item, month,
/// actor and place of purchase. Reverted purchases stay in the records
/// (marked) and drop out of every total.
///
/// Applying one event costs a few dictionary updates; a revert also looks
/// through the purchases of that one item to find its new first and last.
/// How much is kept is its ``Depth``: the records take memory by the history,
/// the totals by the household (and about 30 bytes a purchase for reverts).
public struct PurchaseHistory: Hashable, Sendable {
    /// How much of the purchase history is folded: a choice of the package's
    /// own command-line reads, each of which shows one view; every public way
    /// to fold views keeps `.records`, which every view can be built from.
    package enum Depth: Hashable, Sendable {
        /// Nothing but the household's calendar, and the state keeps no
        /// purchase table, ended trip, deleted item or deleted location either: of the purchases, only
        /// which list entries they bought. Memory by the household, not its
        /// history; enough for the lists, shopping lists, locations and members.
        case entries
        /// Nothing but the household's calendar; the state keeps its purchase
        /// table (which purchase was reverted, for the audit streamed from the journal).
        case none
        /// The totals per item, month, actor and place; of each purchase only
        /// what a revert needs beside the state's purchase table (its quantity,
        /// price and buyer). No ``PurchaseHistory/records``.
        case totals
        /// Every purchase as the audit shows it, with the names it had then, and the totals.
        case records
    }

    package internal(set) var depth = Depth.records
    /// Every purchase (`.records` only; empty otherwise).
    public internal(set) var records: [PurchaseRecord] = []
    var index: [PurchaseID: Int] = [:]
    /// Per item, where its purchases stand: in ``records``, or (`.totals`) in the state's purchase table.
    var byItem: [ItemID: [Int32]] = [:]
    /// `.totals`: quantity, price and buyer of each purchase, by its position in the state's purchase table.
    var amounts = AmountTable()
    /// `.totals`: where each purchase was bought and its `seq`, by its position
    /// in the state's purchase ledger (which keeps only what the rules need).
    var rows = PurchaseRows()
    var actorNames: [String] = []
    var actorHandles: [String: Int32] = [:]
    public internal(set) var items: [ItemID: ItemTally] = [:]
    /// By month number (year × 12 + month − 1) in the household's time zone; see ``monthTotals``.
    var months: [Int: Tally] = [:]
    public internal(set) var actors: [String: Tally] = [:]
    public internal(set) var locations: [LocationID: Tally] = [:]
    /// Per store that purchases name (never the key `nil`: see ``stores``).
    var namedStores: [StoreID?: Tally] = [:]
    /// Per store; the key `nil` for purchases that name none (SPEC section 10).
    /// That row is the whole (every month's) less the named stores', not
    /// counted on its own: a fold pays no store update for a purchase without one.
    public var stores: [StoreID?: Tally] {
        var all = namedStores
        var none = months.values.reduce(into: Tally()) { whole, month in
            whole.purchases += month.purchases; whole.quantity += month.quantity; whole.spend += month.spend
        }
        for named in namedStores.values {
            none.purchases -= named.purchases; none.quantity -= named.quantity; none.spend -= named.spend
        }
        if none.purchases > 0 { all[nil] = none }
        return all
    }
    /// `.totals`: the store of each purchase that names one, by its position in the state's purchase table.
    var amountStores: [Int32: StoreID] = [:]
    var calendar = HouseholdCalendar.utc
    /// `.totals` folded for one read whose reverts are known before it
    /// starts (see ``init(settling:)``); nil otherwise.
    var settled: Settled?

    /// What a fold that knows its reverts in advance keeps instead of a
    /// table of every purchase: the purchases it will see reverted, how far
    /// each has got, and the last names of the items and places deleted on
    /// the way (the state it goes with keeps no deleted item or location).
    /// The name of a deleted item that has totals is kept with them
    /// (``ItemTally``); `deletedNames` has only those of the others.
    struct Settled: Hashable, Sendable {
        var stages: Foresight
        var deletedNames: [ItemID: String] = [:]
        var deletedLocationNames: [LocationID: String] = [:]
        /// The trips ended on the way (the state lets them go): how many, and their running time.
        var endedTrips = 0
        var endedMilliseconds: Int64 = 0
        /// The fold met a revert the reading ahead did not foresee, or one before its purchase.
        var unforeseen = false
    }

    struct Amount: Hashable, Sendable {
        var quantity: Quantity
        var unitPrice: Int?
        var actor: Int32
    }

    /// What the totals count of one purchase.
    struct Fact {
        var item: ItemID
        var location: LocationID
        var actor: String
        var time: Timestamp
        var quantity: Quantity
        var unitPrice: Int?
        var store: StoreID?
        /// Worked out once (a rounded product), not once for each total it is added to.
        let spend: Int

        init(item: ItemID, location: LocationID, actor: String, time: Timestamp, quantity: Quantity, unitPrice: Int?, store: StoreID?) {
            self.item = item; self.location = location; self.actor = actor; self.time = time
            self.quantity = quantity; self.unitPrice = unitPrice; self.store = store
            spend = unitPrice.map { quantity.cost(unitPrice: $0) } ?? 0
        }
    }

    public init() {}

    /// A history that keeps only as much as `depth`.
    package init(depth: Depth) { self.depth = depth }

    /// `.totals` for one read to an end whose reverts are known before it
    /// starts: `reverted` holds every purchase that the events to be folded
    /// revert. A purchase among them is never counted and a revert is
    /// passed over, so no purchase needs keeping for a revert to come (the
    /// state it goes with keeps no history either: ``HouseholdViews/init(settling:)``).
    /// The totals equal those of a plain `.totals` fold when the events
    /// revert exactly those purchases, each after it was bought; if they do
    /// not, ``isSettled`` says so and the read folds again the plain way.
    /// Such a history is for showing, never for a snapshot.
    package init(settling reverted: Set<PurchaseID>) {
        depth = .totals
        settled = Settled(stages: Foresight(reverted))
    }

    /// Whether the totals folded so far equal a plain `.totals` fold's: true
    /// unless this history was made by ``init(settling:)`` and the events did
    /// not revert exactly the purchases it was told of, each after its
    /// purchase: a revert it was not told of, a revert before its purchase,
    /// or a purchase it was told of bought and its revert still to come. (A
    /// purchase it was told of and never bought nor reverted is nothing in
    /// either fold.)
    package var isSettled: Bool {
        guard let settled else { return true }
        return !settled.unforeseen && !settled.stages.anyBought
    }

    /// Whether this history was folded by ``init(settling:)``.
    package var isSettling: Bool { settled != nil }

    /// Lets go of what the fold checked its foresight with, once it has been
    /// found good (``isSettled``): the totals are all that is shown.
    package mutating func dropForesight() {
        precondition(isSettled)
        settled?.stages = Foresight([])
    }

    /// The trips a settling fold saw end (its state keeps none that ended):
    /// how many, and their running time in milliseconds; (0, 0) otherwise.
    package var endedTrips: (count: Int, milliseconds: Int64) {
        (settled?.endedTrips ?? 0, settled?.endedMilliseconds ?? 0)
    }

    /// The last name of an item deleted during a settling fold (its state no longer holds it).
    package func deletedName(of item: ItemID) -> String? {
        guard let settled else { return nil }
        return items[item]?.deletedName ?? settled.deletedNames[item]
    }
    /// The last name of a location deleted during a settling fold.
    package func deletedName(of location: LocationID) -> String? { settled?.deletedLocationNames[location] }

    /// The record of a purchase id (`.records` only).
    public func record(_ purchase: PurchaseID) -> PurchaseRecord? { index[purchase].map { records[$0] } }

    /// The whole purchase of an id `state`'s ledger knows: from the rows at
    /// `.totals` (but a settling fold's), from its record at `.records`; nil otherwise.
    public func purchase(_ id: PurchaseID, in state: ShopState) -> Purchase? {
        switch depth {
        case .records:
            guard let r = record(id) else { return nil }
            return Purchase(id: r.purchase, item: r.item, list: r.list, location: r.location, effectiveTime: r.purchasedAt,
                            seq: r.seq, isReverted: r.isReverted)
        case .totals:
            return settled == nil ? rows.purchase(id, in: state.purchases) : nil
        case .entries, .none:
            return nil
        }
    }

    /// How many a purchase bought, where this depth keeps it (`.records`, `.totals`); nil otherwise.
    public func quantity(of purchase: PurchaseID, in state: ShopState) -> Quantity? {
        switch depth {
        case .records: return record(purchase)?.quantity
        case .totals: return state.purchases.position(of: purchase).map { amounts[$0].quantity }
        case .entries, .none: return nil
        }
    }

    /// One purchase as the prices count it: not reverted, with a price.
    struct PricedPurchase {
        var item: ItemID
        var store: StoreID?
        var unitPrice: Int
        var time: Timestamp
        var seq: Int
    }

    /// Every purchase that is not reverted and has a price (of `item` only,
    /// if given), in journal order: from the records at `.records`, from the
    /// amounts and `state`'s purchase table at `.totals`. `nil` where this
    /// history keeps neither (`.entries`, `.none`, a settling fold).
    func pricedPurchases(of item: ItemID?, in state: ShopState) -> [PricedPurchase]? {
        // Positions of the one item's purchases, or of every purchase.
        func positions(_ count: Int) -> [Int] { item.map { (byItem[$0] ?? []).map(Int.init) } ?? Array(0..<count) }
        switch depth {
        case .records:
            return positions(records.count).compactMap { position in
                let r = records[position]
                guard !r.isReverted, let price = r.unitPrice else { return nil }
                return PricedPurchase(item: r.item, store: r.store, unitPrice: price, time: r.purchasedAt, seq: r.seq)
            }
        case .totals:
            guard settled == nil else { return nil }
            return positions(state.purchases.count).compactMap { position in
                let bought = state.purchases.purchase(at: position)
                guard !bought.isReverted, let price = amounts[position].unitPrice else { return nil }
                return PricedPurchase(item: bought.item, store: amountStores[Int32(position)], unitPrice: price,
                                      time: bought.effectiveTime, seq: rows.seq(at: position))
            }
        case .entries, .none:
            return nil
        }
    }

    /// The latest time (`purchasedAt`, else `at`) of a purchase not reverted,
    /// per store that has one: from the records at `.records`, from the
    /// stores of the purchases and `state`'s purchase ledger (time, reverted)
    /// at `.totals` — nothing kept for it, so a revert of a store's last
    /// purchase makes the one before it the last. `nil` where this history
    /// keeps neither (`.entries`, `.none`, a settling fold).
    func lastPurchased(in state: ShopState) -> [StoreID: Timestamp]? {
        var last: [StoreID: Timestamp] = [:]
        func bought(_ time: Timestamp, at store: StoreID) {
            if last[store].map({ $0 < time }) ?? true { last[store] = time }
        }
        switch depth {
        case .records:
            for record in records where !record.isReverted {
                if let store = record.store { bought(record.purchasedAt, at: store) }
            }
        case .totals:
            guard settled == nil else { return nil }
            for (position, store) in amountStores where !state.purchases.isReverted(at: Int(position)) {
                bought(state.purchases.purchase(at: Int(position)).effectiveTime, at: store)
            }
        case .entries, .none:
            return nil
        }
        return last
    }

    /// Folds `recorded` in; `state` is the household just before it (for names).
    mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        // Moved out and back (no copy: reading the optional copied all it holds, for each event).
        if var settling = settled.take() {
            defer { settled = settling }
            return applySettling(recorded, before: state, into: &settling)
        }
        switch recorded.event {
        case let .householdCreated(_, _, _, timeZone):
            calendar = HouseholdCalendar(timeZone: timeZone)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            switch depth {
            case .entries, .none:
                // Only the totals and the records count a purchase: the others pay for no fact (its spend is a rounded product).
                return
            case .totals:
                // The state keeps the first purchase of an id (a legal journal has no other); so do the totals.
                guard state.purchases.position(of: purchase) == nil else { return }
                rows.append(seq: recorded.seq, location: location)
                byItem[item, default: []].append(Int32(state.purchases.count))
                if let store { amountStores[Int32(state.purchases.count)] = store }
                amounts.append(Amount(quantity: quantity, unitPrice: unitPrice, actor: handle(recorded.actor)))
            case .records:
                // reason: the record of a purchase event is always made (nil only for other events)
                let record = PurchaseRecord(recorded, before: state)!
                index[purchase] = records.count
                byItem[item, default: []].append(Int32(records.count))
                records.append(record)
            }
            count(Fact(item: item, location: location, actor: recorded.actor, time: purchasedAt ?? recorded.at,
                       quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
        case let .purchaseReverted(purchase):
            switch depth {
            case .entries, .none:
                return
            case .totals:
                guard let at = state.purchases.position(of: purchase) else { return }
                let bought = state.purchases.purchase(at: at)
                guard !bought.isReverted else { return }
                let amount = amounts[at]
                let purchases = state.purchases   // for the closure, which may not capture the borrowed state
                count(Fact(item: bought.item, location: rows.location(at: at), actor: actorNames[Int(amount.actor)],
                           time: bought.effectiveTime, quantity: amount.quantity, unitPrice: amount.unitPrice,
                           store: amountStores[Int32(at)]), sign: -1) { position in
                    let other = purchases.purchase(at: position)
                    return position == at || other.isReverted ? nil : other.effectiveTime
                }
            case .records:
                guard let at = index[purchase], !records[at].isReverted else { return }
                records[at].isReverted = true
                let r = records[at], all = records   // shares the buffer: `count` does not touch the records
                count(Fact(item: r.item, location: r.location, actor: r.actor, time: r.purchasedAt,
                           quantity: r.quantity, unitPrice: r.unitPrice, store: r.store), sign: -1) { position in
                    all[position].isReverted ? nil : all[position].purchasedAt
                }
            }
        default:
            break   // the history reads only the calendar, purchases and reverts (names come from the state)
        }
    }

    /// ``apply(_:before:)`` of a settling fold: counts every purchase but
    /// those it was told will be reverted; passes over their reverts.
    private mutating func applySettling(_ recorded: RecordedEvent, before state: borrowing ShopState, into settled: inout Settled) {
        switch recorded.event {
        case let .householdCreated(_, _, _, timeZone):
            calendar = HouseholdCalendar(timeZone: timeZone)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            if let at = settled.stages.position(of: purchase) {
                // Its revert is to come; a second purchase of the id (no legal journal has one) is not counted either.
                if settled.stages[at] == .awaited { settled.stages[at] = .bought }
                return
            }
            count(Fact(item: item, location: location, actor: recorded.actor, time: purchasedAt ?? recorded.at,
                       quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
        case let .purchaseReverted(purchase):
            guard let at = settled.stages.position(of: purchase) else { settled.unforeseen = true; return }
            switch settled.stages[at] {
            case .bought: settled.stages[at] = .reverted
            case .reverted: break   // reverted twice: a plain fold passes over it too
            case .awaited: settled.unforeseen = true
            }
        case let .itemDeleted(item):
            guard let name = state.items[item]?.name else { return }
            if items[item] != nil { items[item]?.deletedName = name } else { settled.deletedNames[item] = name }
        case let .locationDeleted(location):
            if let name = state.locations[location]?.name { settled.deletedLocationNames[location] = name }
        case let .tripEnded(trip):
            guard var ended = state.trips[trip] else { return }
            if case .ended = ended.phase { return }   // ended twice: counted once, as the state does
            ended.end(at: recorded.at)
            settled.endedTrips += 1
            settled.endedMilliseconds += ended.activeMilliseconds
        default:
            break   // nothing else to count, nor to keep of what the state lets go
        }
    }

    mutating func handle(_ actor: String) -> Int32 {
        if let known = actorHandles[actor] { return known }
        let new = Int32(actorNames.count)
        actorNames.append(actor)
        actorHandles[actor] = new
        return new
    }

    /// Adds (`sign` 1) or takes away (-1) a purchase. A total that drops to no
    /// purchases is removed, so the same purchases always give the same totals.
    /// Taking away, `standing` gives the time of each other purchase of the item
    /// at a position in ``byItem``, or nil if it does not count.
    mutating func count(_ fact: Fact, sign: Int, standing: (Int) -> Timestamp? = { _ in nil }) {
        func add<Key: Hashable>(_ totals: inout [Key: Tally], _ key: Key) {
            if sign > 0 {
                // Found or made and changed where it lies, in one look-up: a total added to never drops to none.
                totals[key, default: Tally()].add(quantity: fact.quantity, spend: fact.spend, sign: sign)
                return
            }
            var tally = totals[key, default: Tally()]
            tally.add(quantity: fact.quantity, spend: fact.spend, sign: sign)
            totals[key] = tally.purchases == 0 ? nil : tally
        }
        add(&months, calendar.monthNumber(remembering: fact.time))
        add(&actors, fact.actor)
        add(&locations, fact.location)
        if fact.store != nil { add(&namedStores, fact.store) }
        if sign > 0 {
            items[fact.item, default: ItemTally()].add(quantity: fact.quantity, spend: fact.spend, at: fact.time)
            return
        }
        var tally = items[fact.item, default: ItemTally()]
        tally.tally.add(quantity: fact.quantity, spend: fact.spend, sign: sign)
        // Taken away: the first and last of the purchases that still count.
        var first: Timestamp?, last: Timestamp?
        for position in byItem[fact.item] ?? [] {
            guard let time = standing(Int(position)) else { continue }
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        tally.first = first
        tally.last = last
        items[fact.item] = tally.tally.purchases == 0 ? nil : tally
    }

    /// Stores in a fixed order for the snapshot: no store first, then by id.
    static func storeOrder(_ a: StoreID?, _ b: StoreID?) -> Bool {
        switch (a, b) {
        case let (a?, b?): a < b
        case (nil, _?): true
        default: false
        }
    }

    /// Totals per calendar month `YYYY-MM`, in the household's time zone.
    public var monthTotals: [String: Tally] {
        Dictionary(uniqueKeysWithValues: months.map { (HouseholdCalendar.monthText($0.key), $0.value) })
    }

    /// When the item was last bought (not counting reverted purchases).
    public func lastPurchase(of item: ItemID) -> Timestamp? { items[item]?.last }
}
