/// What a person or device asks the household to do.
///
/// Ids of things a command creates are always present here: a constructor
/// left without one makes a new id (give it to know the id beforehand); the
/// JSON command decoder fills omitted ones from an injected ``IDGenerator``.
/// Optional fields have the defaults of docs/COMMANDS.md, and may be
/// left out: an item without a location goes to Unknown, a list entry
/// without a quantity has 1, a purchase takes quantity, price and location
/// from the item and its entry, and its time from when it is recorded.
///
/// ```swift
/// let add = Command.addItemToList(list: weekly, item: milk, quantity: 2)
/// let events = try ShopDecider.decide(add, state, actor: "ana")
/// let bought = Command.purchaseItem(item: milk, list: weekly)     // the entry's quantity, the item's price and place
/// ```
public enum Command: Hashable, Sendable {
    case createHousehold(household: HouseholdID = HouseholdID(), name: String, currency: String, timeZone: String)

    case createLocation(location: LocationID = LocationID(), name: String, color: Color? = nil)
    case renameLocation(location: LocationID, name: String)
    case recolorLocation(location: LocationID, color: Color)
    /// The visiting order; with `positions`, the numbers the stops keep (else 1…n);
    /// with `unknownAlias`, the id another app gives the Unknown Location.
    case reorderLocations(order: [LocationID], positions: [Int]? = nil, unknownAlias: LocationID? = nil)
    case deleteLocation(location: LocationID)

    case createItem(item: ItemID = ItemID(), name: String, location: LocationID? = nil, details: ItemDetails = .none)
    case renameItem(item: ItemID, name: String)
    /// Changes the fields `patch` sets or clears and keeps every other
    /// (``ItemDetailsPatch``); `ItemDetailsPatch(replacingWith:)` replaces the whole set.
    case changeItemDetails(item: ItemID, patch: ItemDetailsPatch)
    case relocateItem(item: ItemID, location: LocationID)
    case setItemAvailability(item: ItemID, available: Bool)
    case deleteItem(item: ItemID)

    case createList(list: ListID = ListID(), name: String, priority: Priority? = nil)
    case renameList(list: ListID, name: String)
    case setListPriority(list: ListID, priority: Priority)
    case deleteList(list: ListID)
    case restoreList(list: ListID)
    case purgeList(list: ListID)
    case addItemToList(list: ListID, item: ItemID, quantity: Quantity? = nil)
    case changeQuantity(list: ListID, item: ItemID, quantity: Quantity)
    case removeItemFromList(list: ListID, item: ItemID)
    case reorderList(list: ListID, order: [ItemID])
    /// Who is getting the entry: a member, or nobody (`member` nil).
    case assignEntry(list: ListID, item: ItemID, member: String?)

    case purchaseItem(purchase: PurchaseID = PurchaseID(), item: ItemID, list: ListID? = nil, quantity: Quantity? = nil,
                      unitPrice: Int? = nil, location: LocationID? = nil, purchasedAt: Timestamp? = nil, store: StoreID? = nil)
    case revertPurchase(purchase: PurchaseID)
    case clearBought(list: ListID)

    case startTrip(trip: TripID = TripID(), list: ListID? = nil, store: StoreID? = nil)
    case pauseTrip(trip: TripID)
    case resumeTrip(trip: TripID)
    case endTrip(trip: TripID)

    /// Stores (docs/COMMANDS.md, "Stores"): live names unique ignoring case; a deleted store takes no more trips or purchases.
    case createStore(store: StoreID = StoreID(), name: String)
    case renameStore(store: StoreID, name: String)
    case deleteStore(store: StoreID)
    /// The store's own visiting order of some or all live locations; see ``Event/storeLocationsReordered(store:order:)``.
    case reorderStoreLocations(store: StoreID, order: [LocationID])

    /// Adds a member with a role; in an open household the issuer first becomes an owner.
    case addMember(member: String, role: Role)
    case changeMemberRole(member: String, role: Role)
    /// Removes a member; a member may remove itself (leave).
    case removeMember(member: String)

    /// The command's `type` spelling, e.g. `AddItemToList`.
    public var typeName: String { kind.rawValue }

