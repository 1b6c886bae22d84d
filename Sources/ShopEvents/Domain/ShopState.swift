import Foundation

/// The household's current state: what the deciders check commands against.
///
/// It is a fold over events: ``ShopState/initial`` then ``ShopState/evolve(_:_:)``
/// for every event. Deleted things stay (flagged) because purchases and
/// audits still name them, and because ids are never reused. (A projection
/// that shows none of them folds with less: `PresentState`, below the
/// domain.)
///
/// ```swift
/// var state = ShopState.initial
/// for recorded in events { state = ShopState.evolve(state, recorded) }
/// print(state.liveItems.count)
/// ```
public struct ShopState: Hashable, Sendable {
    public internal(set) var household: Household?
    /// Live and deleted locations.
    public internal(set) var locations: [LocationID: Location] = [:]
    /// The id another app gives the Unknown Location (an imported archive's),
    /// so that an export gives it back; see ``Event/locationsReordered(order:positions:unknownAlias:)``.
    public internal(set) var unknownLocationAlias: LocationID?
    /// Live and deleted items.
    public internal(set) var items: [ItemID: Item] = [:]
    /// Live and soft-deleted lists; a purged list is gone.
    public internal(set) var lists: [ListID: ShoppingList] = [:]
    /// Every purchase ever recorded (a purchase id is never reused).
    public internal(set) var purchases = PurchaseLedger()
    /// Every trip.
    public internal(set) var trips: [TripID: Trip] = [:]
    /// The trips started and not yet ended (running or paused), by their shopper: the
    /// actor that started each. Each shopper has at most one; several shoppers may
    /// each have one at the same time.
    public internal(set) var openTrips: [String: TripID] = [:]

    /// The members in the order they joined; none for an open household.
    public internal(set) var members: [Member] = []
    /// Live and deleted stores (SPEC section 10).
    public internal(set) var stores: [StoreID: Store] = [:]
    /// Lists purged for good: gone from ``lists``, their ids still used.
    public internal(set) var purgedLists: Set<ListID> = []
    /// Lower-cased names of live things, for the uniqueness rules.
    var locationNames = NameIndex<LocationKind>("location")
    var itemNames = NameIndex<ItemKind>("item")
    var listNames = NameIndex<ListKind>("list")
    var storeNames = NameIndex<StoreKind>("store")
    /// Live items' barcodes, by ``Barcode/key(_:)``: derived from ``items`` (never stored).
    var barcodes: [String: ItemID] = [:]
    /// The live items at each location that has any: derived from ``items``
    /// (never stored), so that deleting a location looks through the items
    /// it keeps, not through every item the household ever had.
    private(set) var liveItemsAt: [LocationID: Set<ItemID>] = [:]
    /// The live locations but Unknown: derived from ``locations`` (never
    /// stored), so that a new location's position is found among them, not
    /// among every location the household ever had.
    private(set) var liveLocationIDs: Set<LocationID> = []

    /// Counts item `id` in (`delta` 1) or out (-1) of ``liveItemsAt`` if it is live. Reads the two
    /// fields it needs where the item lies (always next to a change of the item): a copy of the
    /// item would retain its name, unit and barcode.
    mutating func countLive(_ id: ItemID, _ delta: Int) {
        guard let (isDeleted, location) = items.change(id, { ($0.isDeleted, $0.location) }), !isDeleted else { return }
        if delta > 0 {
            liveItemsAt[location, default: []].insert(id)
        } else if liveItemsAt[location]?.remove(id) != nil, liveItemsAt[location]?.isEmpty == true {
            liveItemsAt[location] = nil
        }
    }

    /// Counts `location` in or out of ``liveLocationIDs`` as it is now in ``locations``.
    mutating func countLive(_ location: LocationID) {
        if let live = locations[location], !live.isDeleted, location != .unknown {
            liveLocationIDs.insert(location)
        } else {
            liveLocationIDs.remove(location)
        }
    }

    /// The state before the first event.
    public static let initial = ShopState()

