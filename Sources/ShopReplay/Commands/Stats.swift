import Foundation
import ShopEvents
import ShopProjections

struct Stats: ToolCommand {
    static let name = "stats"
    static let summary = "spending per item, month, person and place; shopping trips"
    static let help = """
    Usage: shop-replay stats [--as-of SEQ|TIME] [--journal PATH] [--json | --csv]

    Statistics of the household's purchases: per item (purchases, quantity,
    spend, first and last purchase, mean days between purchases), per calendar
    month in the household's time zone, per person, per place of purchase, and
    the ended shopping trips. Reverted purchases never count.

    Options:
      --csv            the statistics per item as CSV for a spreadsheet or pandas (RFC 4180,
                       CRLF): a header row of the JSON items' keys, one row per item; spend
                       as a decimal of the currency (2.49), first and last in the household's
                       time zone with their offset (2026-11-26T10:00:00+01:00)
    \(AsOf.help)
    \(JournalOptions.help)
    """

    var asOf: AsOf
    var csv: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        csv = try Audit.csvFlag(&arguments, options: options)
        asOf = try AsOf.parse(&arguments)
    }

    func run() throws -> Int32 {
        guard csv else {
            try showStats(options, asOf: asOf)
            return 0
        }
        let (stats, currency, calendar) = try {
            let views = try ToolFoldSource(options, asOf: asOf).source.totalsFold()
            return (StatsView(views), views.state.household?.currency, views.calendar)
        }()
        let out = CSVOutput(currency: currency, calendar: calendar)
        Output.write(CSVOutput.line(CSVOutput.statsHeader) + stats.items.map { CSVOutput.line(out.statsRow($0)) }.joined())
        return 0
    }
}