    /// The command's type without its data.
    public var kind: CommandType {
        switch self {
        case .createHousehold: return .createHousehold
        case .createLocation: return .createLocation
        case .renameLocation: return .renameLocation
        case .recolorLocation: return .recolorLocation
        case .reorderLocations: return .reorderLocations
        case .deleteLocation: return .deleteLocation
        case .createItem: return .createItem
        case .renameItem: return .renameItem
        case .changeItemDetails: return .changeItemDetails
        case .relocateItem: return .relocateItem
        case .setItemAvailability: return .setItemAvailability
        case .deleteItem: return .deleteItem
        case .createList: return .createList
        case .renameList: return .renameList
        case .setListPriority: return .setListPriority
        case .deleteList: return .deleteList
        case .restoreList: return .restoreList
        case .purgeList: return .purgeList
        case .addItemToList: return .addItemToList
        case .changeQuantity: return .changeQuantity
        case .removeItemFromList: return .removeItemFromList
        case .reorderList: return .reorderList
        case .assignEntry: return .assignEntry
        case .purchaseItem: return .purchaseItem
        case .revertPurchase: return .revertPurchase
        case .clearBought: return .clearBought
        case .startTrip: return .startTrip
        case .pauseTrip: return .pauseTrip
        case .resumeTrip: return .resumeTrip
        case .endTrip: return .endTrip
        case .createStore: return .createStore
        case .renameStore: return .renameStore
        case .deleteStore: return .deleteStore
        case .reorderStoreLocations: return .reorderStoreLocations
        case .addMember: return .addMember
        case .changeMemberRole: return .changeMemberRole
        case .removeMember: return .removeMember
        }
    }
}

/// The `type` of a command; the raw value is its JSON spelling.
public enum CommandType: String, CaseIterable, Sendable {
    case createHousehold = "CreateHousehold"
    case createLocation = "CreateLocation"
    case renameLocation = "RenameLocation"
    case recolorLocation = "RecolorLocation"
    case reorderLocations = "ReorderLocations"
    case deleteLocation = "DeleteLocation"
    case createItem = "CreateItem"
    case renameItem = "RenameItem"
    case changeItemDetails = "ChangeItemDetails"
    case relocateItem = "RelocateItem"
    case setItemAvailability = "SetItemAvailability"
    case deleteItem = "DeleteItem"
    case createList = "CreateList"
    case renameList = "RenameList"
    case setListPriority = "SetListPriority"
    case deleteList = "DeleteList"
    case restoreList = "RestoreList"
    case purgeList = "PurgeList"
    case addItemToList = "AddItemToList"
    case changeQuantity = "ChangeQuantity"
    case removeItemFromList = "RemoveItemFromList"
    case reorderList = "ReorderList"
    case purchaseItem = "PurchaseItem"
    case revertPurchase = "RevertPurchase"
    case clearBought = "ClearBought"
    case startTrip = "StartTrip"
    case pauseTrip = "PauseTrip"
    case resumeTrip = "ResumeTrip"
    case endTrip = "EndTrip"
    case addMember = "AddMember"
    case changeMemberRole = "ChangeMemberRole"
    case removeMember = "RemoveMember"
    case assignEntry = "AssignEntry"
    case createStore = "CreateStore"
    case renameStore = "RenameStore"
    case deleteStore = "DeleteStore"
    case reorderStoreLocations = "ReorderStoreLocations"
}

/// A command with its envelope: who asks, when, and the retry and
/// concurrency guards of docs/COMMANDS.md, "The envelope".
///
/// ```swift
/// var request = CommandEnvelope(.renameItem(item: milk, name: "Oat milk"), actor: "ana")
/// request.expectedSeq = journal.head.seq      // reject if someone wrote meanwhile
/// try journal.execute(request)
/// ```
public struct CommandEnvelope: Hashable, Sendable {
    public var command: Command
    /// Retrying a command with the same id appends nothing and reports the
    /// events of the first time. `nil`: the journal makes a fresh id.
    public var id: CommandID?
    /// Who asks; `nil`: the journal's default actor.
    public var actor: String?
    /// When; `nil`: the journal's clock. Must not be earlier than the journal's last `at`.
    public var at: Timestamp?
    /// Rejected with `conflict` unless the journal's last `seq` equals this.
    public var expectedSeq: Int?
    public var correlation: CorrelationID?
    public var device: String?

    public init(_ command: Command, id: CommandID? = nil, actor: String? = nil, at: Timestamp? = nil,
                expectedSeq: Int? = nil, correlation: CorrelationID? = nil, device: String? = nil) {
        self.command = command; self.id = id; self.actor = actor; self.at = at
        self.expectedSeq = expectedSeq; self.correlation = correlation; self.device = device
    }
}

extension ShopDecider {
    /// A command whose id the journal holds already is a retry only if it is
    /// of the same type as the command first made with that id (`first`, the
    /// type of its last event: ``CommandType/init(endingWith:)``); another type
    /// is refused (`id_reused`), never answered with the first command's result.
    ///
    /// ```swift
    /// // The id's first command ended with ItemPurchased: a CreateList under it is refused.
    /// try ShopDecider.requireRetry(.createList, id: purchaseCommand, first: .purchaseItem)   // id_reused
    /// ```
    public static func requireRetry(_ type: CommandType, id: CommandID, first: CommandType) throws(RuleViolation) {
        guard type != first else { return }
        throw RuleViolation(.idReused, "command id \(id) was used for a \(first.rawValue) already; this \(type.rawValue) needs an id of its own (only a retry of that \(first.rawValue) may repeat it)", field: "id")
    }
}
