import ShopEvents

/// A list's id and name, as views show it.
public struct ListRef: Hashable, Sendable {
    public var id: ListID
    public var name: String

    /// Memberwise, for preview data and tests.
    public init(id: ListID, name: String) {
        self.id = id; self.name = name
    }
    var json: JSONValue { .object([("id", .string(id.description)), ("name", .string(name))]) }
}

/// The shopping list as a shopper walks the store: the unbought entries of
/// one list, in one section per location (visiting order, Unknown last), or
/// in one section by name; with what is left to buy and what it should cost.
///
/// ```swift
/// let view = ShoppingListView(views, list: weekly, grouping: .byLocation)!
/// for section in view.sections { print(section.title, section.entries.map(\.name)) }
/// print(view.estimatedTotal, view.unpriced)
/// ```
public struct ShoppingListView: Hashable, Sendable {
    /// By store location in visiting order, or one section by name; the raw value is the view's name.
    public enum Grouping: String, Hashable, Sendable {
        case byLocation = "shopping-list-by-location"
        case byName = "shopping-list-by-name"
    }

    /// One entry of the list.
    public struct Entry: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var quantity: Quantity
        public var available: Bool
        public var unitPrice: Int?
        /// Who is getting it; `nil`: nobody (SPEC section 10).
        public var assignee: String?
        /// What the quantity counts (`kg`); `nil`: pieces (SPEC section 10).
        public var unit: String?

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, quantity: Quantity, available: Bool, unitPrice: Int?, assignee: String? = nil, unit: String? = nil) {
            self.item = item; self.name = name; self.quantity = quantity; self.available = available; self.unitPrice = unitPrice
            self.assignee = assignee; self.unit = unit
        }
    }

    /// One section of the view.
    public struct Section: Hashable, Sendable {
        public var title: String
        /// `nil` for the single section of the by-name view.
        public var location: LocationID?
        public var entries: [Entry]

        /// Memberwise, for preview data and tests.
        public init(title: String, location: LocationID?, entries: [Entry]) {
            self.title = title; self.location = location; self.entries = entries
        }
    }

    public var grouping: Grouping
    public var asOf: Int
    public var list: ListRef
    public var sections: [Section]
    /// Unbought entries.
    public var remaining: Int
    /// Bought entries still on the list.
    public var bought: Int
    /// Σ quantity × unitPrice over the remaining entries that have a price.
    public var estimatedTotal: Int
    /// Remaining entries without a price.
    public var unpriced: Int
    /// The member whose entries (and the unassigned ones) the view shows; `nil`: every entry.
    public var member: String?
    /// By location: the store whose order the sections follow (SPEC section 11); `nil`: the household's order.
    public var store: StoreRef?

    init(grouping: Grouping, asOf: Int, list: ListRef, sections: [Section], remaining: Int, bought: Int,
         estimatedTotal: Int, unpriced: Int, member: String? = nil, store: StoreRef? = nil) {
        self.grouping = grouping; self.asOf = asOf; self.list = list; self.sections = sections
        self.remaining = remaining; self.bought = bought; self.estimatedTotal = estimatedTotal; self.unpriced = unpriced
        self.member = member; self.store = store
    }

    /// `nil` if there is no such list (never created, or purged). With `member`, only the entries
    /// assigned to that member and those assigned to nobody (`--for MEMBER`); `remaining`,
    /// `estimatedTotal` and `unpriced` then count what is shown, `bought` the whole list.
    /// An entry assigned to someone who is no longer a member of a closed household is
    /// nobody's (``Entry/assignee`` nil, shown to every member). A `member` who is no
    /// member of a closed household sees only nobody's entries: `shop-replay` refuses
    /// such a `--for` (`unknown_member`) before it asks.
    ///
    /// By location, the sections follow the order of `store`
    /// (``ShopState/visitingOrder(at:)``); without one, that of the store of
    /// the trip `shopper` (else `member`) has running now, if it is at a live
    /// store — never another shopper's trip; else the household's. ``store``
    /// names the store used.
    ///
    /// ```swift
    /// let mine = ShoppingListView(views, list: weekly, grouping: .byLocation, for: "ben")!
    /// print(mine.remaining, mine.sections.flatMap(\.entries).map(\.name))
    /// ```
    public init?(_ views: some StateFold, list id: ListID, grouping: Grouping, for member: String? = nil, store: StoreID? = nil,
                 shopper: String? = nil) {
        guard let list = views.state.lists[id] else { return nil }
        self.grouping = grouping
        asOf = views.asOf
        self.list = ListRef(id: id, name: list.name)
        self.store = grouping == .byLocation ? Self.store(store, shopper: shopper ?? member, in: views.state) : nil
        var byLocation: [LocationID: [Entry]] = [:]
        var all: [Entry] = []
        self.member = member
        var hidden = 0   // another member's
        for entry in list.entries where !entry.isBought {
            let assignee = views.state.assignee(of: entry)
            if let member, let assignee, assignee != member {
                hidden += 1
                continue
            }
            guard let item = views.state.items[entry.item] else { continue }
            let row = Entry(item: item.id, name: item.name, quantity: entry.quantity, available: item.isAvailable,
                            unitPrice: item.details.unitPrice, assignee: assignee, unit: item.details.unit)
            all.append(row)
            byLocation[item.location, default: []].append(row)
        }
        let sorted: ([Entry]) -> [Entry] = { $0.sorted { byName(($0.name, $0.item), ($1.name, $1.item)) } }
        switch grouping {
        case .byName:
            sections = all.isEmpty ? [] : [Section(title: list.name, location: nil, entries: sorted(all))]
        case .byLocation:
            let order = views.state.visitingOrder(at: self.store?.id)
            let stray = byLocation.lazy.filter { !order.contains($0.key) }.flatMap(\.value)
            if !stray.isEmpty { byLocation[.unknown, default: []] += stray }
            sections = order.compactMap { location in
                guard let entries = byLocation[location], !entries.isEmpty else { return nil }
                return Section(title: views.name(of: location), location: location, entries: sorted(entries))
            }
        }
        remaining = all.count
        bought = list.entries.count - all.count - hidden
        estimatedTotal = all.reduce(0) { total, entry in total + (entry.unitPrice.map { entry.quantity.cost(unitPrice: $0) } ?? 0) }
        unpriced = all.filter { $0.unitPrice == nil }.count
    }

    /// The store a list by location follows: `given`, else that of `shopper`'s running trip if that store is live.
    private static func store(_ given: StoreID?, shopper: String?, in state: ShopState) -> StoreRef? {
        if let given, let store = state.stores[given] { return StoreRef(id: given, name: store.name) }
        guard given == nil, let shopper, let trip = state.liveRunningTripStore(for: shopper), let store = state.stores[trip] else { return nil }
        return StoreRef(id: trip, name: store.name)
    }

    /// The JSON shape of section 6 of the specification.
    public var json: JSONValue {
        var head: [(String, JSONValue)] = [("view", .string(grouping.rawValue)), ("asOf", .int(asOf)), ("list", list.json)]
        if let member { head.append(("for", .string(member))) }
        if grouping == .byLocation { head.append(("store", store?.json ?? .null)) }
        return .object(head + [
            ("sections", .array(sections.map { section in
                .object([
                    ("title", .string(section.title)), ("location", .optional(section.location?.description)),
                    ("entries", .array(section.entries.map { entry in
                        .object([("item", .string(entry.item.description)), ("name", .string(entry.name)),
                                 ("quantity", .quantity(entry.quantity)), ("available", .bool(entry.available)),
                                 ("unitPrice", .optional(entry.unitPrice)),
                                 ("unit", .optional(entry.unit)), ("assignee", .optional(entry.assignee))])
                    })),
                ])
            })),
            ("remaining", .int(remaining)), ("bought", .int(bought)),
            ("estimatedTotal", .int(estimatedTotal)), ("unpriced", .int(unpriced)),
        ])
    }

    /// The list as plain text for a message, by location.
    ///
    /// ```text
    /// Weekly — 3 to buy
    ///
    /// Dairy
    /// - Milk ×2
    /// - Butter (out of stock)
    /// Bakery
    /// - Bread
    /// ```
    public static func shareText(_ views: some StateFold, list: ListID, for member: String? = nil, shopper: String? = nil) -> String? {
        guard let view = ShoppingListView(views, list: list, grouping: .byLocation, for: member, shopper: shopper) else { return nil }
        var lines = ["\(view.list.name) — \(view.remaining) to buy"]
        if !view.sections.isEmpty { lines.append("") }
        for section in view.sections {
            lines.append(section.title)
            for entry in section.entries {
                lines.append("- \(entry.name)\(entry.unit.map { " \(entry.quantity) \($0)" } ?? (entry.quantity != 1 ? " ×\(entry.quantity)" : ""))\(entry.available ? "" : " (out of stock)")")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One list as its own screen: unbought entries in manual order, then the
/// bought ones, most recently bought last; "bought N of M".
///
/// ```swift
/// let detail = ListDetailView(views, list: weekly)!
/// print("bought \(detail.bought) of \(detail.total)")
/// ```
public struct ListDetailView: Hashable, Sendable {
    /// One entry of the list.
    public struct Entry: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var quantity: Quantity
        public var bought: Bool
        /// Who is getting it; `nil`: nobody (SPEC section 10).
        public var assignee: String?
        /// What the quantity counts (`kg`); `nil`: pieces (SPEC section 10).
        public var unit: String?
        /// The purchase that bought it (what `RevertPurchase` names); `nil` while it is to buy.
        public var purchase: PurchaseID?

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, quantity: Quantity, bought: Bool, assignee: String? = nil, unit: String? = nil,
                    purchase: PurchaseID? = nil) {
            self.item = item; self.name = name; self.quantity = quantity; self.bought = bought; self.assignee = assignee; self.unit = unit
            self.purchase = purchase
        }
    }

    public var asOf: Int
    public var list: ListRef
    public var entries: [Entry]
    public var bought: Int
    public var total: Int

    init(asOf: Int, list: ListRef, entries: [Entry], bought: Int, total: Int) {
        self.asOf = asOf; self.list = list; self.entries = entries; self.bought = bought; self.total = total
    }

    public init?(_ views: some StateFold, list id: ListID) {
        guard let list = views.state.lists[id] else { return nil }
        asOf = views.asOf
        self.list = ListRef(id: id, name: list.name)
        let row = { (entry: ListEntry) in
            Entry(item: entry.item, name: views.name(of: entry.item), quantity: entry.quantity, bought: entry.isBought,
                  assignee: views.state.assignee(of: entry), unit: views.state.items[entry.item]?.details.unit, purchase: entry.purchase)
        }
        let boughtEntries = list.entries.filter(\.isBought).sorted { ($0.boughtSeq ?? 0) < ($1.boughtSeq ?? 0) }
        entries = list.entries.filter { !$0.isBought }.map(row) + boughtEntries.map(row)
        bought = boughtEntries.count
        total = list.entries.count
    }

    public var json: JSONValue {
        .object([
            ("view", "list-detail"), ("asOf", .int(asOf)), ("list", list.json),
            ("entries", .array(entries.map { entry in
                // A bought entry names its purchase (SPEC section 12: an app's "Undo"); an unbought one has no such key.
                .object([("item", .string(entry.item.description)), ("name", .string(entry.name)),
                         ("quantity", .quantity(entry.quantity)), ("bought", .bool(entry.bought)),
                         ("unit", .optional(entry.unit)), ("assignee", .optional(entry.assignee))]
                        + (entry.purchase.map { [("purchase", JSONValue.string($0.description))] } ?? []))
            })),
            ("bought", .int(bought)), ("total", .int(total)),
        ])
    }
}

extension ShopState {
    /// Who is getting an entry, as the views show it: its assignee while that
    /// one may be assigned (any name in an open household, a member in a
    /// closed one); an entry assigned to a member since removed is nobody's.
    func assignee(of entry: ListEntry) -> String? {
        guard let assignee = entry.assignee, isOpen || member(named: assignee) != nil else { return nil }
        return assignee
    }
}
