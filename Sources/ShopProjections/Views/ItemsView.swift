import ShopEvents

/// Every live item by name: where it is kept, which live lists it is on
/// (unbought), and when it was last bought.
///
/// ```swift
/// for row in ItemsByNameView(views).items { print(row.name, row.locationName, row.lastPurchased as Any) }
/// ```
public struct ItemsByNameView: Hashable, Sendable {
    /// One row of the view.
    public struct Row: Hashable, Sendable {
        public var id: ItemID
        public var name: String
        public var location: LocationID
        public var locationName: String
        /// Live lists the item is on and not bought, by list id.
        public var onLists: [ListID]
        /// The latest `purchasedAt`/`at` of its non-reverted purchases.
        public var lastPurchased: Timestamp?

        /// Memberwise, for preview data and tests.
        public init(id: ItemID, name: String, location: LocationID, locationName: String, onLists: [ListID], lastPurchased: Timestamp?) {
            self.id = id; self.name = name; self.location = location; self.locationName = locationName; self.onLists = onLists; self.lastPurchased = lastPurchased
        }
    }

    public var asOf: Int
    public var items: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, items: [Row]) {
        self.asOf = asOf; self.items = items
    }

    /// From views with the totals (``HouseholdViews`` has them), for the last purchases.
    public init(_ views: some TotalsFold) {
        asOf = views.asOf
        let onLists = views.unboughtOnLiveLists
        items = sortedByName(views.state.items.values.filter { !$0.isDeleted }) { ($0.name, $0.id) }
            .map { item in
                Row(id: item.id, name: item.name, location: item.location, locationName: views.name(of: item.location),
                    onLists: (onLists[item.id] ?? []).sorted(), lastPurchased: views.totals.lastPurchase(of: item.id))
            }
    }

    public var json: JSONValue {
        .object([
            ("view", "all-items-by-name"), ("asOf", .int(asOf)),
            ("items", .array(items.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)),
                         ("location", .string(row.location.description)), ("locationName", .string(row.locationName)),
                         ("onLists", .array(row.onLists.map { .string($0.description) })),
                         ("lastPurchased", .optional(row.lastPurchased?.description))])
            })),
        ])
    }
}

/// Live items grouped by the calendar day (household time zone) of their
/// last purchase, newest day first, by name within a day; then a last
/// section of items never purchased.
///
/// ```swift
/// for section in ItemsByPurchaseDateView(views).sections { print(section.day ?? "never", section.items.count) }
/// ```
public struct ItemsByPurchaseDateView: Hashable, Sendable {
    /// An item: its id and name.
    public struct Item: Hashable, Sendable {
        public var id: ItemID
        public var name: String

        /// Memberwise, for preview data and tests.
        public init(id: ItemID, name: String) {
            self.id = id; self.name = name
        }
    }

    /// One section of the view.
    public struct Section: Hashable, Sendable {
        /// `YYYY-MM-DD`; `nil` for the items never purchased.
        public var day: String?
        public var items: [Item]

        /// Memberwise, for preview data and tests.
        public init(day: String?, items: [Item]) {
            self.day = day; self.items = items
        }
    }

    public var asOf: Int
    public var sections: [Section]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, sections: [Section]) {
        self.asOf = asOf; self.sections = sections
    }

    /// From views with the totals (``HouseholdViews`` has them), for the last purchases.
    public init(_ views: some TotalsFold) {
        asOf = views.asOf
        var days: [String: [Item]] = [:]
        var never: [Item] = []
        for item in views.state.items.values where !item.isDeleted {
            let row = Item(id: item.id, name: item.name)
            if let last = views.totals.lastPurchase(of: item.id) {
                days[views.calendar.day(last), default: []].append(row)
            } else {
                never.append(row)
            }
        }
        let sorted: ([Item]) -> [Item] = { sortedByName($0) { ($0.name, $0.id) } }
        sections = days.sorted { $0.key > $1.key }.map { Section(day: $0.key, items: sorted($0.value)) }
        if !never.isEmpty { sections.append(Section(day: nil, items: sorted(never))) }
    }

    public var json: JSONValue {
        .object([
            ("view", "all-items-by-purchase-date"), ("asOf", .int(asOf)),
            ("sections", .array(sections.map { section in
                .object([("day", .optional(section.day)), ("items", .array(section.items.map { .string($0.id.description) }))])
            })),
        ])
    }
}
