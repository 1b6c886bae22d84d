import ShopEvents

/// The household itself, as an app shows it first: its name, currency and
/// time zone, whether it is still open (no members yet), and the trips under
/// way with their timers — every shopper's (``trips``), and the one of the
/// shopper asking (``trip``: "your trip").
///
/// ```swift
/// let view = HouseholdView(views, now: Timestamp("2026-11-26T10:00:00.000Z")!, shopper: "ben")
/// print(view.household?.name ?? "none", view.open, view.trip?.activeSeconds ?? 0, view.trips.map(\.shopper))
/// ```
public struct HouseholdView: Hashable, Sendable {
    /// A trip started and not yet ended.
    public struct TripRow: Hashable, Sendable {
        public var id: TripID
        /// Whose trip it is: the actor that started it.
        public var shopper: String
        /// The store it is at (a deleted one by its last name), if it named one.
        public var store: StoreRef?
        public var startedAt: Timestamp
        public var paused: Bool
        /// When it was paused, while it is (`nil` for a pause read from a snapshot of an earlier build).
        public var pausedAt: Timestamp?
        /// Running time to ``HouseholdView/now``, paused time excluded.
        public var activeSeconds: Double

        /// Memberwise, for preview data and tests.
        public init(id: TripID, shopper: String, store: StoreRef?, startedAt: Timestamp, paused: Bool, pausedAt: Timestamp?, activeSeconds: Double) {
            self.id = id; self.shopper = shopper; self.store = store; self.startedAt = startedAt; self.paused = paused; self.pausedAt = pausedAt
            self.activeSeconds = activeSeconds
        }

        var json: JSONValue {
            .object([("id", .string(id.description)), ("shopper", .string(shopper)),
                     ("store", store?.json ?? .null),
                     ("startedAt", .string(startedAt.description)), ("paused", .bool(paused)),
                     ("pausedAt", .optional(pausedAt?.description)), ("activeSeconds", .double(activeSeconds))])
        }
    }

    public var asOf: Int
    public var household: Household?
    /// No members yet: every device may do anything.
    public var open: Bool
    /// The trip of the shopper asking, if they have one under way.
    public var trip: TripRow?
    /// Every trip under way, the earliest started first.
    public var trips: [TripRow]

    /// Memberwise, for preview data and tests.
    public init(asOf: Int, household: Household?, open: Bool, trip: TripRow?, trips: [TripRow]) {
        self.asOf = asOf; self.household = household; self.open = open; self.trip = trip; self.trips = trips
    }

    /// From any views; a running trip's time is counted to `now`. `shopper`: whose trip is ``trip``.
    public init(_ views: some StateFold, now: Timestamp, shopper: String? = nil) {
        asOf = views.asOf
        household = views.state.household
        open = views.state.isOpen
        trips = views.state.openTripsInOrder.map { trip in
            var paused = false
            if case .paused = trip.phase { paused = true }
            let store = trip.store.map { StoreRef(id: $0, name: views.state.stores[$0]?.name ?? $0.description) }
            return TripRow(id: trip.id, shopper: trip.shopper, store: store, startedAt: trip.startedAt, paused: paused,
                           pausedAt: paused ? trip.pausedAt : nil, activeSeconds: Double(trip.activeMilliseconds(at: now)) / 1000)
        }
        trip = shopper.flatMap { shopper in trips.first { $0.shopper == shopper } }
    }

    public var json: JSONValue {
        .object([
            ("view", "household"), ("asOf", .int(asOf)),
            ("household", household.map { h in
                .object([("id", .string(h.id.description)), ("name", .string(h.name)), ("currency", .string(h.currency)),
                         ("timeZone", .string(h.timeZone))])
            } ?? .null),
            ("open", .bool(open)),
            ("trip", trip?.json ?? .null),
            ("trips", .array(trips.map(\.json))),
        ])
    }
}
