import ShopEvents

/// Every event that touched one thing — an item, a list, a location, a
/// member — as `shop-replay history` shows it: what an app's "history of
/// Milk" screen needs.
///
/// ```swift
/// try EventHistory.forEach(journal: "shop.ndjson", touching: .item(milk)) { recorded, before in
///     print(recorded.seq, recorded.event.typeName)
/// }
/// ```
public enum EventHistory {
    /// What a history is of.
    public enum Subject: Hashable, Sendable {
        case item(ItemID), list(ListID), location(LocationID)
        /// A store: the events that name it, its trips' events, and the reverts of purchases there.
        case store(StoreID)
        /// An actor: the events it issued, and those that add, change or remove it as a member.
        case member(String)
    }

    /// Calls `body` with each event of the journal at `path` that touched
    /// `subject`, in journal order, and the household just before it.
    public static func forEach(journal path: String, touching subject: Subject,
                               _ body: (RecordedEvent, ShopState) throws -> Void) throws {
        let reader = try JournalReader(path: path)
        var state = ShopState.initial
        var rows = PurchaseRows()
        var scan = Scan(subject)
        while let recorded = try reader.next() {
            if scan.touches(recorded, before: state, rows: rows) { try body(recorded, state) }
            rows.apply(recorded, before: state)
            state.apply(recorded)
        }
    }

    /// A history read event by event: ``touches(_:_:before:rows:)``, and for a store
    /// what the state does not keep: which purchases were at it (a revert touches its purchase's store).
    ///
    /// ```swift
    /// var rows = PurchaseRows()
    /// var scan = EventHistory.Scan(.store(corner))
    /// for recorded in events {
    ///     if scan.touches(recorded, before: state, rows: rows) { print(recorded.seq) }
    ///     rows.apply(recorded, before: state)
    ///     state.apply(recorded)
    /// }
    /// ```
    public struct Scan: Sendable {
        public let subject: Subject
        private var purchasesAtStore: Set<PurchaseID> = []

        public init(_ subject: Subject) { self.subject = subject }

        /// Whether `recorded` touched the subject, judged against the household just before it.
        public mutating func touches(_ recorded: RecordedEvent, before state: ShopState, rows: PurchaseRows) -> Bool {
            guard case let .store(store) = subject else { return EventHistory.touches(recorded, subject, before: state, rows: rows) }
            switch recorded.event {
            case let .itemPurchased(purchase, _, _, _, _, _, _, at) where at == store:
                purchasesAtStore.insert(purchase)
                return true
            case let .purchaseReverted(purchase): return purchasesAtStore.contains(purchase)
            default: return EventHistory.touches(recorded, subject, before: state, rows: rows)
            }
        }
    }

    /// Whether `recorded` touched `subject`, judged against the household just before it
    /// and the rows of its purchases folded beside it (a revert touches its
    /// purchase's item, list and place; a relocation both places).
    public static func touches(_ recorded: RecordedEvent, _ subject: Subject, before state: ShopState, rows: PurchaseRows) -> Bool {
        switch subject {
        case let .item(item): return touches(recorded.event, item: item, state)
        case let .list(list): return touches(recorded.event, list: list, state)
        case let .location(location): return touches(recorded.event, location: location, state, rows)
        case let .store(store): return touches(recorded.event, store: store, state)
        case let .member(name): return recorded.actor == name || isAbout(recorded.event, member: name)
        }
    }

    /// Whether the event adds, changes or removes the member `name`, or
    /// assigns it an entry: whether its data names `name` as its `member`.
    public static func isAbout(_ event: Event, member name: String) -> Bool {
        event.text(forKey: "member") == name
    }

    // Each subject below: the events whose own field names it (`item`, `list`,
    // `location`: the declarations say which have one), and the few that name
    // it through another thing, judged against the state before them.

    static func touches(_ event: Event, item: ItemID, _ state: ShopState) -> Bool {
        switch event {
        case let .listReordered(_, order): return order.contains(item)
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.item == item
        case let .boughtEntriesCleared(list): return state.lists[list]?.entry(for: item)?.isBought == true
        default: return event.id(forKey: "item") == item.uuid
        }
    }

    static func touches(_ event: Event, list: ListID, _ state: ShopState) -> Bool {
        switch event {
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.list == list
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): return state.trips[trip]?.list == list
        default: return event.id(forKey: "list") == list.uuid
        }
    }

    static func touches(_ event: Event, location: LocationID, _ state: ShopState, _ rows: PurchaseRows) -> Bool {
        switch event {
        case .householdCreated: return location == .unknown
        case let .locationsReordered(order, _, _): return order.contains(location)
        case let .storeLocationsReordered(_, order): return order.contains(location)
        case let .itemRelocated(item, to): return to == location || state.items[item]?.location == location
        case let .purchaseReverted(purchase): return rows.purchase(purchase, in: state.purchases)?.location == location
        default: return event.id(forKey: "location") == location.uuid
        }
    }

    /// A revert's purchase names no store in the state: ``Scan`` finds those.
    static func touches(_ event: Event, store: StoreID, _ state: ShopState) -> Bool {
        switch event {
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): return state.trips[trip]?.store == store
        default: return event.id(forKey: "store") == store.uuid
        }
    }
}
