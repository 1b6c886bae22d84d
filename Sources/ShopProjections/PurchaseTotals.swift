import ShopEvents

/// The running totals of the purchases: per item (with its first and last
/// purchase), per month, per buyer, per place and per store. Reverted
/// purchases drop out of every total. What ``StatsView``, the items views,
/// ``DueView`` and the suggestions show; counted by the statistics
/// projection (``PurchaseStatistics``), and by a one-off read's fold that
/// knows its reverts in advance.
///
/// ```swift
/// var views = HouseholdViews()
/// for recorded in events { views.apply(recorded) }
/// let totals = views.statistics.totals
/// print(totals.monthTotals["2026-11"]?.spend ?? 0, totals.lastPurchase(of: milk) as Any)
/// ```
public struct PurchaseTotals: Hashable, Sendable {
    public internal(set) var items: [ItemID: ItemTally] = [:]
    /// By month number (year × 12 + month − 1) in the household's time zone; see ``monthTotals``.
    var months: [Int: Tally] = [:]
    public internal(set) var actors: [String: Tally] = [:]
    public internal(set) var locations: [LocationID: Tally] = [:]
    /// Per store that purchases name (never the key `nil`: see ``stores``).
    var namedStores: [StoreID?: Tally] = [:]
    /// Days and months in the household's time zone.
    public internal(set) var calendar = HouseholdCalendar.utc

    public init() {}

    /// Per store; the key `nil` for purchases that name none.
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

    /// Totals per calendar month `YYYY-MM`, in the household's time zone.
    public var monthTotals: [String: Tally] {
        Dictionary(uniqueKeysWithValues: months.map { (HouseholdCalendar.monthText($0.key), $0.value) })
    }

    /// When the item was last bought (not counting reverted purchases).
    public func lastPurchase(of item: ItemID) -> Timestamp? { items[item]?.last }

    /// The totals of one month by its number (see ``HouseholdCalendar/monthNumber(_:)``).
    func month(_ number: Int) -> Tally? { months[number] }

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

    /// Reads the household's calendar from its creation; the rest of an event is the counters'.
    mutating func noteCalendar(_ event: Event) {
        if case let .householdCreated(_, _, _, timeZone) = event { calendar = HouseholdCalendar(timeZone: timeZone) }
    }

    /// Adds (`sign` 1) or takes away (-1) a purchase. A total that drops to no
    /// purchases is removed, so the same purchases always give the same totals.
    /// Taking away, `standing` gives the time of each of the item's purchases
    /// that still counts (nil for one that does not), over `positions`: where
    /// the item's purchases lie in whoever counts them.
    mutating func count(_ fact: Fact, sign: Int, positions: [Int32] = [], standing: (Int) -> Timestamp? = { _ in nil }) {
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
        for position in positions {
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
}
