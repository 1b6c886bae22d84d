import ShopEvents

// What views are built from: folds of the household's projections, each a
// type of its own that holds only the projections its views read.
//
//                      state    statistics   audit
//   HouseholdViews     whole    yes          yes      every view (the public way to fold views)
//   StatisticsViews    whole    yes          —        statistics, items, due, prices, suggestions, stores
//   SettledViews       present  settled      —        one read of the statistics (see SettledStatistics)
//   StateViews         whole    —            —        the audit streamed from the journal, the SL17 export, the report
//   PresentViews       present  —            —        lists, a shopping list, locations, members, deleted lists, household
//
// A view takes the least of these protocols it reads, so a fold that keeps
// less than a view shows is a type error, never a silently empty view;
// `ViewQuery` takes each named view's fold from a `ViewFoldSource` by its kind.

/// A fold views are built from: the household's state as of an event, its
/// calendar and names. The lists, a shopping list, the locations, members,
/// deleted lists and the household read no more.
///
/// ```swift
/// func listNames(_ views: some StateFold) -> [String] { ListsView(views).lists.map(\.name) }
/// print(listNames(try ViewEngine.views(journal: "shop.ndjson").0))
/// ```
public protocol StateFold: Projection, Sendable {
    /// The household's state; a fold of its present (``PresentViews``) keeps
    /// no purchase ledger, ended trip, deleted item or deleted location.
    var state: ShopState { get }
    /// The `seq` of the last event folded in; 0 before any.
    var asOf: Int { get }
    /// Its `at`.
    var asOfTime: Timestamp? { get }
    /// Days and months in the household's time zone.
    var calendar: HouseholdCalendar { get }
    /// The name of an item, deleted ones included where the fold keeps them.
    func name(of item: ItemID) -> String
    /// The name of a location, deleted ones included where the fold keeps them.
    func name(of location: LocationID) -> String
}

/// A fold whose state is the domain's whole: the purchase ledger (which
/// purchases are reverted), the ended trips and the deleted items and
/// locations too. The audit streamed from the journal, the SL17 export,
/// the report and the suggestions' index read it. A conformer promises that
/// its ``StateFold/state`` is the domain's whole fold (`ShopState.apply` of
/// every event), never a present's.
///
/// ```swift
/// func reverted(_ views: some WholeStateFold) -> Int { views.state.purchases.values.filter(\.isReverted).count }
/// print(reverted(HouseholdViews()))   // 0
/// ```
public protocol WholeStateFold: StateFold {}

/// A fold with the running totals: what the statistics, the items views,
/// due staples and suggestions read.
///
/// ```swift
/// func spent(_ views: some TotalsFold, in month: String) -> Int { views.totals.monthTotals[month]?.spend ?? 0 }
/// print(spent(HouseholdViews(), in: "2026-11"))   // 0
/// ```
public protocol TotalsFold: StateFold {
    var totals: PurchaseTotals { get }
    /// The trips that ended and that ``state`` no longer holds (a fold of the
    /// present's): how many, and their running time in milliseconds.
    var endedTripsLetGo: (count: Int, milliseconds: Int64) { get }
}

/// A fold with the statistics projection: what the prices and stores views
/// and the live statistics read (each purchase's amount, store and place).
///
/// ```swift
/// func cheapest(_ views: some StatisticsFold, _ item: ItemID) -> StoreID? { PricesView(views, item: item).items.first?.cheapest }
/// print(cheapest(HouseholdViews(), ItemID()) as Any)   // nil
/// ```
public protocol StatisticsFold: TotalsFold, WholeStateFold {
    var statistics: PurchaseStatistics { get }
}

extension StateFold {
    public func name(of item: ItemID) -> String { state.items[item]?.name ?? item.description }
    public func name(of location: LocationID) -> String { state.locations[location]?.name ?? location.description }

    /// The live lists each item is on and not bought, by item (lists in no order).
    var unboughtOnLiveLists: [ItemID: [ListID]] {
        var onLists: [ItemID: [ListID]] = [:]
        for list in state.lists.values where !list.isDeleted {
            for entry in list.entries where !entry.isBought { onLists[entry.item, default: []].append(list.id) }
        }
        return onLists
    }
}

extension TotalsFold where Self: StatisticsFold {
    public var totals: PurchaseTotals { statistics.totals }
    public var endedTripsLetGo: (count: Int, milliseconds: Int64) { (0, 0) }
}

