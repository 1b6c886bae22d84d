import ShopEvents
import ShopProjections

/// The views as aligned text for people.
enum TextViews {
    static func header(_ title: String, asOf: Int) -> String { "\(Limits.visible(title))  (as of seq \(asOf))" }

    static func shoppingList(_ view: ShoppingListView, currency: String?) -> String {
        var out = [header("\(view.list.name) — shopping list \(view.grouping == .byLocation ? "by location" : "by name")"
                          + (view.store.map { " at \($0.name)" } ?? "")
                          + (view.member.map { " for \($0) (and nobody's)" } ?? ""), asOf: view.asOf)]
        // One table for all sections, so that columns line up down the whole list.
        var table = Table(["", "item", "qty", "price", ""], rightAligned: [2, 3])
        for section in view.sections {
            for entry in section.entries {
                table.add(["", entry.name, Format.amount(entry.quantity, entry.unit), entry.unitPrice.map { Format.money($0) } ?? "",
                           [entry.available ? nil : "out of stock", entry.assignee.map { "for \($0)" }].compactMap { $0 }.joined(separator: ", ")])
            }
        }
        var rows = table.render().split(separator: "\n", omittingEmptySubsequences: false).dropFirst().makeIterator()
        for section in view.sections {
            out.append("")
            out.append(Limits.visible(section.title))
            for _ in section.entries { out.append(String(rows.next() ?? "")) }
        }
        if view.sections.isEmpty { out.append("\nNothing to buy.") }
        out.append("")
        out.append("\(view.remaining) to buy · \(view.bought) bought · estimated \(Format.money(view.estimatedTotal, currency))"
                   + (view.unpriced > 0 ? " · \(view.unpriced) without a price" : ""))
        return out.joined(separator: "\n")
    }

    /// A soft-deleted list's view says so under its title: it is restorable, and takes no other command.
    static func deletedMark(_ text: String, list: ListID, views: some StateFold) -> String {
        guard let deleted = views.state.lists[list], deleted.isDeleted else { return text }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        lines.insert("(deleted: restorable with RestoreList; it takes no other command)", at: 1)
        return lines.joined(separator: "\n")
    }

    /// A bought entry shows what was bought: the purchase's quantity, and the entry's where they differ.
    static func listDetail(_ view: ListDetailView, views: (any StatisticsFold)? = nil) -> String {
        var bought: [ItemID: Quantity] = [:]
        for entry in views?.state.lists[view.list.id]?.entries ?? [] {
            if let purchase = entry.purchase, let views, let quantity = views.statistics.quantity(of: purchase, in: views.state) { bought[entry.item] = quantity }
        }
        var table = Table(["", "item", "qty"], rightAligned: [2])
        for entry in view.entries {
            let quantity = entry.bought ? bought[entry.item].map { $0 == entry.quantity ? Format.amount($0, entry.unit) : "\(Format.amount($0, entry.unit)) (of \(entry.quantity))" } : nil
            table.add([entry.bought ? "✓" : "·", entry.name, quantity ?? Format.amount(entry.quantity, entry.unit)])
        }
        return [header(view.list.name, asOf: view.asOf), "", table.render(), "", "bought \(view.bought) of \(view.total)"]
            .joined(separator: "\n")
    }

    static func lists(_ view: ListsView, calendar: HouseholdCalendar) -> String {
        var table = Table(["list", "priority", "entries", "to buy", "bought", "created"], rightAligned: [2, 3, 4])
        for row in view.lists {
            table.add([row.name, row.priority.rawValue, "\(row.entries)", "\(row.remaining)", "\(row.bought)", Format.time(row.createdAt, calendar)])
        }
        return [header("Lists", asOf: view.asOf), "", view.lists.isEmpty ? "No lists." : table.render()].joined(separator: "\n")
    }

    static func deletedLists(_ view: DeletedListsView, calendar: HouseholdCalendar) -> String {
        // The id too: two deleted lists may share a name, and RestoreList or PurgeList then needs the id.
        var table = Table(["list", "id", "deleted", "by", "entries"], rightAligned: [4])
        for row in view.lists { table.add([row.name, row.id.description, Format.time(row.deletedAt, calendar), row.deletedBy, "\(row.entries)"]) }
        return [header("Deleted lists (restorable)", asOf: view.asOf), "", view.lists.isEmpty ? "No deleted lists." : table.render()]
            .joined(separator: "\n")
    }

