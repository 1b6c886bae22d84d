import Foundation
import ShopEvents
import ShopProjections

struct Audit: ToolCommand {
    static let name = "audit"
    static let summary = "who bought what, when, where and for how much"
    static let help = """
    Usage: shop-replay audit [--actor NAME] [--item ID|NAME] [--list ID|NAME] [--store ID|NAME] [--from TIME]
                             [--to TIME] [--as-of SEQ|TIME] [--journal PATH] [--json | --csv]

    Every purchase ever recorded, in journal order, with the names things had
    at the time; reverted purchases are shown and marked.

    Options:
      --actor NAME     only purchases by this actor
      --item ID|NAME   only purchases of this item (deleted items too)
      --list ID|NAME   only purchases made on this list
      --store ID|NAME  only purchases at this store (deleted stores too)
      --from TIME      only purchases at or after this time; a day (2026-12-01)
                       is a day of the household's time zone, from its start
      --to TIME        only purchases before this time; a day counts whole
                       (--from 2026-11-01 --to 2026-11-30 is November)
      --csv            CSV for a spreadsheet or pandas (RFC 4180, CRLF): a header row of
                       the JSON rows' keys, one row per purchase; unitPrice as a decimal of
                       the currency (2.49), purchasedAt in the household's time zone with
                       its offset (2026-11-26T10:00:00+01:00), an empty field for none
    \(AsOf.help)
    \(JournalOptions.help)
    """

    var actor: String?, item: String?, list: String?, store: String?
    var from: TimeArgument?, to: TimeArgument?
    var asOf: AsOf
    var csv: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        csv = try Self.csvFlag(&arguments, options: options)
        actor = try arguments.option("--actor", "NAME")
        item = try arguments.option("--item", "ID|NAME")
        list = try arguments.option("--list", "ID|NAME")
        store = try arguments.option("--store", "ID|NAME")
        from = try Self.time(&arguments, "--from")
        to = try Self.time(&arguments, "--to")
        asOf = try AsOf.parse(&arguments)
    }

    /// `--csv`, which `--json` excludes.
    static func csvFlag(_ arguments: inout Arguments, options: JournalOptions) throws(UsageError) -> Bool {
        let csv = arguments.flag("--csv")
        if csv, options.json { throw UsageError(message: "--csv and --json are two formats of the same answer: give one") }
        return csv
    }

    static func time(_ arguments: inout Arguments, _ name: String) throws(UsageError) -> TimeArgument? {
        guard let text = try arguments.option(name, "TIME") else { return nil }
        guard let time = TimeArgument.parse(text) else {
            throw UsageError(message: "\(name) expects a time such as 2026-03-01T18:00:00.000Z or a day 2026-03-01, not \"\(text)\"")
        }
        return time
    }

    func run() throws -> Int32 {
        try AuditOutput.show(options, asOf: asOf, csv: csv) { views in
            let calendar = views.calendar
            let (start, end) = try TimeArgument.range(from: from, to: to, in: calendar)
            return AuditView.Filter(actor: actor, item: try item.map { try Lookup.item($0, in: views.state) },
                                    list: try list.map { try Lookup.list($0, in: views.state) },
                                    from: start, to: end, store: try store.map { try Lookup.store($0, in: views.state) })
        }
        return 0
    }
}

/// `audit` and `view audit`: the views (state only) say where the history
/// ends, which purchases were reverted and what the filter's names mean; then
/// ``AuditQuery`` streams the journal. JSON is written row by row as it is
/// read, so memory does not grow with the history; the text table needs
/// every row first (its columns are as wide as the widest cell).
enum AuditOutput {
    static func show(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool = true, csv: Bool = false,
                     filter: (StateViews) throws -> AuditView.Filter) throws {
        let (query, calendar, currency, pending) = try prepare(options, asOf: asOf, useSnapshot: useSnapshot, filter: filter)
        let viewAsOf = query.pending.last?.seq ?? query.through
        if csv {
            // A row at a time, as the JSON; a replica's pending purchases are rows like the others.
            let out = CSVOutput(currency: currency, calendar: calendar)
            var buffer = CSVOutput.line(CSVOutput.auditHeader)
            try query.forEach { row in
                buffer += CSVOutput.line(out.auditRow(row))
                if buffer.utf8.count >= 1 << 16 {
                    Output.write(buffer)
                    buffer = ""
                }
            }
            Output.write(buffer)
            return
        }
        guard options.json else {
            let audit = try query.view()
            Output(json: false).view(audit.json, pending: pending) { TextViews.audit(audit, calendar: calendar) }
            return
        }
        // Exactly `Output.view(AuditView.json)`, a row at a time.
        var buffer = "{\n  \"view\": \"audit\",\n  \"asOf\": \(viewAsOf),\n  \"purchases\": ["
        var rows = 0
        try query.forEach { row in
            buffer += (rows == 0 ? "\n    " : ",\n    ") + AuditView.json(row).text(indentedAt: 2)
            rows += 1
            if buffer.utf8.count >= 1 << 16 {
                Output.write(buffer)
                buffer = ""
            }
        }
        buffer += rows == 0 ? "]" : "\n  ]"
        if let pending { buffer += ",\n  \"pending\": \(pending)" }
        Output.write(buffer + "\n}\n")
    }

    /// The query, with the views dropped before it runs: only the household's state is kept while streaming.
    private static func prepare(_ options: JournalOptions, asOf: AsOf, useSnapshot: Bool,
                                filter: (StateViews) throws -> AuditView.Filter) throws -> (AuditQuery, HouseholdCalendar, String?, Int?) {
        let loaded = try loadFold(options, asOf: asOf, useSnapshot: useSnapshot, read: StateViews.read)
        let query = AuditQuery(journal: options.journal, views: loaded.views, through: loaded.through,
                               pending: loaded.pendingEvents, filter: try filter(loaded.views))
        return (query, loaded.views.calendar, loaded.views.state.household?.currency, loaded.pending)
    }
}
