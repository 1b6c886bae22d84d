import ShopEvents

/// What to offer while someone types an item into a list (docs/VIEWS.md, "Suggestions"):
/// live items whose name starts with the text typed, or has a word that
/// does, ignoring case and diacritics (`creme` and `fr` both find
/// `Crème fraîche`), that are not on the list already unbought — due items first, most overdue first
/// (the due view's notion, ``DueView``: a staple off every live list whose
/// days since are at least its mean), then by purchases in the 90 days
/// before `now`, then by name as every view sorts; at most `limit` of them.
///
/// A *word* is a run of letters and digits of any script; spaces,
/// punctuation and symbols only separate words, a run of them counting as
/// one, in the name and in the text alike (`creme-fr` finds
/// `Crème fraîche`; `eme` finds nothing inside a word). Diacritics are the
/// marks a canonical decomposition splits off, so precomposed and decomposed
/// input (`Cre\u{0300}me`) match alike; letters that do not decompose
/// (`ø`, `ß`) stay as they are. Text ending with a separator (`creme `)
/// asks for that whole word. An empty text (or one without a letter or
/// digit) offers every live item.
/// Entries on other lists, and bought entries of the list, do not keep an
/// item out. `now` is the due view's: the clock, or with an earlier point
/// the time of its last event; a purchase counts from `now` − 90 days to
/// `now`, both included. One question costs a look in the index for the
/// text and a few lookups per item found; ``SuggestionIndex`` keeps the rest.
///
/// ```swift
/// let index = SuggestionIndex(views)
/// if let offered = SuggestionsView(views, index: index, list: weekly, prefix: "fr", limit: 5, now: Clock.system.now()) {
///     for row in offered.items { print(row.name, row.due, row.recentPurchases) }
/// }
/// ```
public struct SuggestionsView: Hashable, Sendable {
    /// One item offered.
    public struct Row: Hashable, Sendable {
        public var item: ItemID
        public var name: String
        public var unit: String?
        public var unitPrice: Int?
        /// Whether the due view lists it at `now`.
        public var due: Bool
        /// Its purchases (not reverted) in the 90 days before `now`.
        public var recentPurchases: Int

        /// Memberwise, for preview data and tests.
        public init(item: ItemID, name: String, unit: String?, unitPrice: Int?, due: Bool, recentPurchases: Int) {
            self.item = item; self.name = name; self.unit = unit; self.unitPrice = unitPrice
            self.due = due; self.recentPurchases = recentPurchases
        }
    }

    /// How many are offered unless the caller says.
    public static let defaultLimit = 10
    /// The window ``Row/recentPurchases`` counts.
    public static let recentDays = 90

    public var asOf: Int
    /// The time due and recent purchases were counted to.
    public var now: Timestamp
    public var items: [Row]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, now: Timestamp, items: [Row]) {
        self.asOf = asOf; self.now = now; self.items = items
    }

    /// From views and their index (as of the same event); `list` (its id,
    /// deleted or not) names the list whose unbought entries are left out,
    /// `nil` for none; `limit` below 1 offers nothing. Nil when `list` is
    /// not a list of the household.
    public init?(_ views: some TotalsFold, index: SuggestionIndex, list: ListID? = nil, prefix: String = "",
                 limit: Int = SuggestionsView.defaultLimit, now: Timestamp) {
        precondition(index.asOf == views.asOf, "SuggestionsView: the index is as of seq \(index.asOf), the views as of \(views.asOf)")
        var onList: Set<ItemID> = []
        if let list {
            guard let shown = views.state.lists[list] else { return nil }
            for entry in shown.entries where !entry.isBought { onList.insert(entry.item) }
        }
        asOf = views.asOf
        self.now = now
        let nowMilliseconds = now.millisecondsSince1970
        let windowStart = nowMilliseconds - Int64(Self.recentDays) * 86_400_000
        // What is on a live list unbought (a staple there is not due): walked only once a candidate is due.
        var onLiveLists: [ItemID: [ListID]]?
        var best = Best(limit: limit)
        index.matches(SuggestionText.foldedPrefix(prefix)) { item, entry in
            guard !onList.contains(item) else { return }
            var overdue: Double?
            // The index holds as many purchases as the totals count: fewer than a staple's, and the totals need no look.
            if entry.purchases.count >= DueView.purchasesForAStaple, let bought = views.totals.items[item],
               let (_, mean, since) = DueView.dueness(of: bought, now: now) {
                let onLists = onLiveLists ?? views.unboughtOnLiveLists
                onLiveLists = onLists
                if onLists[item] == nil {
                    overdue = mean > 0 ? since / mean : .infinity   // a mean of 0 is always due, and first, as in the due view
                }
            }
            best.offer(Candidate(item: item, name: entry.name, sortName: entry.sortName, overdue: overdue,
                                 recent: SuggestionIndex.purchases(of: entry, from: windowStart, through: nowMilliseconds)))
        }
        items = best.sorted.map { candidate in
            let details = views.state.items[candidate.item]?.details
            return Row(item: candidate.item, name: candidate.name, unit: details?.unit, unitPrice: details?.unitPrice,
                       due: candidate.overdue != nil, recentPurchases: candidate.recent)
        }
    }

    /// Builds the index for this one question: for a one-off read. An app
    /// that asks on every keystroke keeps a ``SuggestionIndex`` (or a
    /// ``HouseholdModel``) instead.
    public init?(_ views: some StatisticsFold, list: ListID? = nil, prefix: String = "", limit: Int = SuggestionsView.defaultLimit,
                 now: Timestamp) {
        self.init(views, index: SuggestionIndex(views), list: list, prefix: prefix, limit: limit, now: now)
    }

    public var json: JSONValue {
        .object([
            ("view", "suggestions"), ("asOf", .int(asOf)), ("now", .string(now.description)),
            ("items", .array(items.map { row in
                .object([("item", .string(row.item.description)), ("name", .string(row.name)), ("unit", .optional(row.unit)),
                         ("unitPrice", .optional(row.unitPrice)), ("due", .bool(row.due)),
                         ("recentPurchases", .int(row.recentPurchases))])
            })),
        ])
    }

    /// An item found, with what it is ranked by.
    struct Candidate {
        var item: ItemID
        var name: String
        var sortName: String
        /// How overdue, if due (infinity for a mean interval of 0); nil when not due.
        var overdue: Double?
        var recent: Int

        /// Due first, most overdue first; then more recent purchases; then by name, ties by id.
        func precedes(_ other: Candidate) -> Bool {
            switch (overdue, other.overdue) {
            case let (mine?, theirs?) where mine != theirs: return mine > theirs
            case (_?, nil): return true
            case (nil, _?): return false
            default: break
            }
            if recent != other.recent { return recent > other.recent }
            return sortName != other.sortName ? sortName < other.sortName : item < other.item
        }
    }

    /// The first `limit` candidates in order, kept as they are offered: a
    /// candidate that does not beat the last kept costs one comparison.
    struct Best {
        let limit: Int
        private(set) var sorted: [Candidate] = []

        init(limit: Int) { self.limit = max(limit, 0) }

        mutating func offer(_ candidate: Candidate) {
            if sorted.count == limit {
                guard let last = sorted.last, candidate.precedes(last) else { return }
                sorted.removeLast()
            }
            var low = 0, high = sorted.count
            while low < high {
                let middle = (low + high) / 2
                if candidate.precedes(sorted[middle]) { high = middle } else { low = middle + 1 }
            }
            sorted.insert(candidate, at: low)
        }
    }
}