    /// The same as ``initial``: every state keeps its purchases compactly
    /// (``PurchaseLedger``). Kept for the folds that still name it.
    public static var compact: ShopState { initial }

    /// The pure fold: the state after `event`, which happened at `context`.
    public static func evolve(_ state: ShopState, _ event: Event, _ context: EventContext) -> ShopState {
        var next = state
        next.apply(event, context)
        return next
    }

    /// Live locations in visiting order, Unknown last.
    public var visitingOrder: [LocationID] {
        let ordered = liveLocationIDs.compactMap { locations[$0] }
            .sorted { ($0.position, $0.id) < ($1.position, $1.id) }
            .map(\.id)
        return locations[.unknown] == nil ? ordered : ordered + [.unknown]
    }

    public var liveItems: [Item] { items.values.filter { !$0.isDeleted } }

    /// The live item of that name, ignoring case and surrounding white space.
    public func liveItem(named name: String) -> ItemID? { itemNames.owner(of: name) }
    /// The live location of that name, ignoring case and surrounding white space.
    public func liveLocation(named name: String) -> LocationID? { locationNames.owner(of: name) }
    /// The live (not deleted) list of that name, ignoring case and surrounding white space.
    public func liveList(named name: String) -> ListID? { listNames.owner(of: name) }

    /// The live list of that name, or `unknown_list` naming the lists there are
    /// (an unknown name is rejected like an unknown id).
    func requireLiveList(named name: String) throws(RuleViolation) -> ListID {
        guard let id = liveList(named: name) else {
            let names = lists.values.filter { !$0.isDeleted }.map(\.name).sorted()
            throw RuleViolation(.unknownList, "there is no live list named \(Self.quoted(name))\(names.isEmpty ? "" : "; the lists are \(names.joined(separator: ", "))")", field: "list")
        }
        return id
    }

    /// Whether `uuid` was ever created by an event of this journal, as the id
    /// of anything (or is the Unknown Location's alias): ids are never reused,
    /// even after a delete or purge.
    public func isUsed(_ uuid: UUID) -> Bool {
        // `index(forKey:)`: whether a key is there, without copying its value out.
        household?.id.uuid == uuid || unknownLocationAlias?.uuid == uuid || locations.index(forKey: LocationID(uuid)) != nil || items.index(forKey: ItemID(uuid)) != nil
            || lists.index(forKey: ListID(uuid)) != nil || purgedLists.contains(ListID(uuid))
            || purchases.position(of: PurchaseID(uuid)) != nil || trips.index(forKey: TripID(uuid)) != nil
            || stores.index(forKey: StoreID(uuid)) != nil
    }

