import Foundation
import Observation
import ShopEvents

/// Every view of a household, kept up to date for a user interface: SwiftUI
/// observes ``views`` directly (on Linux, `withObservationTracking`).
///
/// It replays the journal once, off the main actor, then folds each new event
/// as ``ShopStore/events(after:)`` delivers it — those this process writes and
/// those any other process appends — without reading the file again.
///
/// ```swift
/// let store = try await ShopStore(path: "shop.ndjson", options: .init(actor: "ana"))
/// let model = try await HouseholdModel(store: store)
/// print(model.views.asOf)
/// try await store.execute(.createList(list: ListID(), name: "Weekend", priority: nil))
/// // a moment later: model.views.asOf has moved on, and observers were told
/// ```
@MainActor @Observable
public final class HouseholdModel {
    /// The views as of the last event folded.
    public private(set) var views: HouseholdViews
    /// The statistics, kept up to date row by row as events arrive (``LiveStats``):
    /// the same as `StatsView(views)`, without rebuilding and sorting every row.
    /// Built when first asked for (at a million events that takes as long as
    /// opening from a snapshot), then updated with every event; observers
    /// of it are told when ``views`` change.
    public var stats: StatsView {
        let views = views   // what observers of the statistics follow
        if let liveStats { return liveStats.view }
        let made = LiveStats(views)
        liveStats = made
        return made.view
    }
    @ObservationIgnored private var liveStats: LiveStats?

    /// What to offer while someone types an item into `list` (``SuggestionsView``):
    /// from a ``SuggestionIndex`` built when first asked for, then updated
    /// with every event, so that each keystroke costs a few lookups. Nil when
    /// `list` is not a list of the household.
    public func suggestions(list: ListID? = nil, prefix: String, limit: Int = SuggestionsView.defaultLimit, now: Timestamp) -> SuggestionsView? {
        let views = views   // what observers of the suggestions follow
        let index = suggestionIndex ?? SuggestionIndex(views)
        suggestionIndex = index
        return SuggestionsView(views, index: index, list: list, prefix: prefix, limit: limit, now: now)
    }
    @ObservationIgnored private var suggestionIndex: SuggestionIndex?
    /// Set if the stream of events ended with an error (a damaged journal).
    public private(set) var failure: (any Error)?

    // Read by deinit, which is not on the main actor: it is set once, in init.
    @ObservationIgnored nonisolated(unsafe) private var updates: Task<Void, Never>?

    /// Replays the journal of `store` (from its snapshot when that holds
    /// every purchase's record, `shop-replay snapshot --with-records`), then
    /// follows it. The views keep all that every view shows, the audit's
    /// records included: every public view (``AuditView``, ``PricesView``,
    /// ``StatsView``, …) built from ``views`` is the view a rebuild of the
    /// journal gives, never a refusal. Memory is by the household's purchases
    /// (one ``PurchaseRecord`` each), as the audit it shows needs.
    public init(store: ShopStore) async throws {
        let path = store.path
        let initial = try await Task.detached { () throws -> HouseholdViews in
            try ViewEngine.views(journal: path).0
        }.value
        views = initial
        let events = store.events(after: initial.asOf)
        updates = Task { [weak self] in
            do {
                for try await recorded in events {
                    guard let self else { return }
                    self.views.apply(recorded)
                    self.liveStats?.update(after: recorded, in: self.views)
                    self.suggestionIndex?.update(after: recorded, in: self.views)
                }
            } catch {
                self?.failure = error
            }
        }
    }

    deinit { updates?.cancel() }
}
