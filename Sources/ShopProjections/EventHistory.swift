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
        var state = ShopState.compact
        while let recorded = try reader.next() {
            if touches(recorded, subject, before: state) { try body(recorded, state) }
            state.apply(recorded)
        }
    }

    /// Whether `recorded` touched `subject`, judged against the household just before it
    /// (a revert touches its purchase's item, list and place; a relocation both places).
    public static func touches(_ recorded: RecordedEvent, _ subject: Subject, before state: ShopState) -> Bool {
        switch subject {
        case let .item(item): return touches(recorded.event, item: item, state)
        case let .list(list): return touches(recorded.event, list: list, state)
        case let .location(location): return touches(recorded.event, location: location, state)
        case let .member(name): return recorded.actor == name || isAbout(recorded.event, member: name)
        }
    }

    /// Whether the event adds, changes or removes the member `name`.
    public static func isAbout(_ event: Event, member name: String) -> Bool {
        switch event {
        case let .memberAdded(member, _), let .memberRoleChanged(member, _), let .memberRemoved(member): return member == name
        case let .listEntryAssigned(_, _, member): return member == name
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .itemCreated, .itemRenamed, .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted,
             .listCreated, .listRenamed, .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList,
             .listEntryQuantityChanged, .itemRemovedFromList, .listReordered, .itemPurchased, .purchaseReverted,
             .boughtEntriesCleared, .tripStarted, .tripPaused, .tripResumed, .tripEnded, .storeCreated, .storeRenamed, .storeDeleted:
            return false
        }
    }

    static func touches(_ event: Event, item: ItemID, _ state: ShopState) -> Bool {
        switch event {
        case let .itemCreated(id, _, _, _), let .itemRenamed(id, _), let .itemDetailsChanged(id, _), let .itemRelocated(id, _),
             let .itemAvailabilityChanged(id, _), let .itemDeleted(id), let .itemAddedToList(_, id, _),
             let .listEntryQuantityChanged(_, id, _), let .itemRemovedFromList(_, id), let .itemPurchased(_, id, _, _, _, _, _, _),
             let .listEntryAssigned(_, id, _):
            return id == item
        case let .listReordered(_, order): return order.contains(item)
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.item == item
        case let .boughtEntriesCleared(list): return state.lists[list]?.entry(for: item)?.isBought == true
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .listCreated, .listRenamed, .listPriorityChanged, .listDeleted, .listRestored, .listPurged,
             .tripStarted, .tripPaused, .tripResumed, .tripEnded, .memberAdded, .memberRoleChanged, .memberRemoved,
             .storeCreated, .storeRenamed, .storeDeleted:
            return false
        }
    }

    static func touches(_ event: Event, list: ListID, _ state: ShopState) -> Bool {
        switch event {
        case let .listCreated(id, _, _), let .listRenamed(id, _), let .listPriorityChanged(id, _), let .listDeleted(id),
             let .listRestored(id), let .listPurged(id), let .itemAddedToList(id, _, _), let .listEntryQuantityChanged(id, _, _),
             let .itemRemovedFromList(id, _), let .listReordered(id, _), let .boughtEntriesCleared(id), let .listEntryAssigned(id, _, _):
            return id == list
        case let .itemPurchased(_, _, id, _, _, _, _, _), let .tripStarted(_, id, _): return id == list
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.list == list
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): return state.trips[trip]?.list == list
        case .householdCreated, .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .itemCreated, .itemRenamed, .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted,
             .memberAdded, .memberRoleChanged, .memberRemoved, .storeCreated, .storeRenamed, .storeDeleted:
            return false
        }
    }

    static func touches(_ event: Event, location: LocationID, _ state: ShopState) -> Bool {
        switch event {
        case let .locationCreated(id, _, _, _), let .locationRenamed(id, _), let .locationRecolored(id, _), let .locationDeleted(id),
             let .itemCreated(_, _, id, _), let .itemPurchased(_, _, _, _, _, id, _, _):
            return id == location
        case .householdCreated:
            return location == .unknown
        case let .locationsReordered(order, _, _): return order.contains(location)
        case let .itemRelocated(item, to): return to == location || state.items[item]?.location == location
        case let .purchaseReverted(purchase): return state.purchases[purchase]?.location == location
        case .itemRenamed, .itemDetailsChanged, .itemAvailabilityChanged, .itemDeleted, .listCreated, .listRenamed,
             .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList, .listEntryQuantityChanged,
             .itemRemovedFromList, .listReordered, .boughtEntriesCleared, .tripStarted, .tripPaused, .tripResumed, .tripEnded,
             .memberAdded, .memberRoleChanged, .memberRemoved, .listEntryAssigned, .storeCreated, .storeRenamed, .storeDeleted:
            return false
        }
    }
}