    /// Folds one event in place, given its place, time and actor.
    public mutating func apply(_ event: Event, _ context: EventContext) {
        let at = context.at
        switch event {
        case let .householdCreated(household, name, currency, timeZone):
            applyHouseholdCreated(household, name: name, currency: currency, timeZone: timeZone)
        case let .locationCreated(location, name, position, color):
            applyLocationCreated(location, name: name, position: position, color: color)
        case let .locationRenamed(location, name): applyLocationRenamed(location, name: name)
        case let .locationRecolored(location, color): locations.change(location) { $0.color = color }
        case let .locationsReordered(order, positions, alias): applyLocationsReordered(order, positions: positions, unknownAlias: alias)
        case let .locationDeleted(location): applyLocationDeleted(location)
        case let .itemCreated(item, name, location, details):
            applyItemCreated(item, name: name, location: location, details: details)
        case let .itemRenamed(item, name): applyItemRenamed(item, name: name)
        case let .itemDetailsChanged(item, details): applyItemDetailsChanged(item, details: details)
        case let .itemRelocated(item, location):
            countLive(item, -1)
            items.change(item) { $0.location = location }
            countLive(item, 1)
        case let .itemAvailabilityChanged(item, available): items.change(item) { $0.isAvailable = available }
        case let .itemDeleted(item): applyItemDeleted(item)
        case let .listCreated(list, name, priority):
            applyListCreated(list, name: name, priority: priority, at: at, actor: context.actor)
        case let .listRenamed(list, name): applyListRenamed(list, name: name)
        case let .listPriorityChanged(list, priority): lists.change(list) { $0.priority = priority }
        case let .listDeleted(list): applyListDeleted(list, at: at, actor: context.actor)
        case let .listRestored(list): applyListRestored(list)
        case let .listPurged(list):
            lists[list] = nil
            purgedLists.insert(list)
        case let .itemAddedToList(list, item, quantity):
            applyItemAddedToList(list, item: item, quantity: quantity, seq: context.seq)
        case let .listEntryQuantityChanged(list, item, quantity):
            lists.change(list) { $0.updateEntry(for: item) { $0.quantity = quantity } }
        case let .itemRemovedFromList(list, item): lists.change(list) { $0.entries.removeAll { $0.item == item } }
        case let .listReordered(list, order): applyListReordered(list, order: order)
        case let .listEntryAssigned(list, item, member): lists.change(list) { $0.updateEntry(for: item) { $0.assignee = member } }
        case let .itemPurchased(purchase, item, list, _, _, location, purchasedAt, _):
            applyItemPurchased(Purchase(id: purchase, item: item, list: list, location: location,
                                        effectiveTime: purchasedAt ?? at, seq: context.seq))
        case let .purchaseReverted(purchase): applyPurchaseReverted(purchase)
        case let .boughtEntriesCleared(list): lists.change(list) { $0.entries.removeAll { $0.isBought } }
        case let .tripStarted(trip, list, store): applyTripStarted(trip, list: list, store: store, at: at, shopper: context.actor)
        case let .storeCreated(store, name): applyStoreCreated(store, name: name)
        case let .storeRenamed(store, name): applyStoreRenamed(store, name: name)
        case let .storeDeleted(store): applyStoreDeleted(store)
        case let .storeLocationsReordered(store, order): stores.change(store) { $0.order = order }
        case let .memberAdded(member, role): applyMemberAdded(member, role: role, at: at, by: context.actor)
        case let .memberRoleChanged(member, role): applyMemberRoleChanged(member, role: role)
        case let .memberRemoved(member): applyMemberRemoved(member)
        case let .tripPaused(trip): trips.change(trip) { $0.pause(at: at) }
        case let .tripResumed(trip): trips.change(trip) { $0.resume(at: at) }
        case let .tripEnded(trip): applyTripEnded(trip, at: at)
        }
    }
}

extension Dictionary {
    /// Changes the value for `key` in place, if there is one. `self[key]?.x = y`
    /// moves the value into an optional and back, its strings and arrays
    /// retained and released on the way, on every event that changes a list,
    /// an item or a place.
    ///
    /// Gives back what `body` returns (`nil` when there is no value), so it
    /// also reads fields where the value lies, for a value about to change
    /// anyway: `values[index].field`, through a getter the optimiser does not
    /// inline, copies the whole value to read one field.
    @discardableResult
    @inline(__always) mutating func change<Result>(_ key: Key, _ body: (inout Value) -> Result) -> Result? {
        guard let index = index(forKey: key) else { return nil }
        return body(&values[index])
    }
}

/// The household the journal belongs to.
public struct Household: Hashable, Sendable {
    public var id: HouseholdID
    public var name: String
    /// ISO 4217 code of the currency prices are in, e.g. `EUR`.
    public var currency: String
    /// IANA time zone that calendar days and months are counted in.
    public var timeZone: String
}

/// A place in the store; the visiting order sorts by ``position``.
public struct Location: Hashable, Sendable {
    public var id: LocationID
    public var name: String
    public var position: Int
    public var color: Color
    public var isDeleted = false
}

/// A thing the household buys, kept at one location.
public struct Item: Hashable, Sendable {
    public var id: ItemID
    public var name: String
    public var location: LocationID
    public var details: ItemDetails
    /// `false` while the store is out of it.
    public var isAvailable = true
    public var isDeleted = false
}

