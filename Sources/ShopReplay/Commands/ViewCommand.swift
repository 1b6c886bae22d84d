import Foundation
import ShopEvents
import ShopProjections

/// The views a journal can show, by their names in docs/VIEWS.md (``ViewQuery/Name``).
typealias ViewName = ViewQuery.Name

/// A fold's own one-shot read: ``HouseholdViews``' `read(journal:asOf:useSnapshot:verifyChain:)` and its likes.
typealias FoldRead<Fold> = (String, ReplayStop, Bool, Bool) throws(JournalError) -> (Fold, [String])

/// Loads a fold of a journal as of a point (`read`: which fold, by its own
/// read; see `ViewFolds.swift`), saying why a snapshot was not used. A
/// replica shows the optimistic state: the hub's history, then the outbox
/// (not with `--as-of`, which names a point of the hub's history); the
/// result says where the journal's part ends (`through`), which events the
/// outbox added and how many commands it holds (`nil` for a journal that is no replica).
func loadFold<Fold: StateFold>(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true, read: FoldRead<Fold>) throws -> Replicated<Fold> {
    let stop = try asOf.stop(calendar: householdCalendar(journal: options.journal))
    var loaded = try Replicated<Fold>.load(journal: options.journal, asOf: stop, useSnapshot: useSnapshot, read: read)
    if case let .seq(wanted) = stop, loaded.through < wanted, !loaded.warnings.contains(where: { $0.contains("newer ShopEvents") }) {
        loaded.warnings.append("--as-of \(wanted) is past the journal's end: it holds \(Format.count(loaded.through, "event")), so this is as of seq \(loaded.through), the last")
    }
    for warning in loaded.warnings { Tool.fail("warning: \(warning)") }
    return loaded
}

/// The command line's source of a view's fold (``JournalFoldSource``): only
/// the fold the view is built from is read, as ``loadFold(_:asOf:useSnapshot:read:)``
/// reads it, its warnings said; `pending` is set to the replica's outbox
/// size once it is read. The statistics read to the end of a journal that is
/// no replica keep no purchase (`SettledViews.readTotals`): the same
/// statistics in memory by the household.
struct ToolFoldSource {
    private final class Noted { var pending: Int? }
    private let noted = Noted()
    let source: JournalFoldSource
    var pending: Int? { noted.pending }

    init(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true) throws {
        let stop: ReplayStop = if case .end = asOf { .end } else { try asOf.stop(calendar: householdCalendar(journal: options.journal)) }
        let noted = noted
        source = JournalFoldSource(journal: options.journal, asOf: stop, useSnapshot: useSnapshot) { through, pending, warnings in
            noted.pending = pending
            for warning in Self.warnings(warnings, through: through, stop: stop) { Tool.fail("warning: \(warning)") }
        }
    }

    /// The warnings of a read, and one for an `--as-of` past the journal's end.
    static func warnings(_ warnings: [String], through: Int, stop: ReplayStop) -> [String] {
        if case let .seq(wanted) = stop, through < wanted, !warnings.contains(where: { $0.contains("newer ShopEvents") }) {
            return warnings + ["--as-of \(wanted) is past the journal's end: it holds \(Format.count(through, "event")), so this is as of seq \(through), the last"]
        }
        return warnings
    }

    /// `pending` as the JSON's last key.
    var extra: [(String, JSONValue)] { pending.map { [("pending", .int($0))] } ?? [] }
}

/// Shows the statistics (`view stats`, `stats`). JSON is written straight
/// from the views, each item and place row made as it is written
/// (``StatsView/writeJSON(of:adding:to:)``): the fold and every row are never
/// in memory together. Text, whose columns are aligned over all the rows, is
/// made from the whole view, the views let go first.
func showStats(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true) throws {
    let folds = try ToolFoldSource(options, asOf: asOf, useSnapshot: useSnapshot)
    if options.json {
        try ViewQuery(view: .stats).write(folds.source, clock: Clock.system.now(), adding: folds.extra) { Output.write(bytes: $0) }
        return
    }
    let (stats, currency, calendar) = try {
        let views = try folds.source.totalsFold()
        return (StatsView(views), views.state.household?.currency, views.calendar)
    }()
    Output(json: false).view(.null, pending: folds.pending) { TextViews.stats(stats, currency: currency, calendar: calendar) }
}

