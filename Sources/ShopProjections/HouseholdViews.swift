import ShopEvents

/// Everything every view of the household needs, folded from the journal:
/// the household's state (locations, items, lists, trips), the statistics
/// projection and the audit projection. The views themselves (``ShoppingListView``, ``ListsView``, …)
/// are rendered from it on demand.
///
/// ```swift
/// let engine = ViewEngine(journalPath: "shop.ndjson")
/// let views = try engine.refresh()
/// let list = ShoppingListView(views, list: weekly, grouping: .byLocation)
/// ```
public struct HouseholdViews: Projection, Hashable, Sendable {
    public private(set) var state = ShopState.compact
    /// The statistics projection: the totals and each purchase's amount.
    public private(set) var statistics = PurchaseStatistics()
    /// The audit projection: every purchase's record, with the names it had then.
    public private(set) var audit = PurchaseAudit()
    /// The `seq` of the last event folded in; 0 before any.
    public private(set) var asOf = 0
    /// Its `at`.
    public private(set) var asOfTime: Timestamp?

    /// Views that keep what every view shows.
    public init() {}

    public mutating func apply(_ recorded: RecordedEvent) {
        // Only these three events are the statistics' and the audit's; a purchase and a revert are
        // taken apart here once and handed to both (their own `apply` would switch over it again).
        switch recorded.event {
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            let time = purchasedAt ?? recorded.at
            statistics.bought(purchase, item: item, quantity: quantity, unitPrice: unitPrice, location: location, time: time,
                              store: store, actor: recorded.actor, seq: recorded.seq, before: state)
            audit.bought(PurchaseRecord(purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice, location: location,
                                        time: time, store: store, of: recorded, before: state))
        case let .purchaseReverted(purchase):
            statistics.reverted(purchase, before: state)
            audit.reverted(purchase)
        case .householdCreated:
            statistics.apply(recorded, before: state)
        default:
            break
        }
        state.apply(recorded)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    /// Days and months in the household's time zone.
    public var calendar: HouseholdCalendar { statistics.calendar }

    // Names (`name(of:)`, deleted items and locations included): `StateFold`'s, as every fold of the whole state has them.

    package func encode(to w: inout BinaryWriter) {
        ViewSnapshot.writePosition(asOf, asOfTime, to: &w)
        state.encode(to: &w)
        statistics.encode(to: &w)
        audit.encode(to: &w)
    }

    /// Reads views back from a snapshot that holds the audit's records; for
    /// one saved without them, throws a `BinaryDecodingError` described by ``PurchaseAudit/missing``.
    package init(snapshot r: inout BinaryReader) throws(BinaryDecodingError) {
        (asOf, asOfTime) = try ViewSnapshot.readPosition(&r)
        state = try ShopState(from: &r)
        statistics = try PurchaseStatistics(from: &r, purchases: state.purchases.count)
        audit = try PurchaseAudit(from: &r)
    }
}

extension HouseholdViews: StatisticsFold {}

/// Sorting by name as every view does: ignoring case, ties by id.
/// Rows in ``byName(_:_:)`` order, each name lowered once (not once a
/// comparison); the rows' positions are sorted and the rows then put in
/// place, so that a long answer (a row for every item ever bought) is never
/// copied.
func sortedByName<Row, Kind>(_ rows: consuming [Row], _ key: (Row) -> (name: String, id: EntityID<Kind>)) -> [Row] {
    var order: [Int]
    do {
        let keys = rows.map { row in let (name, id) = key(row); return (name: name.lowercased(), id: id) }
        order = Array(rows.indices)
        order.sort { keys[$0].name != keys[$1].name ? keys[$0].name < keys[$1].name : keys[$0].id < keys[$1].id }
    }
    // Row `order[i]` goes to place `i`: follow each cycle of the permutation once, marking places filled.
    for start in order.indices where order[start] >= 0 {
        var place = start
        while order[place] != start {
            let from = order[place]
            rows.swapAt(place, from)
            order[place] = -1
            place = from
        }
        order[place] = -1
    }
    return rows
}

func byName<Kind>(_ a: (name: String, id: EntityID<Kind>), _ b: (name: String, id: EntityID<Kind>)) -> Bool {
    let (x, y) = (a.name.lowercased(), b.name.lowercased())
    return x != y ? x < y : a.id < b.id
}
