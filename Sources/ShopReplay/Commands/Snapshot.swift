import Foundation
import ShopEvents
import ShopProjections

struct Snapshot: ToolCommand {
    static let name = "snapshot"
    static let summary = "save every view to <journal>.snapshot so that opening is fast"
    static let help = """
    Usage: shop-replay snapshot [--with-records] [--journal PATH] [--json]

    Brings every view up to date and saves it with the seq and line hash it
    covers (<journal>.snapshot), and saves the writer's chain the same way
    (<journal>.chain). Later commands start from them and read only the newer
    events; a stale or damaged snapshot is ignored. Deleting one changes no result.
    The views' snapshot keeps the household and the purchase totals, not every
    purchase: the audit and the report read those from the journal.

    Options:
      --with-records   keep every purchase's audit row in the snapshot too, for
                       apps that show `AuditView` from views held in memory
    \(JournalOptions.help)
    """

    var options: JournalOptions
    var withRecords: Bool

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        withRecords = arguments.flag("--with-records")
    }

    func run() throws -> Int32 {
        let (seq, warnings) = withRecords ? try Self.saveWithRecords(options.journal) : try ReplicaViews.saveSnapshotsWithoutRecords(journal: options.journal)
        for warning in warnings { Tool.fail("warning: \(warning)") }
        let path = ViewSnapshot.path(forJournal: JournalPath.absolute(options.journal))   // as saved, and as before
        let out = Output(json: options.json)
        options.json
            ? out.emit(.object([("ok", true), ("snapshot", .string(path)), ("seq", .int(seq))]))
            : out.line("saved the views as of seq \(seq) to \(path)")
        return 0
    }

    /// Saves the snapshots with every purchase's record (what a ``HouseholdModel`` and the hub read).
    private static func saveWithRecords(_ journal: String) throws -> (seq: Int, warnings: [String]) {
        let engine = try ReplicaViews.saveSnapshots(journal: journal)
        return (engine.views.asOf, engine.warnings)
    }
}