/// A named shopping list with entries in manual order.
public struct ShoppingList: Hashable, Sendable {
    public var id: ListID
    public var name: String
    public var priority: Priority
    public var createdAt: Timestamp
    public var createdBy: String
    /// When the list was soft-deleted; `nil` while it is live.
    public var deletedAt: Timestamp?
    /// Who soft-deleted it.
    public var deletedBy: String?
    /// One entry per item on the list, bought or not, in manual order.
    public var entries: [ListEntry] = []

    public var isDeleted: Bool { deletedAt != nil }

    public func entry(for item: ItemID) -> ListEntry? { entries.first { $0.item == item } }

    mutating func updateEntry(for item: ItemID, _ change: (inout ListEntry) -> Void) {
        if let index = entries.firstIndex(where: { $0.item == item }) { change(&entries[index]) }
    }
}

/// An item on a list: to buy, or bought by a purchase.
public struct ListEntry: Hashable, Sendable {
    public var item: ItemID
    public var quantity: Quantity
    /// The `seq` of the event that put this entry on the list.
    public var addedSeq: Int
    /// The purchase that bought it; `nil` while it is still to buy.
    public var purchase: PurchaseID?
    /// The `seq` of that purchase, so views can show the most recently bought last.
    public var boughtSeq: Int?
    /// Who is getting it (``Command/assignEntry(list:item:member:)``); `nil`: nobody. A fresh entry has none.
    public var assignee: String?

    public var isBought: Bool { purchase != nil }
}

/// One recorded purchase, as the household's state keeps it: what the rules
/// and a revert need. Quantity, price and buyer are in the journal and in the
/// views' purchase history (``PurchaseRecord`` in ShopProjections).
public struct Purchase: Hashable, Sendable {
    public var id: PurchaseID
    public var item: ItemID
    public var list: ListID?
    /// Where it was bought.
    public var location: LocationID
    /// When it was bought: `purchasedAt` if the event gave one, else its `at`.
    public var effectiveTime: Timestamp
    public var seq: Int
    public var isReverted = false

    public init(id: PurchaseID, item: ItemID, list: ListID?, location: LocationID, effectiveTime: Timestamp, seq: Int, isReverted: Bool = false) {
        self.id = id; self.item = item; self.list = list; self.location = location
        self.effectiveTime = effectiveTime; self.seq = seq; self.isReverted = isReverted
    }
}

/// A shopping trip with a timer; its duration leaves out paused time.
public struct Trip: Hashable, Sendable {
    /// Running since a time, paused, or ended at a time.
    public enum Phase: Hashable, Sendable {
        case running(since: Timestamp)
        case paused
        case ended(at: Timestamp)
    }

    public var id: TripID
    /// The actor that started it: whose trip it is. A purchase without a store
    /// is at the store of its own actor's running trip, never at another's.
    public var shopper: String
    public var list: ListID?
    /// The store the trip is at, if it named one.
    public var store: StoreID?
    public var startedAt: Timestamp
    public var phase: Phase
    /// Running time before the current running stretch (or in all, once ended).
    public var activeMilliseconds: Int64 = 0
    /// When it was paused, while it is (`nil` otherwise, and for a pause read from a snapshot written before it was kept).
    public var pausedAt: Timestamp?

    mutating func pause(at: Timestamp) {
        guard case let .running(since) = phase else { return }
        activeMilliseconds += at.millisecondsSince1970 - since.millisecondsSince1970
        phase = .paused
        pausedAt = at
    }

    mutating func resume(at: Timestamp) {
        guard case .paused = phase else { return }
        phase = .running(since: at)
        pausedAt = nil
    }

    /// Running time to `now`: the running stretches so far, paused time excluded (a running trip counts to `now`).
    public func activeMilliseconds(at now: Timestamp) -> Int64 {
        guard case let .running(since) = phase else { return activeMilliseconds }
        return activeMilliseconds + max(0, now.millisecondsSince1970 - since.millisecondsSince1970)
    }

    package mutating func end(at: Timestamp) {
        if case let .running(since) = phase {
            activeMilliseconds += at.millisecondsSince1970 - since.millisecondsSince1970
        }
        phase = .ended(at: at)
        pausedAt = nil
    }
}
