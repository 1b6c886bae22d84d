import Foundation
import ShopEvents
import ShopProjections

/// The views a journal can show, by their names in the specification.
enum ViewName: String, CaseIterable {
    case shoppingListByLocation = "shopping-list-by-location"
    case shoppingListByName = "shopping-list-by-name"
    case listDetail = "list-detail"
    case lists
    case deletedLists = "deleted-lists"
    case locations
    case allItemsByName = "all-items-by-name"
    case allItemsByPurchaseDate = "all-items-by-purchase-date"
    case audit
    case stats
    case shareText = "share-text"
    case members
    case due
    case prices
    case suggestions
    case stores

    var needsList: Bool { [.shoppingListByLocation, .shoppingListByName, .listDetail, .shareText].contains(self) }
    /// How much of the purchase history the view shows: statistics, the
    /// items' last purchases, due, prices, suggestions and stores the totals; the others only
    /// which list entries are bought (the audit streams the journal).
    var history: PurchaseHistory.Depth {
        switch self {
        case .audit: .none       // the views say where the history ends; the audit streams the journal
        case .allItemsByName, .allItemsByPurchaseDate, .stats, .due, .prices, .suggestions, .stores: .totals
        default: .entries
        }
    }
}

/// Loads the views of a journal as of a point, saying why a snapshot was not used.
func loadViews(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true, history: PurchaseHistory.Depth = .records) throws -> HouseholdViews {
    try loadViewsAndPending(options, asOf: asOf, useSnapshot: useSnapshot, history: history).views
}

/// The views and, on a sync replica, the number of commands in its outbox
/// (`nil` for a journal that is no replica). A replica shows the optimistic
/// state: the hub's history, then the outbox (not with `--as-of`, which names a point of the hub's history).
func loadViewsAndPending(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true,
                         history: PurchaseHistory.Depth = .records) throws -> (views: HouseholdViews, pending: Int?) {
    let loaded = try loadViewsAndOutbox(options, asOf: asOf, useSnapshot: useSnapshot, history: history)
    return (loaded.views, loaded.pending)
}

/// The views the statistics need (`.totals`) and the replica's outbox size,
/// as ``loadViewsAndPending(_:asOf:useSnapshot:history:)``; read to the end
/// of a journal that is no replica, the fold keeps no purchase (see
/// `ViewEngine.settledViews`): the same statistics in memory by the household.
func loadStatsViews(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true) throws -> (views: HouseholdViews, pending: Int?) {
    guard case .end = asOf else { return try loadViewsAndPending(options, asOf: asOf, useSnapshot: useSnapshot, history: .totals) }
    let loaded = try ReplicaViews.loadForStatistics(journal: options.journal, useSnapshot: useSnapshot)
    for warning in loaded.warnings { Tool.fail("warning: \(warning)") }
    return (loaded.views, loaded.pending)
}

/// Shows the statistics (`view stats`, `stats`). JSON is written straight
/// from the views, each item and place row made as it is written
/// (``StatsView/writeJSON(of:adding:to:)``): the fold and every row are never
/// in memory together. Text, whose columns are aligned over all the rows, is
/// made from the whole view, the views let go first.
func showStats(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true) throws {
    if options.json {
        let (views, pending) = try loadStatsViews(options, asOf: asOf, useSnapshot: useSnapshot)
        StatsView.writeJSON(of: views, adding: pending.map { [("pending", .int($0))] } ?? []) { Output.write(bytes: $0) }
        return
    }
    let (stats, pending, currency, calendar) = try {
        let (views, pending) = try loadStatsViews(options, asOf: asOf, useSnapshot: useSnapshot)
        return (StatsView(views), pending, views.state.household?.currency, views.calendar)
    }()
    Output(json: false).view(.null, pending: pending) { TextViews.stats(stats, currency: currency, calendar: calendar) }
}

/// ``loadViewsAndPending(_:asOf:useSnapshot:history:)`` that also says where
/// the journal's part ends (`through`) and which events the outbox added.
func loadViewsAndOutbox(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true, history: PurchaseHistory.Depth)
    throws -> (views: HouseholdViews, through: Int, pendingEvents: [RecordedEvent], pending: Int?) {
    let stop = try asOf.stop(calendar: householdCalendar(journal: options.journal))
    var loaded = try ReplicaViews.load(journal: options.journal, asOf: stop, useSnapshot: useSnapshot, history: history)
    if case let .seq(wanted) = stop, loaded.through < wanted, !loaded.warnings.contains(where: { $0.contains("newer ShopEvents") }) {
        loaded.warnings.append("--as-of \(wanted) is past the journal's end: it holds \(Format.count(loaded.through, "event")), so this is as of seq \(loaded.through), the last")
    }
    for warning in loaded.warnings { Tool.fail("warning: \(warning)") }
    return (loaded.views, loaded.through, loaded.pendingEvents, loaded.pending)
}

