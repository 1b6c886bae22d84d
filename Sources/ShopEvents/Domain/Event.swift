/// Something that happened in a household: the `data` of one journal line.
///
/// Events are facts. They are made by ``ShopDecider/decide(_:_:)`` from a
/// command and the current state, written once, and folded into state by
/// ``ShopState/evolve(_:_:)`` and into views by projections.
///
/// ```swift
/// let event = Event.itemRenamed(item: milk, name: "Whole milk")
/// print(event.typeName)   // ItemRenamed
/// ```
public enum Event: Hashable, Sendable {
    case householdCreated(household: HouseholdID, name: String, currency: String, timeZone: String)

    case locationCreated(location: LocationID, name: String, position: Int, color: Color)
    case locationRenamed(location: LocationID, name: String)
    case locationRecolored(location: LocationID, color: Color)
    /// Every live location but Unknown, first to visit first, numbered 1…n;
    /// or by `positions`, strictly increasing numbers (the aisle numbers another
    /// app gave them). `unknownAlias`, where given, is the id another app (an
    /// imported archive) gives the Unknown Location; absent, it stays as it was.
    case locationsReordered(order: [LocationID], positions: [Int]? = nil, unknownAlias: LocationID? = nil)
    case locationDeleted(location: LocationID)

    case itemCreated(item: ItemID, name: String, location: LocationID, details: ItemDetails)
    case itemRenamed(item: ItemID, name: String)
    case itemDetailsChanged(item: ItemID, details: ItemDetails)
    case itemRelocated(item: ItemID, location: LocationID)
    case itemAvailabilityChanged(item: ItemID, available: Bool)
    case itemDeleted(item: ItemID)

    case listCreated(list: ListID, name: String, priority: Priority)
    case listRenamed(list: ListID, name: String)
    case listPriorityChanged(list: ListID, priority: Priority)
    case listDeleted(list: ListID)
    case listRestored(list: ListID)
    case listPurged(list: ListID)
    case itemAddedToList(list: ListID, item: ItemID, quantity: Quantity)
    case listEntryQuantityChanged(list: ListID, item: ItemID, quantity: Quantity)
    case itemRemovedFromList(list: ListID, item: ItemID)
    case listReordered(list: ListID, order: [ItemID])
    /// The entry's assignee: a member, or nobody (`member` nil).
    case listEntryAssigned(list: ListID, item: ItemID, member: String?)

    /// `store`: where it was bought, `nil` for no store named.
    case itemPurchased(purchase: PurchaseID, item: ItemID, list: ListID?, quantity: Quantity, unitPrice: Int?,
                       location: LocationID, purchasedAt: Timestamp?, store: StoreID? = nil)
    case purchaseReverted(purchase: PurchaseID)
    case boughtEntriesCleared(list: ListID)

    /// `store`: the store the trip is at; purchases while it runs are at that store.
    case tripStarted(trip: TripID, list: ListID?, store: StoreID? = nil)
    case tripPaused(trip: TripID)
    case tripResumed(trip: TripID)
    case tripEnded(trip: TripID)

    case memberAdded(member: String, role: Role)
    case memberRoleChanged(member: String, role: Role)
    case memberRemoved(member: String)

    /// Stores (docs/COMMANDS.md, "Stores"): where things are bought. Live store names are unique ignoring case.
    case storeCreated(store: StoreID, name: String)
    case storeRenamed(store: StoreID, name: String)
    case storeDeleted(store: StoreID)
    /// The store's own visiting order of some or all live locations, first to
    /// visit first: never Unknown, each once; the ones it
    /// leaves out come after them in the household's order. Replaces the store's last one.
    case storeLocationsReordered(store: StoreID, order: [LocationID])

    /// The journal's `type` key for this event.
    public var typeName: String { kind.rawValue }

    /// The event's type without its data.
    public var kind: EventType {
        switch self {
        case .householdCreated: return .householdCreated
        case .locationCreated: return .locationCreated
        case .locationRenamed: return .locationRenamed
        case .locationRecolored: return .locationRecolored
        case .locationsReordered: return .locationsReordered
        case .locationDeleted: return .locationDeleted
        case .itemCreated: return .itemCreated
        case .itemRenamed: return .itemRenamed
        case .itemDetailsChanged: return .itemDetailsChanged
        case .itemRelocated: return .itemRelocated
        case .itemAvailabilityChanged: return .itemAvailabilityChanged
        case .itemDeleted: return .itemDeleted
        case .listCreated: return .listCreated
        case .listRenamed: return .listRenamed
        case .listPriorityChanged: return .listPriorityChanged
        case .listDeleted: return .listDeleted
        case .listRestored: return .listRestored
        case .listPurged: return .listPurged
        case .itemAddedToList: return .itemAddedToList
        case .listEntryQuantityChanged: return .listEntryQuantityChanged
        case .itemRemovedFromList: return .itemRemovedFromList
        case .listReordered: return .listReordered
        case .listEntryAssigned: return .listEntryAssigned
        case .itemPurchased: return .itemPurchased
        case .purchaseReverted: return .purchaseReverted
        case .boughtEntriesCleared: return .boughtEntriesCleared
        case .tripStarted: return .tripStarted
        case .tripPaused: return .tripPaused
        case .tripResumed: return .tripResumed
        case .tripEnded: return .tripEnded
        case .memberAdded: return .memberAdded
        case .memberRoleChanged: return .memberRoleChanged
        case .memberRemoved: return .memberRemoved
        case .storeCreated: return .storeCreated
        case .storeRenamed: return .storeRenamed
        case .storeDeleted: return .storeDeleted
        case .storeLocationsReordered: return .storeLocationsReordered
        }
    }
}

/// The `type` of a journal line; the raw value is its spelling in the journal.
public enum EventType: String, CaseIterable, Sendable {
    case householdCreated = "HouseholdCreated"
    case locationCreated = "LocationCreated"
    case locationRenamed = "LocationRenamed"
    case locationRecolored = "LocationRecolored"
    case locationsReordered = "LocationsReordered"
    case locationDeleted = "LocationDeleted"
    case itemCreated = "ItemCreated"
    case itemRenamed = "ItemRenamed"
    case itemDetailsChanged = "ItemDetailsChanged"
    case itemRelocated = "ItemRelocated"
    case itemAvailabilityChanged = "ItemAvailabilityChanged"
    case itemDeleted = "ItemDeleted"
    case listCreated = "ListCreated"
    case listRenamed = "ListRenamed"
    case listPriorityChanged = "ListPriorityChanged"
    case listDeleted = "ListDeleted"
    case listRestored = "ListRestored"
    case listPurged = "ListPurged"
    case itemAddedToList = "ItemAddedToList"
    case listEntryQuantityChanged = "ListEntryQuantityChanged"
    case itemRemovedFromList = "ItemRemovedFromList"
    case listReordered = "ListReordered"
    case itemPurchased = "ItemPurchased"
    case purchaseReverted = "PurchaseReverted"
    case boughtEntriesCleared = "BoughtEntriesCleared"
    case tripStarted = "TripStarted"
    case tripPaused = "TripPaused"
    case tripResumed = "TripResumed"
    case tripEnded = "TripEnded"
    case memberAdded = "MemberAdded"
    case memberRoleChanged = "MemberRoleChanged"
    case memberRemoved = "MemberRemoved"
    case listEntryAssigned = "ListEntryAssigned"
    case storeCreated = "StoreCreated"
    case storeRenamed = "StoreRenamed"
    case storeDeleted = "StoreDeleted"
    case storeLocationsReordered = "StoreLocationsReordered"
}
