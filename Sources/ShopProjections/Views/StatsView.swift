import ShopEvents

/// Spending and habits: per item, per calendar month (household time zone),
/// per actor and per place of purchase, and the ended shopping trips.
/// Reverted purchases never count; purchases of items deleted since still
/// do, under the item's last name.
///
/// ```swift
/// let stats = StatsView(views)
/// for month in stats.months { print(month.month, month.tally.spend) }
/// print(stats.trips.count, stats.trips.meanSeconds as Any)
/// ```
public struct StatsView: Hashable, Sendable {
    /// One item's totals.
    public struct ItemRow: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var tally: Tally
        public var first: Timestamp
        public var last: Timestamp
        /// (last − first) / (purchases − 1), in days; `nil` with fewer than two purchases.
        public var meanIntervalDays: Double?

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, tally: Tally, first: Timestamp, last: Timestamp, meanIntervalDays: Double?) {
            self.item = item; self.name = name; self.tally = tally; self.first = first; self.last = last; self.meanIntervalDays = meanIntervalDays
        }
    }

    /// One month's totals.
    public struct MonthRow: Hashable, Sendable {
        /// `YYYY-MM`.
        public var month: String
        public var tally: Tally

        /// Memberwise, for preview data and tests.
        public init(month: String, tally: Tally) {
            self.month = month; self.tally = tally
        }
    }

    /// One person's totals.
    public struct ActorRow: Hashable, Sendable {
        public var actor: String
        public var tally: Tally

        /// Memberwise, for preview data and tests.
        public init(actor: String, tally: Tally) {
            self.actor = actor; self.tally = tally
        }
    }

    /// One place's totals.
    public struct LocationRow: Hashable, Sendable {
        public var location: LocationID
        public var name: String
        public var tally: Tally

        /// Memberwise, for preview data and tests.
        public init(location: LocationID, name: String, tally: Tally) {
            self.location = location; self.name = name; self.tally = tally
        }
    }

    /// One store's totals; `store` nil for the purchases that name none.
    public struct StoreRow: Hashable, Sendable {
        public var store: StoreID?
        public var name: String
        public var tally: Tally

        /// Memberwise, for preview data and tests.
        public init(store: StoreID?, name: String, tally: Tally) {
            self.store = store; self.name = name; self.tally = tally
        }
    }

    /// The name of the row of purchases that name no store.
    public static let noStoreName = "No store"

    /// The ended trips.
    public struct Trips: Hashable, Sendable {
        /// Ended trips.
        public var count: Int
        public var totalSeconds: Double
        public var meanSeconds: Double?

        /// Memberwise, for preview data and tests.
        public init(count: Int, totalSeconds: Double, meanSeconds: Double?) {
            self.count = count; self.totalSeconds = totalSeconds; self.meanSeconds = meanSeconds
        }
    }

    public var asOf: Int
    public var items: [ItemRow]
    public var months: [MonthRow]
    public var actors: [ActorRow]
    public var locations: [LocationRow]
    /// Spend per store, by name, "no store" last; `nil` in a household that
    /// has never had a store (its text has no "Per store" table; its JSON `stores` is `[]`).
    public var stores: [StoreRow]?
    public var trips: Trips

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, items: [ItemRow], months: [MonthRow], actors: [ActorRow], locations: [LocationRow], stores: [StoreRow]? = nil, trips: Trips) {
        self.asOf = asOf; self.items = items; self.months = months; self.actors = actors; self.locations = locations
        self.stores = stores; self.trips = trips
    }

    public init(_ views: some TotalsFold) {
        self.init(views, rows: true)
    }

    /// The statistics, their item and location rows left empty unless `rows`.
    private init(_ views: some TotalsFold, rows: Bool) {
        asOf = views.asOf
        if rows {
            let order = Self.rowOrder(views)
            let totals = views.totals
            items = order.items.compactMap { Self.itemRow($0, in: totals, views) }
            locations = order.places.compactMap { Self.locationRow($0, in: totals, views) }
        } else {
            items = []
            locations = []
        }
        months = Self.monthRows(views.totals)
        actors = Self.actorRows(views.totals)
        stores = Self.storeRows(views)
        let ended = views.state.trips.values.filter { if case .ended = $0.phase { true } else { false } }
        let letGo = views.endedTripsLetGo   // a fold of the present's, whose state keeps no ended trip
        trips = Self.trips(ended: ended.count + letGo.count,
                           milliseconds: ended.reduce(letGo.milliseconds) { $0 + $1.activeMilliseconds })
    }

    // The rows, one at a time: what ``LiveStats`` rebuilds after an event.

    static func itemRow(_ id: ItemID, _ views: some TotalsFold) -> ItemRow? { itemRow(id, in: views.totals, views) }

    static func locationRow(_ id: LocationID, _ views: some TotalsFold) -> LocationRow? { locationRow(id, in: views.totals, views) }

    /// An item's row from `totals`, `views`' own (taken once for every row, not once a row).
    static func itemRow(_ id: ItemID, in totals: PurchaseTotals, _ views: some TotalsFold) -> ItemRow? {
        guard let value = totals.items[id], let first = value.first, let last = value.last else { return nil }
        return ItemRow(item: id, name: views.name(of: id), tally: value.tally, first: first, last: last, meanIntervalDays: value.meanIntervalDays)
    }

    /// A place's row from `totals`, `views`' own.
    static func locationRow(_ id: LocationID, in totals: PurchaseTotals, _ views: some TotalsFold) -> LocationRow? {
        totals.locations[id].map { LocationRow(location: id, name: views.name(of: id), tally: $0) }
    }

    static func monthRows(_ totals: PurchaseTotals) -> [MonthRow] {
        totals.monthTotals.map { MonthRow(month: $0.key, tally: $0.value) }.sorted { $0.month < $1.month }
    }

    static func actorRows(_ totals: PurchaseTotals) -> [ActorRow] {
        totals.actors.map { ActorRow(actor: $0.key, tally: $0.value) }.sorted { $0.actor < $1.actor }
    }

    /// The store rows: `nil` while the household has no store.
    static func storeRows(_ views: some TotalsFold) -> [StoreRow]? {
        guard !views.state.stores.isEmpty else { return nil }
        let stores = views.totals.stores
        let named = stores.compactMap { key, tally -> StoreRow? in
            guard let store = key else { return nil }
            return StoreRow(store: store, name: views.state.stores[store]?.name ?? "", tally: tally)
        }
        // reason: `named` holds only rows with a store
        return sortedByName(named) { ($0.name, $0.store!) } + (stores[nil].map { [StoreRow(store: nil, name: noStoreName, tally: $0)] } ?? [])
    }

    static func trips(ended count: Int, milliseconds: Int64) -> Trips {
        let total = Double(milliseconds) / 1000
        return Trips(count: count, totalSeconds: total, meanSeconds: count == 0 ? nil : total / Double(count))
    }

    public var json: JSONValue {
        func tally(_ t: Tally) -> [(String, JSONValue)] { [("purchases", .int(t.purchases)), ("spend", .int(t.spend))] }
        return .object([
            ("view", "stats"), ("asOf", .int(asOf)),
            ("items", .array(items.map(Self.json))),
            ("months", .array(months.map { .object([("month", .string($0.month))] + tally($0.tally)) })),
            ("actors", .array(actors.map { .object([("actor", .string($0.actor))] + tally($0.tally)) })),
            ("locations", .array(locations.map(Self.json))),
            // Always present (docs/VIEWS.md): `[]` in a household that has never had a store.
            ("stores", .array((stores ?? []).map { row in
                .object([("store", .optional(row.store?.description)), ("name", .string(row.name))] + tally(row.tally))
            })),
            ("trips", .object([("count", .int(trips.count)), ("totalSeconds", .double(trips.totalSeconds)),
                               ("meanSeconds", trips.meanSeconds.map(JSONValue.double) ?? .null)])),
        ])
    }

    /// One place's row in ``json``.
    static func json(_ row: LocationRow) -> JSONValue {
        .object([("location", .string(row.location.description)), ("name", .string(row.name)),
                 ("purchases", .int(row.tally.purchases)), ("spend", .int(row.tally.spend))])
    }

    /// One item's row in ``json``.
    static func json(_ row: ItemRow) -> JSONValue {
        .object([("item", .string(row.item.description)), ("name", .string(row.name)),
                 ("purchases", .int(row.tally.purchases)), ("quantity", .quantity(row.tally.quantity)),
                 ("spend", .int(row.tally.spend)), ("first", .string(row.first.description)),
                 ("last", .string(row.last.description)),
                 ("meanIntervalDays", row.meanIntervalDays.map(JSONValue.double) ?? .null)])
    }

    /// ``json`` with `extra` pairs after its own, indented as
    /// ``JSONValue/text(pretty:)`` writes it and a newline after, handed to
    /// `sink` in pieces of about 64 KiB: the JSON of the item rows (one for
    /// every item ever bought) is made and written a few rows at a time,
    /// never held as one value. The pieces joined are exactly `json`'s text.
    ///
    /// ```swift
    /// StatsView(views).writeJSON(adding: [("pending", 2)]) { piece in print(String(decoding: piece, as: UTF8.self), terminator: "") }
    /// ```
    public func writeJSON(adding extra: [(String, JSONValue)] = [], to sink: ([UInt8]) -> Void) {
        var rest = self
        rest.items = []
        rest.locations = []
        rest.writeJSON(items: items, locations: locations, adding: extra, to: sink)
    }

    /// The statistics of `views` as ``writeJSON(adding:to:)`` writes
    /// `StatsView(views)`'s — the same bytes — with each item and place row
    /// made only as it is written: beside the views, only the rows' order (a
    /// name and an id a row) is held, never every row at once.
    package static func writeJSON(of views: some TotalsFold, adding extra: [(String, JSONValue)] = [], to sink: ([UInt8]) -> Void) {
        let order = rowOrder(views)
        let totals = views.totals
        StatsView(views, rows: false).writeJSON(items: order.items.lazy.compactMap { itemRow($0, in: totals, views) },
                                               locations: order.places.lazy.compactMap { locationRow($0, in: totals, views) },
                                               adding: extra, to: sink)
    }

    /// The items and places that have a row, each in the order of the rows:
    /// by name (case aside), then id. Only names and ids are held meanwhile.
    private static func rowOrder(_ views: some TotalsFold) -> (items: [ItemID], places: [LocationID]) {
        var items: [(name: String, id: ItemID)] = []
        items.reserveCapacity(views.totals.items.count)   // one for every item ever bought: never grown by copying
        for (item, value) in views.totals.items where value.first != nil && value.last != nil {
            items.append((views.name(of: item), item))
        }
        let places = views.totals.locations.keys.map { (name: views.name(of: $0), id: $0) }
        return (sortedByName(items) { $0 }.map(\.id), sortedByName(places) { $0 }.map(\.id))
    }

    /// Writes this view, whose ``items`` and ``locations`` are empty, with
    /// `items` and `locations` as their rows: its text, the rows put in where
    /// the two empty arrays stand, in pieces of about 64 KiB. Each row is
    /// written straight into the text as ``json(_:)-(ItemRow)`` of it would be
    /// (a test compares the two), with no ``JSONValue`` made for it.
    private func writeJSON(items: some Sequence<ItemRow>, locations: some Sequence<LocationRow>,
                           adding extra: [(String, JSONValue)], to sink: ([UInt8]) -> Void) {
        guard case let .object(pairs) = json else { return }
        let frame = JSONValue.object(pairs + extra).utf8(pretty: true, terminator: 0x0A)
        var w = JSONWriter(capacity: 1 << 17)
        var from = frame.startIndex
        // Each key's first empty array after the one before is its own: any earlier text is the
        // frame's own keys and values (a string's quotes inside a value are escaped).
        func putIn<Row>(_ key: String, _ rows: some Sequence<Row>, _ write: (Row, inout JSONWriter) -> Void) {
            let empty = Array("\"\(key)\": []".utf8)
            guard let at = frame[from...].firstRange(of: empty) else { return }
            w.append(contentsOf: Array(frame[from..<at.lowerBound]))
            w.append(contentsOf: Array("\"\(key)\": [".utf8))
            var any = false
            for row in rows {
                if any { w.append(UInt8(ascii: ",")) }
                w.append(0x0A)
                w.spaces(4)
                any = true
                write(row, &w)
                if w.count >= 1 << 16 {
                    sink(w.bytes)
                    w.removeAll()
                }
            }
            w.append(contentsOf: Array((any ? "\n  ]" : "]").utf8))
            from = at.upperBound
        }
        putIn("items", items, Self.write)
        putIn("locations", locations, Self.write)
        w.append(contentsOf: Array(frame[from...]))
        sink(w.takeBytes())
    }

    /// ``json(_:)-(ItemRow)`` of the row, as an element of an array two deep, written into `w`.
    static func write(_ row: ItemRow, to w: inout JSONWriter) {
        w.append(UInt8(ascii: "{"))
        w.prettyKey("item", level: 2, first: true); w.id(row.item)
        w.prettyKey("name", level: 2); w.string(row.name)
        w.prettyKey("purchases", level: 2); w.int(row.tally.purchases)
        w.prettyKey("quantity", level: 2); w.quantity(row.tally.quantity)
        w.prettyKey("spend", level: 2); w.int(row.tally.spend)
        w.prettyKey("first", level: 2); w.timestamp(row.first)
        w.prettyKey("last", level: 2); w.timestamp(row.last)
        w.prettyKey("meanIntervalDays", level: 2)
        if let days = row.meanIntervalDays, days.isFinite { w.double(days) } else { w.null() }
        w.append(0x0A); w.spaces(4); w.append(UInt8(ascii: "}"))
    }

    /// ``json(_:)-(LocationRow)`` of the row, as an element of an array two deep, written into `w`.
    static func write(_ row: LocationRow, to w: inout JSONWriter) {
        w.append(UInt8(ascii: "{"))
        w.prettyKey("location", level: 2, first: true); w.id(row.location)
        w.prettyKey("name", level: 2); w.string(row.name)
        w.prettyKey("purchases", level: 2); w.int(row.tally.purchases)
        w.prettyKey("spend", level: 2); w.int(row.tally.spend)
        w.append(0x0A); w.spaces(4); w.append(UInt8(ascii: "}"))
    }
}
