import ShopEvents

/// A ``StatsView`` kept up to date event by event: after one event only the
/// rows it touches are rebuilt and moved to their place (an item's and a
/// place's row found and re-inserted in order; the few month and person rows
/// and the trips' summary recomputed), instead of every row rebuilt and sorted.
/// The result equals `StatsView(views)` after every event of a history the
/// deciders wrote (a property test holds it to that).
///
/// ```swift
/// var views = HouseholdViews()
/// var stats = LiveStats(views)
/// for recorded in events {
///     views.apply(recorded)
///     stats.update(after: recorded, in: views)
/// }
/// print(stats.view.items.first?.name as Any)
/// ```
public struct LiveStats: Hashable, Sendable {
    public private(set) var view: StatsView
    private var endedTrips: Int
    private var endedMilliseconds: Int64

    public init(_ views: some StatisticsFold) {
        view = StatsView(views)
        endedTrips = view.trips.count
        endedMilliseconds = views.state.trips.values.reduce(Int64(0)) {
            if case .ended = $1.phase { $0 + $1.activeMilliseconds } else { $0 }
        }
    }

    /// Brings the view up to date with `recorded`, which `views` has just folded in.
    public mutating func update(after recorded: RecordedEvent, in views: some StatisticsFold) {
        view.asOf = views.asOf
        switch recorded.event {
        case .householdCreated:
            self = LiveStats(views)                 // a new calendar: every month changes
        case let .itemPurchased(_, item, _, _, _, location, purchasedAt, _):
            refresh(item: item, location: location, time: purchasedAt ?? recorded.at, views)
            view.stores = StatsView.storeRows(views)
        case let .purchaseReverted(purchase):
            guard let bought = views.statistics.purchase(purchase, in: views.state) else { return }
            refresh(item: bought.item, location: bought.location, time: bought.effectiveTime, views)
            view.stores = StatsView.storeRows(views)
        case .storeCreated, .storeRenamed, .storeDeleted:
            view.stores = StatsView.storeRows(views)   // a handful of rows: made again
        case let .itemRenamed(item, _):
            Self.place(StatsView.itemRow(item, views), id: item, nameUnchanged: nil, in: &view.items) { ($0.name, $0.item) }
        case let .locationRenamed(location, _):
            Self.place(StatsView.locationRow(location, views), id: location, nameUnchanged: nil, in: &view.locations) { ($0.name, $0.location) }
        case let .tripEnded(trip):
            guard let ended = views.state.trips[trip] else { return }
            endedTrips += 1
            endedMilliseconds += ended.activeMilliseconds
            view.trips = StatsView.trips(ended: endedTrips, milliseconds: endedMilliseconds)
        default:
            break   // no other event changes a row of the statistics (a property test holds them to StatsView after every event)
        }
    }

    /// A purchase or a revert: its item's, place's and month's rows, and the (few) people's.
    private mutating func refresh(item: ItemID, location: LocationID, time: Timestamp, _ views: some StatisticsFold) {
        Self.place(StatsView.itemRow(item, views), id: item, nameUnchanged: views.name(of: item), in: &view.items) { ($0.name, $0.item) }
        Self.place(StatsView.locationRow(location, views), id: location, nameUnchanged: views.name(of: location),
                   in: &view.locations) { ($0.name, $0.location) }
        let number = views.calendar.monthNumber(time)
        let month = HouseholdCalendar.monthText(number)
        let at = Self.lowerBound(view.months) { $0.month < month }
        let found = at < view.months.count && view.months[at].month == month
        switch (views.totals.month(number), found) {
        case let (tally?, true): view.months[at].tally = tally
        case let (tally?, false): view.months.insert(StatsView.MonthRow(month: month, tally: tally), at: at)
        case (nil, true): view.months.remove(at: at)
        case (nil, false): break
        }
        view.actors = StatsView.actorRows(views.totals)
    }

    /// Takes out the row of `id`, if any, and puts `row` (if any) in its place by name.
    /// The old row is found by its name when that did not change (`nameUnchanged`), else by a scan.
    private static func place<Row, Kind>(_ row: Row?, id: EntityID<Kind>, nameUnchanged name: String?, in rows: inout [Row],
                                         key: (Row) -> (name: String, id: EntityID<Kind>)) {
        var existing: Int?
        if let name {
            let at = lowerBound(rows) { byName(key($0), (name, id)) }
            if at < rows.count, key(rows[at]).id == id { existing = at }
        } else {
            existing = rows.firstIndex { key($0).id == id }
        }
        if let existing, let row, key(rows[existing]).name == key(row).name {
            rows[existing] = row                    // the same place in the order
            return
        }
        if let existing { rows.remove(at: existing) }
        guard let row else { return }
        rows.insert(row, at: lowerBound(rows) { byName(key($0), key(row)) })
    }

    /// The first index whose row is not `before` the one sought (rows sorted).
    private static func lowerBound<Row>(_ rows: [Row], _ before: (Row) -> Bool) -> Int {
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if before(rows[middle]) { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
