import ShopEvents

/// The views a device shows: of a journal, or of a sync replica the
/// optimistic household — the hub's history as far as it was pulled, then
/// the commands of the outbox folded as if the hub had taken them
/// (SPEC section 7). An `asOf` other than the end names a point of the hub's
/// history, so the outbox is left out there.
///
/// ```swift
/// let shown = try ReplicaViews.load(journal: "phone.ndjson")
/// print(shown.views.asOf, shown.pending ?? 0)     // the outbox's commands, if a replica
/// ```
public struct ReplicaViews {
    /// The views, the outbox's events folded in where they are shown.
    public var views: HouseholdViews
    /// The last seq of the journal itself the views cover (the outbox's events come after it).
    public var through: Int
    /// The outbox's commands' events as they would be recorded, folded into ``views``.
    public var pendingEvents: [RecordedEvent]
    /// On a replica, how many commands its outbox holds; `nil` for a journal that is no replica.
    public var pending: Int?
    /// Why the views end where they do, when it is not simply the end (see ``ViewEngine``).
    public var warnings: [String]

    public static func load(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                            history: PurchaseHistory.Depth = .records) throws -> ReplicaViews {
        var (views, warnings): (HouseholdViews, [String]) = try ViewEngine.views(journal: path, asOf: stop, useSnapshot: useSnapshot, history: history)
        let through = views.asOf
        guard Replica.isReplica(path) else { return ReplicaViews(views: views, through: through, pendingEvents: [], pending: nil, warnings: warnings) }
        let replica = try Replica(path: path)
        guard case .end = stop else {
            return ReplicaViews(views: views, through: through, pendingEvents: [], pending: replica.pending.count, warnings: warnings)
        }
        for recorded in replica.pendingEvents { views.apply(recorded) }
        return ReplicaViews(views: views, through: through, pendingEvents: replica.pendingEvents, pending: replica.pending.count, warnings: warnings)
    }
}
