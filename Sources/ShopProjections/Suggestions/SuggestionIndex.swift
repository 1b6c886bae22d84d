import ShopEvents

/// What the suggestions (``SuggestionsView``) look up on every keystroke,
/// kept ready: each live item's name folded for matching (lowered, without
/// diacritics, as words) with the start of every word in one sorted table,
/// and the times of its purchases that count (not reverted), sorted, so
/// that the purchases of the last 90 days are counted by halving.
///
/// Built from views once (`init(_:)`, a walk over the items and the
/// state's purchases, ``ShopState/purchases``), then kept up to date event by event
/// (``update(after:in:)``): creating, renaming or deleting an item moves its
/// few words in the table, a purchase or revert moves one time. Nothing is
/// folded or sorted when a question is asked. Equal, after every event, to
/// the index built afresh from the same views (a property test holds it to
/// that). Built from views whose state keeps every purchase (a
/// ``WholeStateFold``: ``HouseholdViews`` is one).
///
/// ```swift
/// var views = HouseholdViews()
/// var index = SuggestionIndex(views)
/// for recorded in events {
///     views.apply(recorded)
///     index.update(after: recorded, in: views)
/// }
/// let offered = SuggestionsView(views, index: index, prefix: "mil", now: Clock.system.now())
/// print(offered?.items.map(\.name) ?? [])
/// ```
public struct SuggestionIndex: Hashable, Sendable {
    /// One live item.
    struct Entry: Hashable, Sendable {
        var name: String
        /// Lowered as every view sorts names.
        var sortName: String
        /// ``SuggestionText/foldedName(_:)``.
        var folded: [UInt8]
        /// Its purchases that count, by time (then id).
        var purchases: [Stamp] = []

        init(name: String) {
            self.name = name
            sortName = name.lowercased()
            folded = SuggestionText.foldedName(name)
        }
    }

    /// When a purchase was bought (`purchasedAt`, or its event's `at`), in milliseconds.
    struct Stamp: Hashable, Sendable, Comparable {
        var milliseconds: Int64
        var purchase: PurchaseID

        static func < (a: Stamp, b: Stamp) -> Bool {
            a.milliseconds != b.milliseconds ? a.milliseconds < b.milliseconds : a.purchase < b.purchase
        }
    }

    /// The folded name from one word's start to its end, and whose it is.
    struct WordStart: Hashable, Sendable, Comparable {
        var key: [UInt8]
        var item: ItemID

        static func < (a: WordStart, b: WordStart) -> Bool {
            a.key != b.key ? a.key.lexicographicallyPrecedes(b.key) : a.item < b.item
        }
    }

    /// The `seq` of the last event folded in; the views it is asked with must be as of the same.
    public private(set) var asOf = 0
    private(set) var entries: [ItemID: Entry] = [:]
    /// Every word start of every live item, sorted.
    private(set) var words: [WordStart] = []

    /// The index of `views`: their live items and the purchases their state holds.
    public init(_ views: some WholeStateFold) {
        asOf = views.asOf
        for item in views.state.items.values where !item.isDeleted { entries[item.id] = Entry(name: item.name) }
        for bought in views.state.purchases.values where !bought.isReverted {
            entries[bought.item]?.purchases.append(Stamp(milliseconds: bought.effectiveTime.millisecondsSince1970, purchase: bought.id))
        }
        for position in entries.indices { entries.values[position].purchases.sort() }
        words = entries.flatMap { item, entry in Self.wordStarts(of: entry, item) }.sorted()
    }

    /// Brings the index up to date with `recorded`, which `views` has just folded in.
    public mutating func update(after recorded: RecordedEvent, in views: some WholeStateFold) {
        asOf = views.asOf
        switch recorded.event {
        case let .itemCreated(item, name, _, _):
            remove(item)
            insert(item, Entry(name: name))
        case let .itemRenamed(item, name):
            guard var entry = remove(item) else { return }
            let purchases = entry.purchases
            entry = Entry(name: name)
            entry.purchases = purchases
            insert(item, entry)
        case let .itemDeleted(item):
            remove(item)
        case let .itemPurchased(purchase, _, _, _, _, _, _, _):
            // As the state keeps it: the first purchase of an id (a legal journal has no other), which the
            // ledger has just appended last.
            let ledger = views.state.purchases
            guard let bought = ledger[purchase], ledger.position(of: purchase) == ledger.count - 1, !bought.isReverted,
                  entries[bought.item] != nil else { return }
            let stamp = Stamp(milliseconds: bought.effectiveTime.millisecondsSince1970, purchase: purchase)
            // In place: a copy of the item's times held here would make the insert copy them all.
            entries[bought.item]?.purchases.insert(stamp: stamp)
        case let .purchaseReverted(purchase):
            guard let item = views.state.purchases[purchase]?.item,
                  let at = entries[item]?.purchases.firstIndex(where: { $0.purchase == purchase }) else { return }
            entries[item]?.purchases.remove(at: at)
        default:
            break   // the names and purchases are all the index keeps
        }
    }

    /// The live items whose folded name starts with `prefix`, or has a word
    /// that does (``SuggestionText``), each once, in no order; every live item
    /// for an empty prefix.
    func matches(_ prefix: [UInt8], _ body: (ItemID, Entry) -> Void) {
        guard !prefix.isEmpty else {
            for (item, entry) in entries { body(item, entry) }
            return
        }
        var seen: Set<ItemID> = []
        var at = words.partitioningIndex { !$0.key.lexicographicallyPrecedes(prefix) }
        while at < words.count, words[at].key.starts(with: prefix) {
            let item = words[at].item
            if seen.insert(item).inserted, let entry = entries[item] { body(item, entry) }
            at += 1
        }
    }

    /// How many of an item's purchases fall from `start` to `end` (milliseconds, both included).
    static func purchases(of entry: Entry, from start: Int64, through end: Int64) -> Int {
        let first = entry.purchases.partitioningIndex { $0.milliseconds >= start }
        let past = entry.purchases.partitioningIndex { $0.milliseconds > end }
        return max(past - first, 0)
    }

    private static func wordStarts(of entry: Entry, _ item: ItemID) -> [WordStart] {
        SuggestionText.wordStarts(entry.folded).map { WordStart(key: Array(entry.folded[$0...]), item: item) }
    }

    private mutating func insert(_ item: ItemID, _ entry: Entry) {
        entries[item] = entry
        for word in Self.wordStarts(of: entry, item) { words.insert(word, at: words.partitioningIndex { word < $0 }) }
    }

    @discardableResult
    private mutating func remove(_ item: ItemID) -> Entry? {
        guard let entry = entries.removeValue(forKey: item) else { return nil }
        for word in Self.wordStarts(of: entry, item) {
            let at = words.partitioningIndex { !($0 < word) }
            if at < words.count, words[at] == word { words.remove(at: at) }
        }
        return entry
    }
}

fileprivate extension Array where Element == SuggestionIndex.Stamp {
    /// Puts `stamp` in its place among times kept sorted.
    mutating func insert(stamp: Element) {
        insert(stamp, at: partitioningIndex { stamp < $0 })
    }
}

fileprivate extension Array {
    /// The first index whose element `belongs` to the upper part of an array
    /// split in two (every element before it does not, every one from it on
    /// does), found by halving; `count` when none does.
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0, high = count
        while low < high {
            let middle = (low + high) / 2
            if belongs(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
