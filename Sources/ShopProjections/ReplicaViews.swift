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

    /// The views of the journal or replica at `path` as of `stop`, every
    /// purchase's record kept: every view can be built from them.
    public static func load(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true) throws -> ReplicaViews {
        try load(journal: path, asOf: stop, useSnapshot: useSnapshot, history: .records)
    }

    /// ``load(journal:asOf:useSnapshot:)`` at `history`'s depth: the package's one-view reads.
    package static func load(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             history: PurchaseHistory.Depth) throws -> ReplicaViews {
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

    /// The views the statistics need (`.totals`), as ``load(journal:asOf:useSnapshot:history:)``
    /// gives them; read to the end of a journal that is no replica, a fold
    /// that keeps no purchase (``ViewEngine``'s settled views): the same
    /// statistics, in memory by the household rather than its history.
    package static func loadForStatistics(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true) throws -> ReplicaViews {
        guard case .end = stop, !Replica.isReplica(path) else {
            return try load(journal: path, asOf: stop, useSnapshot: useSnapshot, history: .totals)
        }
        let (views, warnings) = try ViewEngine.settledViews(journal: path, useSnapshot: useSnapshot)
        return ReplicaViews(views: views, through: views.asOf, pendingEvents: [], pending: nil, warnings: warnings)
    }

    /// Brings every view of the journal at `path` up to date and saves them
    /// (`<journal>.snapshot`), and the writer's chain (`<journal>.chain`) but
    /// on a sync replica, which no writer but sync opens. Returns the engine,
    /// for where it saved and how far.
    /// The snapshot holds every purchase's record, as the engine's views do
    /// (every view can be built from them).
    @discardableResult
    public static func saveSnapshots(journal path: String) throws -> ViewEngine {
        try saveSnapshots(journal: path, history: .records)
    }

    /// ``saveSnapshots(journal:)`` at `history`'s depth (`shop-replay snapshot`
    /// saves `.totals`, or `.records` with `--with-records`).
    @discardableResult
    package static func saveSnapshots(journal path: String, history: PurchaseHistory.Depth) throws -> ViewEngine {
        let engine = ViewEngine(journalPath: path, history: history)
        try engine.refresh()
        try engine.saveSnapshot()
        if !Replica.isReplica(path) {
            let journal = try SharedJournal.open(path: path)
            defer { journal.close() }
            try journal.saveSnapshot()
        }
        return engine
    }
}
