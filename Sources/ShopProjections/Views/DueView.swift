import ShopEvents

/// Staples that are due (docs/VIEWS.md): live items bought at least three
/// times (reverted purchases not counted) that are not on a live list
/// unbought, and whose days since the last purchase are at least their mean
/// days between purchases — most overdue first, ties by name.
///
/// Days are counted to `now`, which the caller passes in:
/// the clock's time for the household as it is, or the time of the
/// last event the views hold (``HouseholdViews/asOfTime``) for the household
/// as of an earlier point. Eggs bought weekly and last in January are
/// overdue in November, whether or not anything was written since. The
/// mean interval is the statistics' (last − first) ÷ (purchases − 1), in
/// days; overdue is days since ÷ mean interval. Three purchases at one
/// moment have a mean of 0: always due, and first, with no `overdue` (null
/// in JSON).
///
/// It needs no event of its own: it reads every journal, version 1 included.
///
/// ```swift
/// let due = DueView(views, now: Clock.system.now())
/// for row in due.items { print(row.name, row.daysSince, row.overdue ?? .infinity) }
/// ```
public struct DueView: Hashable, Sendable {
    /// One item that is due.
    public struct Row: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var lastPurchased: Timestamp
        public var meanIntervalDays: Double
        public var daysSince: Double
        /// `daysSince / meanIntervalDays`; `nil` when the mean is 0.
        public var overdue: Double?

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, lastPurchased: Timestamp, meanIntervalDays: Double, daysSince: Double, overdue: Double?) {
            self.item = item; self.name = name; self.lastPurchased = lastPurchased
            self.meanIntervalDays = meanIntervalDays; self.daysSince = daysSince; self.overdue = overdue
        }
    }

    /// How many (non-reverted) purchases make an item a staple.
    public static let purchasesForAStaple = 3

    public var asOf: Int
    /// The time days were counted to.
    public var now: Timestamp
    public var items: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, now: Timestamp, items: [Row]) {
        self.asOf = asOf; self.now = now; self.items = items
    }

    /// From views with the totals (``HouseholdViews`` has them), with days counted to `now`.
    public init(_ views: some TotalsFold, now: Timestamp) {
        asOf = views.asOf
        self.now = now
        guard views.asOfTime != nil else {
            items = []
            return
        }
        let onAList = views.unboughtOnLiveLists
        var due: [Row] = []
        for item in views.state.items.values where !item.isDeleted && onAList[item.id] == nil {
            guard let bought = views.totals.items[item.id], let (last, mean, since) = Self.dueness(of: bought, now: now) else { continue }
            due.append(Row(item: item.id, name: item.name, lastPurchased: last, meanIntervalDays: mean, daysSince: since,
                           overdue: mean > 0 ? since / mean : nil))
        }
        // Most overdue first (a mean of 0 before all), then by name as every view sorts.
        items = sortedByName(due) { ($0.name, $0.item) }.enumerated().sorted { a, b in
            let (x, y) = (a.element.overdue ?? .infinity, b.element.overdue ?? .infinity)
            return x != y ? x > y : a.offset < b.offset
        }.map(\.element)
    }

    /// Whether an item whose purchases `bought` totals is due at `now`,
    /// leaving aside the lists (the caller checks it is on none unbought): a
    /// staple whose days since its last purchase are at least its mean
    /// interval. Its last purchase, mean interval and days since; nil when
    /// it is not due. The one test of "due" this view and the suggestions
    /// (``SuggestionsView``) share.
    static func dueness(of bought: PurchaseTotals.ItemTally, now: Timestamp) -> (last: Timestamp, mean: Double, since: Double)? {
        guard bought.tally.purchases >= Self.purchasesForAStaple, let last = bought.last, let mean = bought.meanIntervalDays else { return nil }
        let since = Double(now.millisecondsSince1970 - last.millisecondsSince1970) / 86_400_000
        return since >= mean ? (last, mean, since) : nil
    }

    public var json: JSONValue {
        .object([
            ("view", "due"), ("asOf", .int(asOf)), ("now", .string(now.description)),
            ("items", .array(items.map { row in
                .object([("item", .string(row.item.description)), ("name", .string(row.name)),
                         ("lastPurchased", .string(row.lastPurchased.description)),
                         ("meanIntervalDays", .double(row.meanIntervalDays)), ("daysSince", .double(row.daysSince)),
                         ("overdue", row.overdue.map(JSONValue.double) ?? .null)])
            })),
        ])
    }
}
