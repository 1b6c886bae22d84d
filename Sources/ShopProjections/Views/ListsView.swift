import ShopEvents

/// The live lists, high priority first, then by name; with their counts.
///
/// ```swift
/// for row in ListsView(views).lists { print(row.name, row.remaining) }
/// ```
public struct ListsView: Hashable, Sendable {
    /// One row of the view.
    public struct Row: Hashable, Sendable {
        public var id: ListID
        public var name: String
        public var priority: Priority
        public var createdAt: Timestamp
        public var entries: Int
        public var remaining: Int
        public var bought: Int

        /// Memberwise, for preview data and tests.
        public init(id: ListID, name: String, priority: Priority, createdAt: Timestamp, entries: Int, remaining: Int, bought: Int) {
            self.id = id; self.name = name; self.priority = priority; self.createdAt = createdAt; self.entries = entries; self.remaining = remaining; self.bought = bought
        }
    }

    public var asOf: Int
    public var lists: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, lists: [Row]) {
        self.asOf = asOf; self.lists = lists
    }

    public init(_ views: some StateFold) {
        asOf = views.asOf
        lists = views.state.lists.values.filter { !$0.isDeleted }
            .sorted { a, b in a.priority != b.priority ? a.priority.rank > b.priority.rank : byName((a.name, a.id), (b.name, b.id)) }
            .map { list in
                let bought = list.entries.filter(\.isBought).count
                return Row(id: list.id, name: list.name, priority: list.priority, createdAt: list.createdAt,
                           entries: list.entries.count, remaining: list.entries.count - bought, bought: bought)
            }
    }

    public var json: JSONValue {
        .object([
            ("view", "lists"), ("asOf", .int(asOf)),
            ("lists", .array(lists.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)),
                         ("priority", .string(row.priority.rawValue)), ("createdAt", .string(row.createdAt.description)),
                         ("entries", .int(row.entries)), ("remaining", .int(row.remaining)), ("bought", .int(row.bought))])
            })),
        ])
    }
}

/// Soft-deleted lists that can still be restored, most recently deleted first.
///
/// ```swift
/// for row in DeletedListsView(views).lists { print(row.name, row.deletedBy, row.deletedAt) }
/// ```
public struct DeletedListsView: Hashable, Sendable {
    /// One row of the view.
    public struct Row: Hashable, Sendable {
        public var id: ListID
        public var name: String
        public var deletedAt: Timestamp
        public var deletedBy: String
        public var entries: Int

        /// Memberwise, for preview data and tests.
        public init(id: ListID, name: String, deletedAt: Timestamp, deletedBy: String, entries: Int) {
            self.id = id; self.name = name; self.deletedAt = deletedAt; self.deletedBy = deletedBy; self.entries = entries
        }
    }

    public var asOf: Int
    public var lists: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, lists: [Row]) {
        self.asOf = asOf; self.lists = lists
    }

    public init(_ views: some StateFold) {
        asOf = views.asOf
        lists = views.state.lists.values.compactMap { list in
            guard let at = list.deletedAt else { return nil }
            return Row(id: list.id, name: list.name, deletedAt: at, deletedBy: list.deletedBy ?? "", entries: list.entries.count)
        }.sorted { $0.deletedAt != $1.deletedAt ? $0.deletedAt > $1.deletedAt : $0.id < $1.id }
    }

    public var json: JSONValue {
        .object([
            ("view", "deleted-lists"), ("asOf", .int(asOf)),
            ("lists", .array(lists.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)),
                         ("deletedAt", .string(row.deletedAt.description)), ("deletedBy", .string(row.deletedBy)),
                         ("entries", .int(row.entries))])
            })),
        ])
    }
}

/// The live locations in visiting order, Unknown last, with how many live items each holds.
///
/// ```swift
/// for row in LocationsView(views).locations { print(row.position, row.name, row.items) }
/// ```
public struct LocationsView: Hashable, Sendable {
    /// One row of the view.
    public struct Row: Hashable, Sendable {
        public var id: LocationID
        public var name: String
        public var position: Int
        public var color: Color
        public var items: Int

        /// Memberwise, for preview data and tests.
        public init(id: LocationID, name: String, position: Int, color: Color, items: Int) {
            self.id = id; self.name = name; self.position = position; self.color = color; self.items = items
        }
    }

    public var asOf: Int
    public var locations: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, locations: [Row]) {
        self.asOf = asOf; self.locations = locations
    }

    public init(_ views: some StateFold) {
        asOf = views.asOf
        var counts: [LocationID: Int] = [:]
        for item in views.state.items.values where !item.isDeleted { counts[item.location, default: 0] += 1 }
        locations = views.state.visitingOrder.compactMap { id in
            views.state.locations[id].map { Row(id: id, name: $0.name, position: $0.position, color: $0.color, items: counts[id] ?? 0) }
        }
    }

    public var json: JSONValue {
        .object([
            ("view", "locations"), ("asOf", .int(asOf)),
            ("locations", .array(locations.map { row in
                .object([("id", .string(row.id.description)), ("name", .string(row.name)), ("position", .int(row.position)),
                         ("color", .object([("red", .double(row.color.red)), ("green", .double(row.color.green)),
                                            ("blue", .double(row.color.blue)), ("opacity", .double(row.color.opacity))])),
                         ("items", .int(row.items))])
            })),
        ])
    }
}
