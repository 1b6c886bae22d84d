import ShopEvents

/// The household itself, as an app shows it first (SPEC section 12): its
/// name, currency and time zone, whether it is still open (no members yet),
/// and the trip running now with its timer.
///
/// ```swift
/// let view = HouseholdView(views, now: Timestamp("2026-11-26T10:00:00.000Z")!)
/// print(view.household?.name ?? "none", view.open, view.trip?.activeSeconds ?? 0)
/// ```
public struct HouseholdView: Hashable, Sendable {
    /// The trip started and not yet ended.
    public struct TripRow: Hashable, Sendable {
        public var id: TripID
        /// The store it is at (a deleted one by its last name), if it named one.
        public var store: StoreRef?
        public var startedAt: Timestamp
        public var paused: Bool
        /// When it was paused, while it is (`nil` for a pause read from a snapshot of an earlier build).
        public var pausedAt: Timestamp?
        /// Running time to ``HouseholdView/now``, paused time excluded.
        public var activeSeconds: Double

        /// Memberwise, for preview data and tests.
        public init(id: TripID, store: StoreRef?, startedAt: Timestamp, paused: Bool, pausedAt: Timestamp?, activeSeconds: Double) {
            self.id = id; self.store = store; self.startedAt = startedAt; self.paused = paused; self.pausedAt = pausedAt
            self.activeSeconds = activeSeconds
        }
    }

    public var asOf: Int
    public var household: Household?
    /// No members yet: every device may do anything (SPEC section 10).
    public var open: Bool
    public var trip: TripRow?

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, household: Household?, open: Bool, trip: TripRow?) {
        self.asOf = asOf; self.household = household; self.open = open; self.trip = trip
    }

    /// From any views; a running trip's time is counted to `now`.
    public init(_ views: some StateFold, now: Timestamp) {
        asOf = views.asOf
        household = views.state.household
        open = views.state.isOpen
        trip = views.state.openTrip.flatMap { views.state.trips[$0] }.map { trip in
            var paused = false
            if case .paused = trip.phase { paused = true }
            let store = trip.store.map { StoreRef(id: $0, name: views.state.stores[$0]?.name ?? $0.description) }
            return TripRow(id: trip.id, store: store, startedAt: trip.startedAt, paused: paused, pausedAt: paused ? trip.pausedAt : nil,
                           activeSeconds: Double(trip.activeMilliseconds(at: now)) / 1000)
        }
    }

    public var json: JSONValue {
        .object([
            ("view", "household"), ("asOf", .int(asOf)),
            ("household", household.map { h in
                .object([("id", .string(h.id.description)), ("name", .string(h.name)), ("currency", .string(h.currency)),
                         ("timeZone", .string(h.timeZone))])
            } ?? .null),
            ("open", .bool(open)),
            ("trip", trip.map { t in
                .object([("id", .string(t.id.description)),
                         ("store", t.store?.json ?? .null),
                         ("startedAt", .string(t.startedAt.description)), ("paused", .bool(t.paused)),
                         ("pausedAt", .optional(t.pausedAt?.description)), ("activeSeconds", .double(t.activeSeconds))])
            } ?? .null),
        ])
    }
}
