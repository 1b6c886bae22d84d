// Trips: a shopping trip's timer. A trip belongs to its shopper, the actor that
// started it: each shopper has at most one trip open (running or paused), and
// several shoppers may each have one at once. Any member may pause, resume or
// end a trip by its id (someone else may end a trip left running).

extension ShopDecider {
    static func decideStartTrip(_ trip: TripID, list: ListID?, store: StoreID?, _ state: ShopState, actor: String) throws(RuleViolation) -> [Event] {
        try state.requireNew(trip, field: "trip")
        if let list { _ = try state.requireLiveList(list) }
        if let store { _ = try state.requireLiveStore(store) }
        if let open = state.openTrips[actor] {
            throw RuleViolation(.tripInProgress, "\(actor)'s trip \(open) is still in progress; end it before starting another", field: "trip")
        }
        return [.tripStarted(trip: trip, list: list, store: store)]
    }

    static func decidePauseTrip(_ trip: TripID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        guard case .running = try state.requireUnendedTrip(trip).phase else {
            throw RuleViolation(.tripNotRunning, "trip \(trip) is paused already", field: "trip")
        }
        return [.tripPaused(trip: trip)]
    }

    static func decideResumeTrip(_ trip: TripID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        guard case .paused = try state.requireUnendedTrip(trip).phase else {
            throw RuleViolation(.tripNotPaused, "trip \(trip) is running, not paused", field: "trip")
        }
        return [.tripResumed(trip: trip)]
    }

    static func decideEndTrip(_ trip: TripID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireUnendedTrip(trip)
        return [.tripEnded(trip: trip)]
    }
}

extension ShopState {
    func requireUnendedTrip(_ id: TripID) throws(RuleViolation) -> Trip {
        guard let trip = trips[id] else {
            throw RuleViolation(.unknownTrip, "trip \(id) does not exist", field: "trip")
        }
        if case .ended = trip.phase {
            throw RuleViolation(.tripEnded, "trip \(id) has ended", field: "trip")
        }
        return trip
    }

    mutating func applyTripStarted(_ id: TripID, list: ListID?, store: StoreID?, at: Timestamp, shopper: String) {
        trips[id] = Trip(id: id, shopper: shopper, list: list, store: store, startedAt: at, phase: .running(since: at))
        openTrips[shopper] = id
    }

    mutating func applyTripEnded(_ id: TripID, at: Timestamp) {
        guard let shopper = trips.change(id, { trip -> String in
            trip.end(at: at)
            return trip.shopper
        }) else { return }
        if openTrips[shopper] == id { openTrips[shopper] = nil }
    }

    /// The trip `shopper` started and has not ended, running or paused.
    public func openTrip(of shopper: String) -> Trip? {
        openTrips[shopper].flatMap { trips[$0] }
    }

    /// The open trips, the earliest started first (ties by id).
    public var openTripsInOrder: [Trip] {
        openTrips.values.compactMap { trips[$0] }.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }
    }
}
