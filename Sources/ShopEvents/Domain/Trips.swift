// Trips: a shopping trip's timer. One trip at a time is open (running or paused).

extension ShopDecider {
    static func decideStartTrip(_ trip: TripID, list: ListID?, store: StoreID?, _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(trip, field: "trip")
        if let list { _ = try state.requireLiveList(list) }
        if let store { _ = try state.requireLiveStore(store) }
        if let open = state.openTrip {
            throw RuleViolation(.tripInProgress, "trip \(open) is still in progress; end it before starting another", field: "trip")
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

    mutating func applyTripStarted(_ id: TripID, list: ListID?, store: StoreID?, at: Timestamp) {
        trips[id] = Trip(id: id, list: list, store: store, startedAt: at, phase: .running(since: at))
        openTrip = id
    }

    mutating func applyTripEnded(_ id: TripID, at: Timestamp) {
        trips.change(id) { $0.end(at: at) }
        if openTrip == id { openTrip = nil }
    }
}
