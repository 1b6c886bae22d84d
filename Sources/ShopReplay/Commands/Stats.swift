import Foundation
import ShopEvents
import ShopProjections

struct Stats: ToolCommand {
    static let name = "stats"
    static let summary = "spending per item, month, person and place; shopping trips"
    static let help = """
    Usage: shop-replay stats [--as-of SEQ|TIME] [--journal PATH] [--json]

    Statistics of the household's purchases: per item (purchases, quantity,
    spend, first and last purchase, mean days between purchases), per calendar
    month in the household's time zone, per person, per place of purchase, and
    the ended shopping trips. Reverted purchases never count.

    Options:
    \(AsOf.help)
    \(JournalOptions.help)
    """

    var asOf: AsOf
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        asOf = try AsOf.parse(&arguments)
    }

    func run() throws -> Int32 {
        try showStats(options, asOf: asOf)
        return 0
    }
}
