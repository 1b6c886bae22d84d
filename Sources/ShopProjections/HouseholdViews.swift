import ShopEvents

/// Everything every view of the household needs, folded from the journal:
/// the household's state (locations, items, lists, trips) and its purchase
/// history. The views themselves (``ShoppingListView``, ``ListsView``, …)
/// are rendered from it on demand.
///
/// ```swift
/// let engine = ViewEngine(journalPath: "shop.ndjson")
/// let views = try engine.refresh()
/// let list = ShoppingListView(views, list: weekly, grouping: .byLocation)
/// ```
public struct HouseholdViews: Projection, Hashable, Sendable {
    public private(set) var state = ShopState.compact
    public private(set) var history = PurchaseHistory()
    /// The `seq` of the last event folded in; 0 before any.
    public private(set) var asOf = 0
    /// Its `at`.
    public private(set) var asOfTime: Timestamp?
    /// How much of the purchase history is folded; see ``PurchaseHistory/Depth``.
    package var historyDepth: PurchaseHistory.Depth { history.depth }
    /// How much history ``state`` keeps: all of it, but for views that show
    /// none (`.entries`, and a one-off read of the statistics).
    package private(set) var stateRetention = Retention.everything

    /// Views that keep every purchase's record, as every public way of folding
    /// views does: every view (``AuditView`` too) can be built from them.
    public init() {}

    /// The package's one-view reads (`shop-replay view`, `stats`, `audit`, …): views that fold only as much of the purchase history as some views
    /// need: `.entries` for ``ListsView``, ``ShoppingListView``, ``LocationsView``,
    /// ``DeletedListsView`` and ``MembersView`` (the state keeps no purchase
    /// table, ended trip, deleted item or deleted location); `.none` for those and the ``AuditQuery``; `.totals` for
    /// ``StatsView`` and the items views too; `.records` (the default) for
    /// every view, the audit included.
    package init(history depth: PurchaseHistory.Depth) {
        history = PurchaseHistory(depth: depth)
        if depth == .entries { stateRetention = .present }
    }

    /// Views for one read of the statistics to an end whose reverts are
    /// known before it starts (`reverted`: every purchase the events to be
    /// folded revert): the history at `.totals` without a purchase table
    /// (``PurchaseHistory/init(settling:)``) and a state that keeps no
    /// history, so the memory is the household's and the totals', not the
    /// history's. For showing once, never for a snapshot or more events.
    package init(settling reverted: Set<PurchaseID>) {
        history = PurchaseHistory(settling: reverted)
        stateRetention = .present
    }

    /// See ``PurchaseHistory/dropForesight()``.
    package mutating func dropForesight() { history.dropForesight() }

    public mutating func apply(_ recorded: RecordedEvent) {
        history.apply(recorded, before: state)
        state.apply(recorded, keeping: stateRetention)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    /// Stops the program when these views fold less of the purchase history
    /// than `view` shows (`needed`: `.totals` or `.records`). Only the
    /// package's one-view reads fold less, each for the view it shows, so
    /// this is a package bug, never a user's: a view is right or refuses
    /// loudly, never silently empty. A settling fold's totals count as `.totals`.
    func require(_ needed: PurchaseHistory.Depth, for view: String) {
        func rank(_ depth: PurchaseHistory.Depth) -> Int {
            switch depth {
            case .entries: 0
            case .none: 1
            case .totals: 2
            case .records: 3
            }
        }
        precondition(rank(historyDepth) >= rank(needed), "\(view) needs views folded at .\(needed) or more; these keep the purchase history at .\(historyDepth)")
    }

    /// The live lists each item is on and not bought, by item (lists in no order).
    var unboughtOnLiveLists: [ItemID: [ListID]] {
        var onLists: [ItemID: [ListID]] = [:]
        for list in state.lists.values where !list.isDeleted {
            for entry in list.entries where !entry.isBought { onLists[entry.item, default: []].append(list.id) }
        }
        return onLists
    }

    /// Days and months in the household's time zone.
    public var calendar: HouseholdCalendar { history.calendar }

    /// The name of an item, location or list, deleted ones included.
    public func name(of item: ItemID) -> String { state.items[item]?.name ?? history.deletedName(of: item) ?? item.description }
    public func name(of location: LocationID) -> String { state.locations[location]?.name ?? history.deletedName(of: location) ?? location.description }

    /// The same views folded at a lesser depth (see ``PurchaseHistory/Depth``);
    /// `nil` when they cannot be had from these.
    package func lowered(to depth: PurchaseHistory.Depth) -> HouseholdViews? {
        guard let history = history.lowered(to: depth, state: state) else { return nil }
        var views = self
        views.history = history
        if depth == .entries {
            views.state.dropHistory()
            views.stateRetention = .present
        }
        return views
    }

    package func encode(to w: inout BinaryWriter) {
        state.encode(to: &w)
        history.encode(to: &w)
        w.int(asOf)
        w.optional(asOfTime) { $0.timestamp($1) }
    }

    /// Reads views back; `asEntries` reads them as if lowered to `.entries`,
    /// passing over the purchase table and per-purchase amounts unread.
    package init(from r: inout BinaryReader, asEntries: Bool = false) throws(BinaryDecodingError) {
        state = try ShopState(from: &r, keepingHistory: !asEntries)
        history = asEntries ? try PurchaseHistory.entries(from: &r) : try PurchaseHistory(from: &r)
        if history.depth == .entries {
            state.dropHistory()
            stateRetention = .present
        }
        asOf = try r.int()
        asOfTime = try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }
    }
}

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