    static func locations(_ view: LocationsView) -> String {
        // Numbered 1…n in visiting order: a deleted location's stored position leaves no gap here.
        var table = Table(["#", "location", "items"], rightAligned: [0, 2])
        for (number, row) in zip(1..., view.locations) {
            table.add([row.id == .unknown ? "last" : "\(number)", row.name, "\(row.items)"])
        }
        return [header("Locations in visiting order", asOf: view.asOf), "", table.render()].joined(separator: "\n")
    }

    static func itemsByName(_ view: ItemsByNameView, views: some StateFold) -> String {
        var table = Table(["item", "location", "on lists", "last purchased"])
        for row in view.items {
            table.add([row.name, row.locationName,
                       row.onLists.compactMap { views.state.lists[$0]?.name }.joined(separator: ", "),
                       Format.time(row.lastPurchased, views.calendar)])
        }
        return [header("All items by name", asOf: view.asOf), "", view.items.isEmpty ? "No items." : table.render()]
            .joined(separator: "\n")
    }

    /// `nowSource` says where the view's now came from (`the clock`, `--now`, `the time of seq 9`).
    static func due(_ view: DueView, calendar: HouseholdCalendar, nowSource: String) -> String {
        var table = Table(["item", "last bought", "every", "since", "overdue"], rightAligned: [2, 3, 4])
        for row in view.items {
            table.add([row.name, Format.time(row.lastPurchased, calendar), days(row.meanIntervalDays), days(row.daysSince),
                       row.overdue.map { String(format: "%.1f×", $0) } ?? "always"])
        }
        return [header("Staples that are due", asOf: view.asOf), "Days counted to \(Format.time(view.now, calendar)) (\(nowSource))", "",
                view.items.isEmpty ? "Nothing is due: no item bought 3 times or more is as long since as usual and off every list." : table.render()]
            .joined(separator: "\n")
    }

    private static func days(_ value: Double) -> String { String(format: "%.1f d", value) }

    static func prices(_ view: PricesView, currency: String?, calendar: HouseholdCalendar) -> String {
        var table = Table(["item", "store", "last", "when", "lowest", "highest", "bought", ""], rightAligned: [2, 4, 5, 6])
        for item in view.items {
            for (n, row) in item.stores.enumerated() {
                let name = n == 0 ? Limits.visible(item.name) + (item.unit.map { " (per \($0))" } ?? "") : ""
                table.add([name, Limits.visible(row.name), Format.money(row.lastUnitPrice), Format.time(row.lastPurchased, calendar),
                           row.lowest.map { Format.money($0) } ?? "—", row.highest.map { Format.money($0) } ?? "—", "\(row.purchases)",
                           item.stores.count > 1 && row.store == item.cheapest ? "cheapest" : ""])
            }
        }
        return [header("Prices by store", asOf: view.asOf), "",
                view.items.isEmpty ? "No priced purchase yet." : table.render()].joined(separator: "\n")
    }

