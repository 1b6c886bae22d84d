import ShopEvents

/// The audit as a query that streams the journal: every purchase that
/// matches a filter, in journal order, with the names things had at the time,
/// handed over one at a time — nothing of the history is held in memory
/// beyond the household's state.
///
/// The views give where the history ends and which purchases were reverted
/// (the package's own `audit` folds the whole state, no audit projection:
/// `StateViews`); the query then reads the journal once more up to that
/// event, folding only the household's state for the names. It gives
/// exactly the rows of ``AuditView`` over ``HouseholdViews``. A fold of the
/// household's present keeps no purchase ledger: the query then first reads
/// the journal (and `pending`) for the reverts, keeping only those.
///
/// ```swift
/// let (views, _) = try ViewEngine.views(journal: "shop.ndjson")
/// let query = AuditQuery(journal: "shop.ndjson", views: views, filter: AuditView.Filter(actor: "ben"))
/// try query.forEach { row in print(row.seq, row.itemName, row.quantity, row.isReverted) }
/// ```
public struct AuditQuery: Sendable {
    public var journalPath: String
    public var filter: AuditView.Filter
    /// The last event of the journal that counts (the views' `asOf` unless `pending` says otherwise).
    public var through: Int
    /// Events after the journal's, shown as if accepted (a sync replica's outbox).
    public var pending: [RecordedEvent]
    /// Checks every line's `prev` while reading, as the views did.
    public var verifyChain: Bool
    /// The purchases reverted by the end of the views: the few a revert
    /// touched; nil for views that keep no purchase table (read from the journal).
    private var reverted: Set<PurchaseID>?

    /// A query of the purchases of `views`, which were folded from the journal
    /// up to event `through` (their `asOf` when nil) and then `pending`.
    public init(journal: String, views: some StateFold, through: Int? = nil, pending: [RecordedEvent] = [],
                filter: AuditView.Filter = AuditView.Filter(), verifyChain: Bool = true) {
        journalPath = journal
        self.filter = filter
        self.through = through ?? views.asOf
        self.pending = pending
        self.verifyChain = verifyChain
        // A fold of the present keeps no purchase ledger: the reverts are then read from the journal.
        reverted = (views as? any WholeStateFold).map { Set($0.state.purchases.values.lazy.filter(\.isReverted).map(\.id)) }
    }

    /// Gives every matching purchase to `body`, in journal order. Throws what
    /// reading the journal throws, and `corrupt_line` if the journal no longer
    /// reaches event ``through``.
    public func forEach(_ body: (PurchaseRecord) -> Void) throws(JournalError) {
        // A purchase is reverted if the table says so, or (no table) if a revert of it follows it.
        let isReverted: (PurchaseRecord) -> Bool
        if let reverted {
            isReverted = { reverted.contains($0.purchase) }
        } else {
            let lastRevert = try lastReverts()
            isReverted = { (lastRevert[$0.purchase] ?? 0) > $0.seq }
        }
        var state = ShopState.compact
        func fold(_ recorded: RecordedEvent) {
            if let record = PurchaseRecord(recorded, before: state), filter.matches(record) {
                var row = record
                row.isReverted = isReverted(record)
                body(row)
            }
            state.apply(recorded)
        }
        try readThrough(fold)
        for recorded in pending { fold(recorded) }
    }

    /// The `seq` of the last revert of each purchase reverted, in the journal
    /// up to ``through`` and in ``pending``.
    private func lastReverts() throws(JournalError) -> [PurchaseID: Int] {
        var last: [PurchaseID: Int] = [:]
        func note(_ recorded: RecordedEvent) {
            if case let .purchaseReverted(purchase) = recorded.event { last[purchase] = recorded.seq }
        }
        try readThrough(note)
        for recorded in pending { note(recorded) }
        return last
    }

    /// Gives `fold` every event of the journal up to ``through``, in order.
    private func readThrough(_ fold: (RecordedEvent) -> Void) throws(JournalError) {
        var last = 0
        if through > 0 {
            let reader = try JournalReader(path: journalPath, verifyChain: verifyChain)
            if reader.bytesLeft >= Replayer<HouseholdViews>.prefetchAbove {
                // Everything to the end on two threads; events written since the views were folded are passed over.
                _ = try reader.readToEnd(prefetching: true) { recorded in
                    guard recorded.seq <= through else { return }
                    fold(recorded)
                    last = recorded.seq
                }
            } else {
                while let recorded = try reader.next() {
                    fold(recorded)
                    last = recorded.seq
                    if last == through { break }
                }
            }
        }
        guard last == through else {
            throw JournalError(.corruptLine, "\(journalPath) ends at event \(last), before event \(through) that the views were folded to: it was changed while the audit read it")
        }
    }

    /// Every matching purchase, collected: the rows of ``AuditView``.
    public func view() throws(JournalError) -> AuditView {
        var rows: [PurchaseRecord] = []
        try forEach { rows.append($0) }
        return AuditView(asOf: pending.last?.seq ?? through, purchases: rows)
    }
}

extension PurchaseRecord {
    /// The audit's row for a purchase event, with the names of `state`, the
    /// household just before it; nil for any other event.
    init?(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        guard case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store) = recorded.event else { return nil }
        self.init(purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice, location: location,
                  time: purchasedAt ?? recorded.at, store: store, of: recorded, before: state)
    }

    /// The record of a purchase event already taken apart: its fields, `time` its `purchasedAt` or `at`.
    init(_ purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Quantity, unitPrice: Int?, location: LocationID, time: Timestamp,
         store: StoreID?, of recorded: RecordedEvent, before state: borrowing ShopState) {
        // The names looked up without closures: a closure that read `state` copied all of it, once a purchase.
        var listName: String?, storeName: String?
        if let list { listName = state.lists[list]?.name }
        if let store { storeName = state.stores[store]?.name }
        self.init(seq: recorded.seq, event: recorded.id, purchase: purchase, purchasedAt: time,
                  actor: recorded.actor, item: item, itemName: state.items[item]?.name ?? "", quantity: quantity,
                  unitPrice: unitPrice, list: list, listName: listName,
                  location: location, locationName: state.locations[location]?.name ?? "", isReverted: false,
                  store: store, storeName: storeName)
    }
}