struct ViewCommand: ToolCommand {
    static let name = "view"
    static let summary = "show a view: shopping list, lists, locations, items, audit, stats, share text, due, prices, suggestions, stores, household, item"
    static let help = """
    Usage: shop-replay view NAME [--list ID|NAME] [--for MEMBER] [--store ID|NAME] [--item ID|NAME] [--now TIME]
                                 [--prefix TEXT] [--limit N] [--as-of SEQ|TIME] [--actor NAME] [--journal PATH] [--json]

    Shows one view of the household, rebuilt from the journal (from its
    snapshot when there is a good one).

    Views:
      shopping-list-by-location   one list's unbought entries by store location, with totals
      shopping-list-by-name       the same, by name
      list-detail                 one list in manual order, bought entries last (each with the purchase that bought it)
      lists                       the live lists by priority
      deleted-lists               soft-deleted lists that can be restored
      locations                   locations in visiting order with item counts
      all-items-by-name           every item, where it is, which lists, last purchase
      all-items-by-purchase-date  items by the day they were last bought
      audit                       every purchase (see also: shop-replay audit)
      stats                       statistics (see also: shop-replay stats)
      share-text                  a list as plain text for a message
      members                     who belongs to the household, with roles
      due                         staples due again: bought 3+ times, not on a list, as long since as usual
      prices                      what each item cost at each store: last, lowest and highest in a year, cheapest
      suggestions                 items to offer while typing one into a list: due first, then bought most in 90 days
      stores                      the live stores: each one's order of locations, purchases, spend, last purchase
      household                   the household (name, currency, time zone), open or not, every trip under way and its shopper
      item                        one item (--item): its details, lists, prices per store, last 20 purchases

    Options:
      --list ID|NAME   the list, for the list views (default: the first of `view lists`)
      --for MEMBER     the shopping list views, share-text: only MEMBER's entries and those assigned to nobody,
                       following MEMBER's running trip; household: MEMBER's trip is "trip"
                       (in a household with members, MEMBER must be one: unknown_member)
      --actor NAME     who is asking, where --for is not given: whose running trip shopping-list-by-location,
                       share-text and household follow (default: the actor a replica was enrolled as, else $USER);
                       another shopper's trip is never followed
      --store ID|NAME  shopping-list-by-location: sections in that live store's order (default: the store of
                       your trip running now, else the household's order); the view names the store it used
      --item ID|NAME   prices: that item only; item: the item to show, deleted ones too (a barcode names its item too)
    \(ViewCommand.suggestionsHelp)
      --now TIME       due, suggestions, household: count the days (the trip's time) to TIME (2026-11-26T10:00:00Z, or a
                       day: its start in the household's time zone) rather than to the clock; with --as-of, they are
                       counted to the time of that event unless --now is given
    \(AsOf.help)
      --no-snapshot    ignore <journal>.snapshot and replay the whole journal
    \(JournalOptions.help)
    """

    var query: ViewQuery
    var view: ViewName { query.view }
    var asOf: AsOf { query.asOf }
    var useSnapshot: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        let list = try arguments.option("--list", "ID|NAME")
        let member = try arguments.option("--for", "MEMBER")
        let item = try arguments.option("--item", "ID|NAME")
        let store = try arguments.option("--store", "ID|NAME")
        let now = try Audit.time(&arguments, "--now")
        let prefix = try arguments.option("--prefix", "TEXT")
        let limit = try arguments.number("--limit", "N", in: 1...ViewQuery.maxLimit)
        let asOf = try AsOf.parse(&arguments)
        let shopper = try ToolJournal.optionalActor(&arguments, journal: options.journal)
        useSnapshot = !arguments.flag("--no-snapshot")
        guard let name = arguments.positional() else {
            throw UsageError(message: "which view? expected one of \(ViewName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard let view = ViewName(rawValue: name) ?? ViewName.aliases[name] else {
            throw UsageError(message: "there is no view \"\(name)\"; expected one of \(ViewName.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        do throws(ViewQueryError) {
            query = try ViewQuery(view: view, list: list, member: member, item: item, store: store, prefix: prefix, limit: limit,
                                  now: now, asOf: asOf, shopper: shopper)
        } catch { throw UsageError(message: error.message) }
    }

    func run() throws -> Int32 {
        if view == .audit {
            try AuditOutput.show(options, asOf: asOf, useSnapshot: useSnapshot) { _ in AuditView.Filter() }
            return 0
        }
        if view == .stats {
            try showStats(options, asOf: asOf, useSnapshot: useSnapshot)
            return 0
        }
        try show(ToolFoldSource(options, asOf: asOf, useSnapshot: useSnapshot))
        return 0
    }

    /// Shows the view, its fold read from `folds`, as JSON or text.
    private func show(_ folds: ToolFoldSource) throws {
        do {
            if options.json {
                try query.write(folds.source, clock: Clock.system.now(), adding: folds.extra) { Output.write(bytes: $0) }
            } else {
                let text = try showText(folds.source)
                Output(json: false).view(.null, pending: folds.pending) { text }
            }
        } catch let error as ViewQueryError { throw UsageError(message: error.message) }
    }
}