    /// The stores as a table (bought, spent, last purchase), then each one's order of locations.
    static func stores(_ view: StoresView, views: some StateFold, currency: String?) -> String {
        guard !view.stores.isEmpty else { return [header("Stores", asOf: view.asOf), "", "No store yet."].joined(separator: "\n") }
        var table = Table(["store", "bought", "spent", "last purchase"], rightAligned: [1, 2])
        for row in view.stores {
            table.add([Limits.visible(row.name), "\(row.purchases)", Format.money(row.spend, currency), Format.time(row.lastPurchased, views.calendar)])
        }
        var out = [header("Stores", asOf: view.asOf), "", table.render(), "", "Order of locations (the store's own, then the household's):"]
        for row in view.stores {
            let names = row.order.map { Limits.visible(views.name(of: $0)) }
            out.append("  \(Limits.visible(row.name)): \(names.joined(separator: " → "))\(row.ownOrder.isEmpty ? " (the household's)" : "")")
        }
        return out.joined(separator: "\n")
    }

    static func itemsByPurchaseDate(_ view: ItemsByPurchaseDateView) -> String {
        var out = [header("All items by purchase date", asOf: view.asOf)]
        for section in view.sections {
            out.append("")
            out.append(section.day ?? "never purchased")
            out += section.items.map { "  \(Limits.visible($0.name))" }
        }
        return out.joined(separator: "\n")
    }

    static func members(_ view: MembersView, calendar: HouseholdCalendar) -> String {
        guard !view.isOpen else {
            return [header("Members", asOf: view.asOf), "", "No members: the household is open, every actor may issue every command."]
                .joined(separator: "\n")
        }
        var table = Table(["member", "role", "joined", "added by"])
        for row in view.members { table.add([row.member, row.role.rawValue, Format.time(row.joinedAt, calendar), row.addedBy]) }
        return [header("Members", asOf: view.asOf), "", table.render()].joined(separator: "\n")
    }

    static func audit(_ view: AuditView, calendar: HouseholdCalendar) -> String {
        // A store column only where some purchase names a store (a household without stores reads as before them).
        let stores = view.purchases.contains { $0.store != nil }
        var table = Table(["seq", "purchase", "when", "who", "item", "qty", "price", "list", "where"] + (stores ? ["store"] : []) + [""],
                          rightAligned: [0, 5, 6])
        for r in view.purchases {
            table.add(["\(r.seq)", Format.short(r.purchase), Format.time(r.purchasedAt, calendar), r.actor, r.itemName, "\(r.quantity)", Format.money(r.unitPrice),
                       r.listName ?? "—", r.locationName] + (stores ? [r.storeName ?? "—"] : []) + [r.isReverted ? "reverted" : ""])
        }
        return [header("Audit: \(Format.count(view.purchases.count, "purchase")), times in \(calendar.timeZone.identifier)", asOf: view.asOf), "",
                view.purchases.isEmpty ? "No purchases." : table.render()].joined(separator: "\n")
    }

    static func stats(_ view: StatsView, currency: String?, calendar: HouseholdCalendar) -> String {
        var out = [header("Statistics", asOf: view.asOf), "", "Per month"]
        var months = Table(["month", "purchases", "spend"], rightAligned: [1, 2])
        for row in view.months { months.add([row.month, "\(row.tally.purchases)", Format.money(row.tally.spend, currency)]) }
        out.append(months.render(indent: "  "))
        out += ["", "Per person"]
        var actors = Table(["who", "purchases", "spend"], rightAligned: [1, 2])
        for row in view.actors { actors.add([row.actor, "\(row.tally.purchases)", Format.money(row.tally.spend, currency)]) }
        out.append(actors.render(indent: "  "))
        out += ["", "Per place of purchase"]
        var places = Table(["where", "purchases", "spend"], rightAligned: [1, 2])
        for row in view.locations { places.add([row.name, "\(row.tally.purchases)", Format.money(row.tally.spend, currency)]) }
        if let storeRows = view.stores {
            out.append(places.render(indent: "  "))
            places = Table(["store", "purchases", "spend"], rightAligned: [1, 2])
            out += ["", "Per store"]
            for row in storeRows { places.add([row.name, "\(row.tally.purchases)", Format.money(row.tally.spend, currency)]) }
        }
        out.append(places.render(indent: "  "))
        out += ["", "Per item"]
        var items = Table(["item", "purchases", "quantity", "spend", "first", "last", "every"], rightAligned: [1, 2, 3, 6])
        for row in view.items {
            items.add([row.name, "\(row.tally.purchases)", "\(row.tally.quantity)", Format.money(row.tally.spend),
                       Format.time(row.first, calendar), Format.time(row.last, calendar),
                       row.meanIntervalDays.map { String(format: "%.1f d", $0) } ?? "—"])
        }
        out.append(items.render(indent: "  "))
        out += ["", "Trips: \(Format.count(view.trips.count, "ended trip"))"
                + (view.trips.meanSeconds.map { ", \(Format.duration(seconds: view.trips.totalSeconds)) in all, \(Format.duration(seconds: $0)) on average" } ?? "")]
        return out.joined(separator: "\n")
    }
}
