import Foundation
import ShopEvents
import ShopProjections

/// `view NAME` without `--json`: the text of each view, its fold from `source` as ``ViewQuery/json(_:clock:suggestions:)``
/// gets it, from the names the query found there (``ViewQuery/resolve(_:)``).
extension ViewCommand {
    func showText(_ source: JournalFoldSource) throws -> String {
        func resolved<Fold: StateFold>(_ views: Fold) throws(ViewQueryError) -> (Fold, ViewQuery.Resolved, String?) {
            (views, try query.resolve(views), views.state.household?.currency)
        }
        let clock = Clock.system.now()
        // reason (each `!` below): `resolve` found the list in `views.state`, deleted ones too: each list view has it.
        switch view {
        case .shoppingListByLocation, .shoppingListByName:
            let (views, found, currency) = try resolved(source.presentFold())
            let list = found.list!   // reason: as above
            let shopping = ShoppingListView(views, list: list, grouping: view == .shoppingListByName ? .byName : .byLocation,
                                            for: found.member, store: found.store, shopper: found.member ?? query.shopper)!   // reason: as above
            return TextViews.deletedMark(TextViews.shoppingList(shopping, currency: currency), list: list, views: views)
        case .listDetail:
            // The text shows how many each bought entry's purchase bought: the statistics have it.
            let (views, found, _) = try resolved(source.statisticsFold())
            let list = found.list!   // reason: as above
            return TextViews.deletedMark(TextViews.listDetail(ListDetailView(views, list: list)!, views: views), list: list, views: views)   // reason: as above
        case .shareText:
            let (views, found, _) = try resolved(source.presentFold())
            return ShoppingListView.shareText(views, list: found.list!, for: found.member, shopper: found.member ?? query.shopper)!   // reason: as above
                .trimmingCharacters(in: .newlines)
        case .lists:
            let (views, _, _) = try resolved(source.presentFold())
            return TextViews.lists(ListsView(views), calendar: views.calendar)
        case .deletedLists:
            let (views, _, _) = try resolved(source.presentFold())
            return TextViews.deletedLists(DeletedListsView(views), calendar: views.calendar)
        case .locations: return TextViews.locations(LocationsView(try resolved(source.presentFold()).0))
        case .members:
            let (views, _, _) = try resolved(source.presentFold())
            return TextViews.members(MembersView(views), calendar: views.calendar)
        case .household:
            let (views, found, _) = try resolved(source.presentFold())
            let (time, nowSource) = try query.now(views, clock: clock)
            return TextViews.household(HouseholdView(views, now: time, shopper: found.member ?? query.shopper), calendar: views.calendar, nowSource: nowSource)
        case .allItemsByName:
            let (views, _, _) = try resolved(source.statisticsFold())
            return TextViews.itemsByName(ItemsByNameView(views), views: views)
        case .allItemsByPurchaseDate: return TextViews.itemsByPurchaseDate(ItemsByPurchaseDateView(try resolved(source.statisticsFold()).0))
        case .suggestions:
            let (views, found, currency) = try resolved(source.statisticsFold())
            let (time, nowSource) = try query.now(views, clock: clock)
            let suggestions = SuggestionsView(views, list: found.list, prefix: query.prefix ?? "",
                                              limit: query.limit ?? SuggestionsView.defaultLimit, now: time)!   // reason: `resolve` found the list, deleted ones too
            return TextViews.suggestions(suggestions, currency: currency, calendar: views.calendar, nowSource: nowSource, prefix: query.prefix ?? "")
        case .due:
            let (views, _, _) = try resolved(source.statisticsFold())
            let (time, nowSource) = try query.now(views, clock: clock)
            return TextViews.due(DueView(views, now: time), calendar: views.calendar, nowSource: nowSource)
        case .prices:
            let (views, found, currency) = try resolved(source.statisticsFold())
            return TextViews.prices(PricesView(views, item: found.item), currency: currency, calendar: views.calendar)
        case .stores:
            let (views, _, currency) = try resolved(source.statisticsFold())
            return TextViews.stores(StoresView(views), views: views, currency: currency)
        case .item:
            let (views, found, currency) = try resolved(source.householdViews())
            // reason: the item view needs --item, and `resolve` found it in `views.state`
            return TextViews.item(ItemView(views, item: found.item!)!, currency: currency, calendar: views.calendar)
        case .audit, .stats: return ""   // shown by `run()` as they stream
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
