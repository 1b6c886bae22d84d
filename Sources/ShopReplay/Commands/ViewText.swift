import Foundation
import ShopEvents
import ShopProjections

/// `view NAME` without `--json`: the text of each view, from the names the query found (``ViewQuery/resolve(_:)``).
extension ViewCommand {
    func showText(_ views: some StateFold) throws(ViewQueryError) -> String {
        let totals = { query.needed(views, (any TotalsFold).self) }, statistics = { query.needed(views, (any StatisticsFold).self) }
        let found = try query.resolve(views)
        let currency = views.state.household?.currency
        let clock = Clock.system.now()
        // reason (each `!` below): `resolve` found the list in `views.state`, deleted ones too: each list view has it.
        switch view {
        case .shoppingListByLocation, .shoppingListByName:
            let list = found.list!   // reason: as above
            let shopping = ShoppingListView(views, list: list, grouping: view == .shoppingListByName ? .byName : .byLocation,
                                            for: found.member, store: found.store, shopper: found.member ?? query.shopper)!   // reason: as above
            return TextViews.deletedMark(TextViews.shoppingList(shopping, currency: currency), list: list, views: views)
        case .listDetail:
            let list = found.list!   // reason: as above
            return TextViews.deletedMark(TextViews.listDetail(ListDetailView(views, list: list)!, views: statistics()), list: list, views: views)   // reason: as above
        case .shareText:
            return ShoppingListView.shareText(views, list: found.list!, for: found.member, shopper: found.member ?? query.shopper)!   // reason: as above
                .trimmingCharacters(in: .newlines)
        case .lists: return TextViews.lists(ListsView(views), calendar: views.calendar)
        case .deletedLists: return TextViews.deletedLists(DeletedListsView(views), calendar: views.calendar)
        case .locations: return TextViews.locations(LocationsView(views))
        case .allItemsByName: return TextViews.itemsByName(ItemsByNameView(totals()), views: views)
        case .allItemsByPurchaseDate: return TextViews.itemsByPurchaseDate(ItemsByPurchaseDateView(totals()))
        case .audit, .stats: return ""   // shown by `run()` as they stream
        case .suggestions:
            let (time, source) = try query.now(views, clock: clock)
            let suggestions = SuggestionsView(statistics(), list: found.list, prefix: query.prefix ?? "",
                                              limit: query.limit ?? SuggestionsView.defaultLimit, now: time)!   // reason: `resolve` found the list, deleted ones too
            return TextViews.suggestions(suggestions, currency: currency, calendar: views.calendar, nowSource: source, prefix: query.prefix ?? "")
        case .members: return TextViews.members(MembersView(views), calendar: views.calendar)
        case .due:
            let (time, source) = try query.now(views, clock: clock)
            return TextViews.due(DueView(totals(), now: time), calendar: views.calendar, nowSource: source)
        case .prices: return TextViews.prices(PricesView(statistics(), item: found.item), currency: currency, calendar: views.calendar)
        case .stores: return TextViews.stores(StoresView(statistics()), views: views, currency: currency)
        case .household:
            let (time, source) = try query.now(views, clock: clock)
            return TextViews.household(HouseholdView(views, now: time, shopper: found.member ?? query.shopper), calendar: views.calendar, nowSource: source)
        case .item:
            // reason: the item view needs --item, and `resolve` found it in `views.state`
            return TextViews.item(ItemView(query.needed(views, HouseholdViews.self), item: found.item!)!, currency: currency, calendar: views.calendar)
        }
    }
}

extension TextViews {
    static func household(_ view: HouseholdView, calendar: HouseholdCalendar, nowSource: String) -> String {
        guard let household = view.household else { return header("No household yet", asOf: view.asOf) }
        var lines = [header(household.name, asOf: view.asOf), "",
                     "currency   \(household.currency)", "time zone  \(household.timeZone)",
                     "members    \(view.open ? "none yet (open: every device may do anything)" : "see `view members`")"]
        // Every trip under way, each with its shopper; the asker's own marked "yours".
        for (index, trip) in view.trips.enumerated() {
            let state = trip.paused ? "paused" + (trip.pausedAt.map { " since \(Format.time($0, calendar))" } ?? "") : "running"
            lines.append((index == 0 ? "trips      " : "           ") + "\(Limits.visible(trip.shopper))\(trip == view.trip ? " (yours)" : ""): "
                         + "\(state)\(trip.store.map { " at \(Limits.visible($0.name))" } ?? ""), started \(Format.time(trip.startedAt, calendar)), "
                         + "\(Format.duration(seconds: trip.activeSeconds)) so far (to \(nowSource))")
        }
        if view.trips.isEmpty { lines.append("trips      none under way") }
        return lines.joined(separator: "\n")
    }

    static func item(_ view: ItemView, currency: String?, calendar: HouseholdCalendar) -> String {
        let item = view.item, d = item.details
        var lines = [header(item.name + (item.isDeleted ? " (deleted)" : ""), asOf: view.asOf), ""]
        let facts: [(String, String?)] = [("where", view.locationName), ("price", d.unitPrice.map { Format.money($0, currency) + (d.unit.map { " per \($0)" } ?? "") }),
                                          ("barcode", d.barcode), ("category", d.category), ("notes", d.notes),
                                          ("available", item.isAvailable ? "yes" : "no (out of stock)")]
        for (key, value) in facts { if let value { lines.append(key.padding(toLength: 10, withPad: " ", startingAt: 0) + " " + Limits.visible(value)) } }
        lines += ["", view.lists.isEmpty ? "On no list." : "On " + view.lists.map { "\(Limits.visible($0.name)) (\(Format.amount($0.quantity, d.unit))\($0.bought ? ", bought" : ""))" }
            .joined(separator: ", ")]
        if !view.prices.isEmpty {
            var table = Table(["store", "last", "when", "lowest", "highest", "bought"], rightAligned: [1, 3, 4, 5])
            for row in view.prices {
                table.add([row.name, Format.money(row.lastUnitPrice), Format.time(row.lastPurchased, calendar), row.lowest.map { Format.money($0) } ?? "—",
                           row.highest.map { Format.money($0) } ?? "—", "\(row.purchases)"])
            }
            lines += ["", "Prices by store", table.render()]
        }
        var table = Table(["when", "who", "qty", "price", "list", ""], rightAligned: [2, 3])
        for r in view.purchases {
            table.add([Format.time(r.purchasedAt, calendar), r.actor, "\(r.quantity)", Format.money(r.unitPrice), r.listName ?? "—", r.isReverted ? "reverted" : ""])
        }
        lines += ["", "Last purchases, newest first", view.purchases.isEmpty ? "None." : table.render()]
        return lines.joined(separator: "\n")
    }
}
