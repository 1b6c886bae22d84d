// Stores (SPEC section 10): where things are bought. A trip may be at a
// store; a purchase may name one, and one made without a store while a trip
// at a store is running is at that store.

extension ShopDecider {
    static func decideCreateStore(_ store: StoreID, name: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(store, field: "store")
        return [.storeCreated(store: store, name: try state.storeNames.available(name, for: store))]
    }

    static func decideRenameStore(_ store: StoreID, name: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveStore(store)
        return [.storeRenamed(store: store, name: try state.storeNames.available(name, for: store))]
    }

    /// Its purchases keep it (by id, and their views by its last name); trips and purchases may not name it from now on.
    static func decideDeleteStore(_ store: StoreID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveStore(store)
        return [.storeDeleted(store: store)]
    }

    /// The store's own visiting order (SPEC section 11): live locations, never
    /// Unknown, each at most once; some or all of them (none: the household's
    /// order again). Replaces the store's last order.
    static func decideReorderStoreLocations(_ store: StoreID, order: [LocationID], _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveStore(store)
        var named = Set<LocationID>()
        for location in order {
            if location == .unknown {
                throw RuleViolation(.unknownLocationFixed, "order names the Unknown Location, which always comes last and is never reordered", field: "order")
            }
            let live = try state.requireLiveLocation(location, field: "order")
            guard named.insert(location).inserted else {
                throw RuleViolation(.duplicateLocation, "order names location \(location) (\(ShopState.quoted(live.name))) twice; name each location at most once", field: "order")
            }
        }
        return [.storeLocationsReordered(store: store, order: order)]
    }
}

extension ShopState {
    /// `unknown_store` / `store_deleted` unless `id` is a live store.
    func requireLiveStore(_ id: StoreID, field: String = "store") throws(RuleViolation) -> Store {
        guard let store = stores[id] else {
            throw RuleViolation(.unknownStore, "store \(id) does not exist", field: field)
        }
        guard !store.isDeleted else {
            throw RuleViolation(.storeDeleted, "store \(id) (\(ShopState.quoted(store.name))) was deleted", field: field)
        }
        return store
    }

    /// The store of `shopper`'s trip, while it runs (not paused), if it is at one.
    public func runningTripStore(for shopper: String) -> StoreID? {
        // A household that never had a store pays no look-up for each purchase.
        guard !stores.isEmpty, let open = openTrips[shopper], let trip = trips[open], case .running = trip.phase else { return nil }
        return trip.store
    }

    /// The store a purchase `shopper` makes now without one is at, and a list
    /// by location for `shopper` follows without one: the store of their own
    /// running trip (``runningTripStore(for:)``) while that store is live. A
    /// store deleted during the trip takes no purchases, named or not; another
    /// shopper's trip never gives its store.
    public func liveRunningTripStore(for shopper: String) -> StoreID? {
        guard let store = runningTripStore(for: shopper), stores[store]?.isDeleted == false else { return nil }
        return store
    }

    /// Whether `store` is the store of some shopper's running trip: a purchase
    /// recorded before trips belonged to their shopper took the one running
    /// trip's store whoever bought, and still verifies.
    func isRunningTripStore(_ store: StoreID) -> Bool {
        openTrips.values.contains { open in
            guard let trip = trips[open], case .running = trip.phase else { return false }
            return trip.store == store
        }
    }

    mutating func applyStoreCreated(_ id: StoreID, name: String) {
        stores[id] = Store(id: id, name: name)
        storeNames.claim(name, by: id)
    }

    mutating func applyStoreRenamed(_ id: StoreID, name: String) {
        guard let old = stores[id] else { return }
        stores.change(id) { $0.name = name }
        storeNames.rename(id, from: old.name, to: name, isLive: !old.isDeleted)
    }

    mutating func applyStoreDeleted(_ id: StoreID) {
        guard let old = stores[id] else { return }
        stores.change(id) { $0.isDeleted = true; $0.order = [] }   // its order goes with it
        storeNames.release(old.name, by: id)
    }

    /// A deleted location drops out of every store's order.
    mutating func dropFromStoreOrders(_ location: LocationID) {
        // Most households have few stores, and most stores no order of their own.
        for index in stores.indices where stores.values[index].order.contains(location) {
            stores.values[index].order.removeAll { $0 == location }
        }
    }

    /// Live locations in the order of `store` (SPEC section 11): the store's
    /// own order, then the locations it leaves out in the household's order,
    /// Unknown last. Without a store, or for a store with no order of its
    /// own, the household's ``visitingOrder``.
    ///
    /// ```swift
    /// let aisles = state.visitingOrder(at: corner)   // the corner shop's order, Unknown last
    /// ```
    public func visitingOrder(at store: StoreID?) -> [LocationID] {
        let household = visitingOrder
        guard let store, let own = stores[store]?.order, !own.isEmpty else { return household }
        let named = Set(own)
        return own + household.filter { !named.contains($0) }
    }
}

/// A store: where things are bought (SPEC section 10).
///
/// ```swift
/// let corner = state.stores.values.first { !$0.isDeleted && $0.name == "Corner shop" }
/// ```
public struct Store: Hashable, Sendable {
    public var id: StoreID
    public var name: String
    public var isDeleted = false
    /// The store's own visiting order of some live locations, first to visit
    /// first (SPEC section 11); empty: the household's. See ``ShopState/visitingOrder(at:)``.
    public var order: [LocationID] = []
}