struct ViewCommand: ToolCommand {
    static let name = "view"
    static let summary = "show a view: shopping list, lists, locations, items, audit, stats, share text, due, prices, suggestions, stores"
    static let help = """
    Usage: shop-replay view NAME [--list ID|NAME] [--for MEMBER] [--store ID|NAME] [--item ID|NAME] [--now TIME]
                                 [--prefix TEXT] [--limit N] [--as-of SEQ|TIME] [--journal PATH] [--json]

    Shows one view of the household, rebuilt from the journal (from its
    snapshot when there is a good one).

    Views:
      shopping-list-by-location   one list's unbought entries by store location, with totals
      shopping-list-by-name       the same, by name
      list-detail                 one list in manual order, bought entries last
      lists                       the live lists by priority
      deleted-lists               soft-deleted lists that can be restored
      locations                   locations in visiting order with item counts
      all-items-by-name           every item, where it is, which lists, last purchase
      all-items-by-purchase-date  items by the day they were last bought
      audit                       every purchase (see also: shop-replay audit)
      stats                       statistics (see also: shop-replay stats)
      share-text                  a list as plain text for a message
      members                     who belongs to the household, with roles
      due                         staples due again: bought 3+ times, not on a list, as long since as usual
      prices                      what each item cost at each store: last, lowest and highest in a year, cheapest
      suggestions                 items to offer while typing one into a list: due first, then bought most in 90 days
      stores                      the live stores: each one's order of locations, purchases, spend, last purchase

    Options:
      --list ID|NAME   the list, for the list views (default: the first of `view lists`)
      --for MEMBER     the shopping list views: only MEMBER's entries and those assigned to nobody
                       (in a household with members, MEMBER must be one: unknown_member)
      --store ID|NAME  shopping-list-by-location: sections in that live store's order (default: the store of
                       the trip running now, else the household's order); the view names the store it used
      --item ID|NAME   prices: that item only (a barcode names its item too)
    \(ViewCommand.suggestionsHelp)
      --now TIME       due, suggestions: count the days to TIME (2026-11-26T10:00:00Z, or a day: its start in the
                       household's time zone) rather than to the clock; with --as-of, the days are
                       counted to the time of that event unless --now is given
    \(AsOf.help)
      --no-snapshot    ignore <journal>.snapshot and replay the whole journal
    \(JournalOptions.help)
    """

