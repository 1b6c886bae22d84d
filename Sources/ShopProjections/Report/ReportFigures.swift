import Foundation
import ShopEvents

/// The numbers of the household report for a period: the `stats` view's
/// figures (per month, item, person, place; trips) restricted to purchases
/// made in the period, and the audit rows of the period. Without a period
/// they are exactly ``StatsView``'s numbers (a test holds them to it).
///
/// ```swift
/// let figures = ReportFigures(views, from: nil, to: nil)
/// print(figures.total.spend, figures.months.map(\.name))
/// ```
public struct ReportFigures: Hashable, Sendable {
    /// One bar or row: a name and its tally.
    public struct Row: Hashable, Sendable {
        public var key: String
        public var name: String
        public var tally: Tally
        /// What an item's quantity counts (`kg`), as the item has it now; `nil` for pieces, and for rows that are not items.
        public var unit: String?

        public init(key: String, name: String, tally: Tally, unit: String? = nil) {
            self.key = key; self.name = name; self.tally = tally; self.unit = unit
        }
    }

    /// Purchases on one calendar day of the household's time zone.
    public struct Day: Hashable, Sendable {
        /// `YYYY-MM-DD`.
        public var day: String
        public var tally: Tally
    }

    /// Purchase time at or after `from` and before `to`.
    public var from: Timestamp?
    public var to: Timestamp?
    /// Every purchase of the period in journal order, reverted ones included (and marked).
    public var audit: [PurchaseRecord]
    /// Non-reverted purchases only, from here on.
    public var total: Tally
    public var months: [Row]
    public var items: [Row]
    public var actors: [Row]
    public var locations: [Row]
    /// Spend per store, by spend; the key "" for purchases at no store. Empty in a household without stores.
    public var stores: [Row]
    /// What things cost at each store in the period's priced purchases, by item name; empty in a household without stores.
    public var prices: [ItemPrices]

    /// One item's prices in the period, per store.
    public struct ItemPrices: Hashable, Sendable {
        public var item: String
        public var unit: String?
        public var rows: [PriceRow]
    }

    /// An item's prices at one store in the period: the last paid (by time), the lowest and highest, how many priced purchases.
    public struct PriceRow: Hashable, Sendable {
        public var store: String
        public var last: Int
        public var lowest: Int
        public var highest: Int
        public var purchases: Int
        /// Its last price is the item's lowest (marked only where the item was bought at more than one store).
        public var cheapest: Bool
    }
    public var days: [Day]
    /// Ended trips whose end falls in the period.
    public var trips: StatsView.Trips

    /// The figures of views with every projection (the audit's records too).
    public init(_ views: HouseholdViews, from: Timestamp?, to: Timestamp?) {
        self.init(views, audit: AuditView(views, filter: .init(from: from, to: to)).purchases, from: from, to: to)
    }

    /// The figures from the period's audit rows (say, from an ``AuditQuery``
    /// filtered `from`–`to`) and views of the whole state (for the names, stores, trips and calendar).
    public init(_ views: some WholeStateFold, audit: [PurchaseRecord], from: Timestamp?, to: Timestamp?) {
        self.from = from
        self.to = to
        self.audit = audit
        let counted = audit.filter { !$0.isReverted }
        let calendar = views.calendar
        func add(_ tally: inout Tally, _ record: PurchaseRecord) {
            tally.purchases += 1
            tally.quantity += record.quantity
            tally.spend += record.spend
        }
        var total = Tally()
        var months: [String: Tally] = [:], items: [ItemID: Tally] = [:], actors: [String: Tally] = [:]
        var locations: [LocationID: Tally] = [:], days: [String: Tally] = [:], stores: [StoreID?: Tally] = [:]
        for record in counted {
            add(&total, record)
            add(&months[calendar.month(record.purchasedAt), default: Tally()], record)
            add(&items[record.item, default: Tally()], record)
            add(&actors[record.actor, default: Tally()], record)
            add(&locations[record.location, default: Tally()], record)
            add(&days[calendar.day(record.purchasedAt), default: Tally()], record)
            if !views.state.stores.isEmpty { add(&stores[record.store, default: Tally()], record) }
        }
        func storeName(_ store: StoreID?) -> String { store.map { views.state.stores[$0]?.name ?? $0.description } ?? StatsView.noStoreName }
        self.stores = stores.map { Row(key: $0.key?.description ?? "", name: storeName($0.key), tally: $0.value) }
            .sorted { ($1.tally.spend, $0.name) < ($0.tally.spend, $1.name) }
        // Prices: per item and store, over the period's priced purchases, the last (by time) and the lowest
        // and highest (PricesView's computation, over the period); every store tied for the lowest last price marked.
        let byItem = views.state.stores.isEmpty ? [:] : PricesView.storeRows(counted, lowestAndHighestFrom: .min, name: storeName)
        self.prices = byItem.map { item, stores in
            let rows = stores.map { row in
                PriceRow(store: row.name, last: row.lastUnitPrice, lowest: row.lowest ?? row.lastUnitPrice, highest: row.highest ?? row.lastUnitPrice,
                         purchases: row.purchases, cheapest: false)
            }.sorted { ($0.store == StatsView.noStoreName ? 1 : 0, $0.store.lowercased()) < ($1.store == StatsView.noStoreName ? 1 : 0, $1.store.lowercased()) }
            let lowest = rows.map(\.last).min()
            let marked = rows.map { row in var row = row; row.cheapest = rows.count > 1 && row.last == lowest; return row }
            return ItemPrices(item: views.name(of: item), unit: views.state.items[item]?.details.unit, rows: marked)
        }.sorted { $0.item.lowercased() < $1.item.lowercased() }
        self.total = total
        self.months = months.map { Row(key: $0.key, name: $0.key, tally: $0.value) }.sorted { $0.key < $1.key }
        // Names as the stats view gives them: an item's or place's current (last) name.
        self.items = items.map { Row(key: $0.key.description, name: views.name(of: $0.key), tally: $0.value, unit: views.state.items[$0.key]?.details.unit) }
            .sorted { ($0.name.lowercased(), $0.key) < ($1.name.lowercased(), $1.key) }
        self.actors = actors.map { Row(key: $0.key, name: $0.key, tally: $0.value) }.sorted { $0.key < $1.key }
        self.locations = locations.map { Row(key: $0.key.description, name: views.name(of: $0.key), tally: $0.value) }
            .sorted { ($0.name.lowercased(), $0.key) < ($1.name.lowercased(), $1.key) }
        self.days = days.map { Day(day: $0.key, tally: $0.value) }.sorted { $0.day < $1.day }
        let ended = views.state.trips.values.compactMap { trip -> Double? in
            guard case let .ended(at) = trip.phase else { return nil }
            if let from, at < from { return nil }
            if let to, at >= to { return nil }
            return Double(trip.activeMilliseconds) / 1000
        }
        let seconds = ended.reduce(0, +)
        trips = StatsView.Trips(count: ended.count, totalSeconds: seconds, meanSeconds: ended.isEmpty ? nil : seconds / Double(ended.count))
    }

    /// The `count` rows with the largest value, largest first (ties by name).
    public static func top(_ rows: [Row], _ count: Int, by value: (Tally) -> Int) -> [Row] {
        Array(rows.sorted { (value($1.tally), $0.name.lowercased()) < (value($0.tally), $1.name.lowercased()) }.prefix(count))
    }
}