/// The household's present only (``PresentState``): the lists' views.
package struct PresentViews: StateFold, Hashable {
    package private(set) var present = PresentState()
    package private(set) var asOf = 0
    package private(set) var asOfTime: Timestamp?
    package private(set) var calendar = HouseholdCalendar.utc

    package init() {}

    package var state: ShopState { present.state }

    package mutating func apply(_ recorded: RecordedEvent) {
        if case let .householdCreated(_, _, _, timeZone) = recorded.event { calendar = HouseholdCalendar(timeZone: timeZone) }
        present.apply(recorded)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    package init(snapshot r: inout BinaryReader) throws(BinaryDecodingError) {
        (asOf, asOfTime) = try ViewSnapshot.readPosition(&r)
        present = try PresentState(from: &r)
        calendar = try PurchaseStatistics.skip(&r)
        try PurchaseAudit.skipSaved(&r)
    }
}

/// The household's whole state (its purchase ledger too) and nothing of the
/// purchases' amounts: the audit streamed from the journal (which purchases
/// are reverted), the SL17 export (each item's last purchase), the report.
package struct StateViews: WholeStateFold, Hashable {
    package private(set) var state = ShopState.compact
    package private(set) var asOf = 0
    package private(set) var asOfTime: Timestamp?
    package private(set) var calendar = HouseholdCalendar.utc

    package init() {}

    package mutating func apply(_ recorded: RecordedEvent) {
        if case let .householdCreated(_, _, _, timeZone) = recorded.event { calendar = HouseholdCalendar(timeZone: timeZone) }
        state.apply(recorded)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    package init(snapshot r: inout BinaryReader) throws(BinaryDecodingError) {
        (asOf, asOfTime) = try ViewSnapshot.readPosition(&r)
        state = try ShopState(from: &r)
        calendar = try PurchaseStatistics.skip(&r)
        try PurchaseAudit.skipSaved(&r)
    }
}

/// The whole state and the statistics projection: every view but the audit's.
package struct StatisticsViews: StatisticsFold, Hashable {
    package private(set) var state = ShopState.compact
    package private(set) var statistics = PurchaseStatistics()
    package private(set) var asOf = 0
    package private(set) var asOfTime: Timestamp?

    package init() {}

    package var calendar: HouseholdCalendar { statistics.calendar }

    package mutating func apply(_ recorded: RecordedEvent) {
        switch recorded.event {
        case .householdCreated, .itemPurchased, .purchaseReverted: statistics.apply(recorded, before: state)
        default: break   // the others are not the statistics' (handing them on switches over the event again)
        }
        state.apply(recorded)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    package func encode(to w: inout BinaryWriter) {
        ViewSnapshot.writePosition(asOf, asOfTime, to: &w)
        state.encode(to: &w)
        statistics.encode(to: &w)
        PurchaseAudit.encodeNone(to: &w)
    }

    package init(snapshot r: inout BinaryReader) throws(BinaryDecodingError) {
        (asOf, asOfTime) = try ViewSnapshot.readPosition(&r)
        state = try ShopState(from: &r)
        statistics = try PurchaseStatistics(from: &r, purchases: state.purchases.count)
        try PurchaseAudit.skipSaved(&r)
    }
}

/// The household's present and the totals of one read of the statistics
/// (``SettledStatistics``): memory by the household, not by its history.
package struct SettledViews: TotalsFold, Hashable {
    package private(set) var present = PresentState()
    package private(set) var settled: SettledStatistics
    package private(set) var asOf = 0
    package private(set) var asOfTime: Timestamp?

    /// `reverted`: every purchase the events to be folded revert.
    package init(reverting reverted: consuming Set<PurchaseID>) { settled = SettledStatistics(reverting: reverted) }
    /// A fold told of no revert to come.
    package init() { settled = SettledStatistics(reverting: []) }

    package var state: ShopState { present.state }
    package var calendar: HouseholdCalendar { settled.totals.calendar }
    package var totals: PurchaseTotals { settled.totals }
    package var endedTripsLetGo: (count: Int, milliseconds: Int64) { (settled.endedTrips, settled.endedMilliseconds) }

    package func name(of item: ItemID) -> String { state.items[item]?.name ?? settled.deletedName(of: item) ?? item.description }
    package func name(of location: LocationID) -> String {
        state.locations[location]?.name ?? settled.deletedName(of: location) ?? location.description
    }

    package mutating func apply(_ recorded: RecordedEvent) {
        settled.apply(recorded, before: present.state)
        present.apply(recorded)
        asOf = recorded.seq
        asOfTime = recorded.at
    }

    /// See ``SettledStatistics/dropForesight()``.
    package mutating func dropForesight() { settled.dropForesight() }
}
