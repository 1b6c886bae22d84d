import ShopEvents

/// Where a view's fold comes from: ``ViewQuery``'s one switch from a view's
/// name to the view asks its source for the fold that view is built from,
/// by the kind of fold, and the compiler checks that the fold has what the
/// view reads. ``HouseholdViews`` (the hub's, a model's) is its own source
/// for every kind; the command line's (``JournalFoldSource``) reads only the
/// fold asked for from the journal.
///
/// ```swift
/// func lists(_ source: some ViewFoldSource) throws -> Int { try ListsView(source.presentFold()).lists.count }
/// print(try lists(HouseholdViews()))   // 0
/// ```
public protocol ViewFoldSource {
    /// The household's present or more: lists, a shopping list, locations, members, deleted lists, household.
    associatedtype Present: StateFold
    /// The whole state and the statistics projection: the items views' last purchases, due, prices, suggestions, stores.
    associatedtype Statistics: StatisticsFold
    /// What the source's reads throw; a view's own refusal is one (``failure(_:)``).
    associatedtype Failure: Error
    func presentFold() throws(Failure) -> Present
    func statisticsFold() throws(Failure) -> Statistics
    /// The running totals: the statistics view.
    func totalsFold() throws(Failure) -> any TotalsFold
    /// Every projection, each purchase's record too: the audit and the item view.
    func householdViews() throws(Failure) -> HouseholdViews
    /// A view's refusal, as the source's reads throw.
    static func failure(_ error: ViewQueryError) -> Failure
}

extension HouseholdViews: ViewFoldSource {
    public typealias Present = HouseholdViews
    public typealias Statistics = HouseholdViews
    public typealias Failure = ViewQueryError
    public func presentFold() -> HouseholdViews { self }
    public func statisticsFold() -> HouseholdViews { self }
    public func totalsFold() -> any TotalsFold { self }
    public func householdViews() -> HouseholdViews { self }
    public static func failure(_ error: ViewQueryError) -> ViewQueryError { error }
}

/// The command line's source: each read folds the journal or replica (its
/// outbox too) for the one fold asked for, as of `stop` (see
/// `ViewFolds.swift`); `loaded` is told where each read ends and its warnings.
package struct JournalFoldSource: ViewFoldSource {
    package let journal: String
    package let stop: ReplayStop
    package let useSnapshot: Bool
    /// Called after each read: the fold as read (where the journal's part ends, the outbox's commands, the warnings).
    package let loaded: (_ through: Int, _ pending: Int?, _ warnings: [String]) -> Void

    package init(journal: String, asOf stop: ReplayStop = .end, useSnapshot: Bool = true,
                 loaded: @escaping (_ through: Int, _ pending: Int?, _ warnings: [String]) -> Void = { _, _, _ in }) {
        self.journal = journal; self.stop = stop; self.useSnapshot = useSnapshot; self.loaded = loaded
    }

    private func load<Fold: StateFold>(_ read: (String, ReplayStop, Bool, Bool) throws(JournalError) -> (Fold, [String])) throws -> Fold {
        let shown = try Replicated<Fold>.load(journal: journal, asOf: stop, useSnapshot: useSnapshot, read: read)
        loaded(shown.through, shown.pending, shown.warnings)
        return shown.views
    }

    package func presentFold() throws -> PresentViews { try load(PresentViews.read) }
    package func statisticsFold() throws -> StatisticsViews { try load(StatisticsViews.read) }
    package func householdViews() throws -> HouseholdViews { try load(HouseholdViews.read) }
    /// Read to the end of a journal that is no replica, a fold that keeps no purchase (``ReplicaViews/loadTotals(journal:asOf:useSnapshot:)``).
    package func totalsFold() throws -> any TotalsFold {
        let shown = try ReplicaViews.loadTotals(journal: journal, asOf: stop, useSnapshot: useSnapshot)
        loaded(shown.through, shown.pending, shown.warnings)
        return shown.views
    }
    package static func failure(_ error: ViewQueryError) -> any Error { error }
}