    var view: ViewName
    var list: String?
    /// `--for MEMBER`: the shopping list views show that member's entries and nobody's.
    var member: String?
    /// `--item ID|NAME`: the prices of that item only.
    var item: String?
    /// `--store ID|NAME`: the shopping list by location in that store's order.
    var store: String?
    /// `--now TIME`: the due view counts days to it, not to the clock.
    var now: TimeArgument?
    /// `--prefix TEXT` and `--limit N`: the suggestions' text typed so far and how many to offer.
    var prefix: String?
    var limit: Int?
    var asOf: AsOf
    var useSnapshot: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        list = try arguments.option("--list", "ID|NAME")
        member = try arguments.option("--for", "MEMBER")
        item = try arguments.option("--item", "ID|NAME")
        store = try arguments.option("--store", "ID|NAME")
        now = try Audit.time(&arguments, "--now")
        prefix = try arguments.option("--prefix", "TEXT")
        limit = try arguments.number("--limit", "N", in: 1...100_000)
        asOf = try AsOf.parse(&arguments)
        useSnapshot = !arguments.flag("--no-snapshot")
        guard let name = arguments.positional() else {
            throw UsageError(message: "which view? expected one of \(ViewName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let aliases = ["soft-deleted-lists": ViewName.deletedLists, "share": .shareText]
        guard let view = ViewName(rawValue: name) ?? aliases[name] else {
            throw UsageError(message: "there is no view \"\(name)\"; expected one of \(ViewName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self.view = view
        if list != nil, !view.needsList, view != .suggestions { throw UsageError(message: "--list is for the list views, not \(view.rawValue)") }
        if member != nil, ![.shoppingListByLocation, .shoppingListByName].contains(view) {
            throw UsageError(message: "--for is for the shopping list views, not \(view.rawValue)")
        }
        if item != nil, view != .prices { throw UsageError(message: "--item is for the prices view, not \(view.rawValue)") }
        if store != nil, view != .shoppingListByLocation { throw UsageError(message: "--store is for shopping-list-by-location, not \(view.rawValue)") }
        if now != nil, ![.due, .suggestions].contains(view) {
            throw UsageError(message: "--now is for the due and suggestions views, not \(view.rawValue)")
        }
        if prefix != nil || limit != nil, view != .suggestions {
            throw UsageError(message: "\(prefix != nil ? "--prefix" : "--limit") is for the suggestions view, not \(view.rawValue)")
        }
    }

    func run() throws -> Int32 {
        if view == .audit {
            try AuditOutput.show(options, asOf: asOf, useSnapshot: useSnapshot) { _ in AuditView.Filter() }
            return 0
        }
        let out = Output(json: options.json)
        if view == .stats {
            try showStats(options, asOf: asOf, useSnapshot: useSnapshot)
            return 0
        }
        let (views, pending) = try loadViewsAndPending(options, asOf: asOf, useSnapshot: useSnapshot, 
                                                      // list-detail's text shows how many each bought entry's purchase bought
                                                      history: view == .listDetail && !options.json ? .totals : view.history)
        let currency = views.state.household?.currency
        func show(_ json: JSONValue, _ text: () -> String) { out.view(json, pending: pending, text) }
        func chosenList() throws -> ListID {
            if let list { return try Lookup.list(list, in: views.state) }
            guard let first = ListsView(views).lists.first else {
                throw UsageError(message: "the household has no lists yet\(views.asOf > 0 ? " (as of seq \(views.asOf))" : "")")
            }
            return first.id
        }
        switch view {
        case .shoppingListByLocation, .shoppingListByName:
            let list = try chosenList()
            let member = try member.map { name throws(UsageError) in try Lookup.member(name, in: views.state) }
            let store = try store.map { text throws(UsageError) in try Lookup.store(text, in: views.state, scope: .live) }
            // `chosenList()` found the list in `views.state`, deleted ones too: each list view has it.
            let shopping = ShoppingListView(views, list: list, grouping: view == .shoppingListByName ? .byName : .byLocation,
                                            for: member, store: store)!
            show(shopping.json) { TextViews.deletedMark(TextViews.shoppingList(shopping, currency: currency), list: list, views: views) }
        case .listDetail:
            let list = try chosenList()
            let detail = ListDetailView(views, list: list)!   // found by `chosenList()`, as above
            show(detail.json) { TextViews.deletedMark(TextViews.listDetail(detail, views: views), list: list, views: views) }
        case .shareText:
            let list = try chosenList()
            let text = ShoppingListView.shareText(views, list: list)!   // found by `chosenList()`, as above
            let listName = views.state.lists[list]!.name   // as above
            show(.object([("view", "share-text"), ("asOf", .int(views.asOf)),
                          ("list", .object([("id", .string(list.description)), ("name", .string(listName))])),
                          ("text", .string(text))])) { text.trimmingCharacters(in: .newlines) }
        case .lists:
            let lists = ListsView(views)
            show(lists.json) { TextViews.lists(lists, calendar: views.calendar) }
        case .deletedLists:
            let deleted = DeletedListsView(views)
            show(deleted.json) { TextViews.deletedLists(deleted, calendar: views.calendar) }
        case .locations:
            let locations = LocationsView(views)
            show(locations.json) { TextViews.locations(locations) }
        case .allItemsByName:
            let items = ItemsByNameView(views)
            show(items.json) { TextViews.itemsByName(items, views: views) }
        case .allItemsByPurchaseDate:
            let items = ItemsByPurchaseDateView(views)
            show(items.json) { TextViews.itemsByPurchaseDate(items) }
        case .audit, .stats:
            break   // above
        case .suggestions:
            try showSuggestions(views, pending: pending)
        case .members:
            let members = MembersView(views)
            show(members.json) { TextViews.members(members, calendar: views.calendar) }
        case .due:
            let (time, source) = try dueNow(views, clock: .system)
            let due = DueView(views, now: time)
            show(due.json) { TextViews.due(due, calendar: views.calendar, nowSource: source) }
        case .prices:
            let prices = PricesView(views, item: try item.map { text throws(UsageError) in try Lookup.item(text, in: views.state, scope: .live) })
            show(prices.json) { TextViews.prices(prices, currency: currency, calendar: views.calendar) }
        case .stores:
            let stores = StoresView(views)
            show(stores.json) { TextViews.stores(stores, views: views, currency: currency) }
        }
        return 0
    }
}

extension ViewCommand {
    /// What the due view counts days to (SPEC section 10): `--now`, else with
    /// `--as-of` the time of the last event shown, else the clock; and where it came from, for the text.
    func dueNow(_ views: HouseholdViews, clock: Clock) throws(UsageError) -> (Timestamp, String) {
        if let now { return (try now.start(in: views.calendar), "--now") }
        if case .end = asOf {} else if let time = views.asOfTime { return (time, "the time of seq \(views.asOf)") }
        return (clock.now(), "the clock")
    }
}
