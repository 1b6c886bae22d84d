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
        while let recorded = try reader.next() {
            if touches(recorded, subject, before: state, rows: rows) { try body(recorded, state) }
            rows.apply(recorded, before: state)
            state.apply(recorded)
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
        case let .itemRelocated(item, to): return to == location || state.items[item]?.location == location
        case let .purchaseReverted(purchase): return rows.purchase(purchase, in: state.purchases)?.location == location
        default: return event.id(forKey: "location") == location.uuid
        }
    }
}
