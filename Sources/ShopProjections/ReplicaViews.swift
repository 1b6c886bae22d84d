import ShopEvents

/// The views a device shows: of a journal, or of a sync replica the
/// optimistic household — the hub's history as far as it was pulled, then
/// the commands of the outbox folded as if the hub had taken them
/// (docs/SYNC.md, "On a replica"). An `asOf` other than the end names a point of the hub's
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
        let shown = try Replicated<HouseholdViews>.load(journal: path, asOf: stop, useSnapshot: useSnapshot, read: HouseholdViews.read)
        return ReplicaViews(views: shown.views, through: shown.through, pendingEvents: shown.pendingEvents, pending: shown.pending,
                            warnings: shown.warnings)
    }

    /// Saves the journal's snapshots: the views' (with every purchase's
    /// record) and, unless it is a replica, the journal's own chain snapshot.
    /// Returns the engine, whose ``ViewEngine/warnings`` say whether an older
    /// snapshot was used to get there.
    @discardableResult
    public static func saveSnapshots(journal path: String) throws -> ViewEngine {
        let engine = ViewEngine(journalPath: path)
        try engine.refresh()
        try engine.saveSnapshot()
        try saveChainSnapshot(journal: path)
        return engine
    }

    /// Saves the journal's snapshots with the statistics but not the audit's
    /// records (`shop-replay snapshot` without `--with-records`): household-sized,
    /// enough for every view the command line shows but the audit's, which it
    /// streams from the journal. Returns the `seq` they cover and the warnings of the fold.
    @discardableResult
    package static func saveSnapshotsWithoutRecords(journal path: String) throws -> (seq: Int, warnings: [String]) {
        let folding = ViewFolding<StatisticsViews>(journalPath: path)
        try folding.refresh()
        try folding.saveSnapshot()
        try saveChainSnapshot(journal: path)
        return (folding.views.asOf, folding.warnings)
    }

    private static func saveChainSnapshot(journal path: String) throws {
        guard !Replica.isReplica(path) else { return }
        let journal = try SharedJournal.open(path: path)
        defer { journal.close() }
        try journal.saveSnapshot()
    }

    /// The totals the statistics show of the journal or replica at `path`
    /// as of `stop`: read to the end of a journal that is no replica, a fold
    /// that keeps no purchase (``SettledViews/readTotals(journal:useSnapshot:verifyChain:)``);
    /// otherwise ``StatisticsViews`` with the outbox folded in.
    package static func loadTotals(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true) throws -> Replicated<any TotalsFold> {
        guard case .end = stop, !Replica.isReplica(path) else {
            let shown = try Replicated<StatisticsViews>.load(journal: path, asOf: stop, useSnapshot: useSnapshot, read: StatisticsViews.read)
            return Replicated(views: shown.views, through: shown.through, pendingEvents: shown.pendingEvents, pending: shown.pending,
                              warnings: shown.warnings)
        }
        let (views, warnings) = try SettledViews.readTotals(journal: path, useSnapshot: useSnapshot)
        return Replicated(views: views, through: views.asOf, pendingEvents: [], pending: nil, warnings: warnings)
    }
}

/// ``ReplicaViews`` of any fold: the command line's one-view reads, each of
/// which folds what its view shows (see `ViewFolds.swift`).
package struct Replicated<Fold> {
    package var views: Fold
    package var through: Int
    package var pendingEvents: [RecordedEvent]
    package var pending: Int?
    package var warnings: [String]
}

extension Replicated where Fold: StateFold {
    /// The fold of the journal or replica at `path` as of `stop` (`read`: the
    /// fold's own one-shot read, ``HouseholdViews/read(journal:asOf:useSnapshot:verifyChain:)``
    /// and its likes), a replica's outbox folded in at the end.
    package static func load(journal path: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                             read: (String, ReplayStop, Bool, Bool) throws(JournalError) -> (Fold, [String])) throws -> Replicated {
        var (views, warnings) = try read(path, stop, useSnapshot, true)
        let through = views.asOf
        guard Replica.isReplica(path) else { return Replicated(views: views, through: through, pendingEvents: [], pending: nil, warnings: warnings) }
        let replica = try Replica(path: path)
        guard case .end = stop else {
            return Replicated(views: views, through: through, pendingEvents: [], pending: replica.pending.count, warnings: warnings)
        }
        for recorded in replica.pendingEvents { views.apply(recorded) }
        return Replicated(views: views, through: through, pendingEvents: replica.pendingEvents, pending: replica.pending.count, warnings: warnings)
    }
}
