import Foundation
import ShopEvents
import ShopProjections

struct ImportSL17: ToolCommand {
    static let name = "import-sl17"
    static let summary = "import a ShoppingList17 archive (again: appends nothing)"
    static let help = """
    Usage: shop-replay import-sl17 FILE [--list NAME] [--household NAME] [--currency CODE]
                                        [--time-zone ZONE] [--actor NAME] [--journal PATH] [--json]

    Imports a ShoppingList17 archive: its locations in visiting order (the one
    at visitationOrder 2147483647 is the Unknown Location), its items with
    trimmed names and their availability and quantities, the items on its
    list, and purchase dates. The archive's ids and visitationOrder numbers
    are kept (its Unknown Location's id too), so importing the same file
    again appends nothing and export-sl17 gives them back.

    What the household's rules do not take is mended and said, one line
    each (and in --json, "changes"): a name taken ignoring case gets " (2)",
    an empty or over-long name or one with control characters is mended, a
    quantity or colour is brought into range, an id the archive has twice is
    imported once. Every command is then written at once, or none is.

    Options:
      --list NAME        the list on-list items go on (default: Shopping List)
      --household NAME   for a new journal: the household's name (default: Home)
      --currency CODE    for a new journal: ISO 4217 currency (default: USD)
      --time-zone ZONE   for a new journal: IANA time zone (default: this machine's)
      --actor NAME       who imports (default: $USER)
    \(JournalOptions.help)
    """

    var file: String
    var list: String
    var household: SL17Transfer.NewHousehold
    var actor: String
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        list = try arguments.option("--list", "NAME") ?? SL17Transfer.defaultListName
        household = SL17Transfer.NewHousehold()
        household.name = try arguments.option("--household", "NAME") ?? household.name
        household.currency = try arguments.option("--currency", "CODE") ?? household.currency
        household.timeZone = try arguments.option("--time-zone", "ZONE") ?? household.timeZone
        actor = try ToolJournal.actor(&arguments)
        guard let file = arguments.positional() else { throw UsageError(message: "which archive? give its FILE") }
        self.file = file
    }

    func run() throws -> Int32 {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ToolFailure(message: "cannot read \(file): no such file, or not readable", exitCode: 3)
        }
        let archive: SL17Archive
        do { archive = try SL17Archive.parse(Array(data)) } catch {
            throw ToolFailure(message: "\(file) is not a ShoppingList17 archive: \(error.message)", exitCode: 3)
        }
        let journal = try ToolJournal.open(options.journal, actor: actor)
        defer { journal.close(discardingIfEmpty: true) }
        let plan = SL17Transfer.plan(archive, into: journal.state, listName: list, household: household, ids: .random)
        let commands = plan.commands
        // All or nothing: a rejected command leaves the journal as it was.
        let correlation = CorrelationID()
        let seqs: [Int]
        do {
            seqs = try journal.execute(allOrNothing: commands.map { CommandEnvelope($0, correlation: correlation) }).flatMap(\.seqs)
        } catch let rejection as BatchRejection {
            throw ToolFailure(message: "\(file) cannot be imported, nothing was written: \(commands[rejection.index].typeName) is rejected — \(rejection.violation.code): \(rejection.violation.message)", exitCode: 1)
        }
        let items = archive.locations.reduce(0) { $0 + $1.items.count }
        let onList = archive.locations.reduce(0) { $0 + $1.items.filter(\.onList).count }
        let out = Output(json: options.json)
        if options.json {
            out.emit(.object([("ok", true), ("events", .int(seqs.count)), ("first", .optional(seqs.first)), ("last", .optional(seqs.last)),
                              ("locations", .int(archive.locations.count)), ("items", .int(items)), ("onList", .int(onList)),
                              ("changes", .array(plan.changes.map { change in
                                  .object([("kind", .string(change.kind.rawValue)), ("what", .string(change.what)), ("id", .string(change.id.uuidString)),
                                           ("from", .string(change.from)), ("to", .string(change.to)), ("reason", .string(change.reason))])
                              })),
                              ("head", .string(journal.head.description))]))
        } else if seqs.isEmpty {
            out.line("nothing to import: the journal already holds everything in \(file)")
        } else {
            out.line("imported \(Format.count(archive.locations.count, "location")), \(Format.count(items, "item")) and \(onList) on \(list) from \(file):")
            out.line("\(Format.count(seqs.count, "event")), seq \(seqs.first!)–\(seqs.last!); audit head \(journal.head)")
            for change in plan.changes { out.line(change.summary) }
        }
        return 0
    }
}

struct ExportSL17: ToolCommand {
    static let name = "export-sl17"
    static let summary = "export the household as a ShoppingList17 archive"
    static let help = """
    Usage: shop-replay export-sl17 FILE [--list NAME] [--force] [--as-of SEQ|TIME] [--journal PATH]

    Writes the live locations (visiting order and numbers; Unknown at
    2147483647, with the id an imported archive gave it), their live items,
    which of them are on the list and with what quantity (an item not on it:
    the quantity it goes on a list with), and each item's last purchase date,
    as a ShoppingList17 archive. Importing it into a new journal gives the
    same views; an archive imported and exported again is the same archive
    (docs/TOOL.md lists what an import normalises).

    Options:
      --list NAME      the list whose unbought entries become onList (default: the
                       list called Shopping List, else the first live list by
                       priority and name); the export says which it used
      --force          replace FILE if it exists
    \(AsOf.help)
    \(JournalOptions.help)
    """

    var file: String
    var list: String?
    var force: Bool
    var asOf: AsOf
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        list = try arguments.option("--list", "NAME")
        force = arguments.flag("--force")
        asOf = try AsOf.parse(&arguments)
        guard let file = arguments.positional() else { throw UsageError(message: "where to? give the archive's FILE") }
        self.file = file
    }

    func run() throws -> Int32 {
        if !force, FileManager.default.fileExists(atPath: file) {
            throw UsageError(message: "\(file) exists; pass --force to replace it")
        }
        let views = try loadViews(options, asOf: asOf, history: .none)      // the export needs the state only
        let listID: ListID?
        do { listID = try SL17Transfer.exportList(views.state, named: list) } catch {
            throw UsageError(message: "--list: \(error.message); nothing was written")
        }
        let listName = listID.flatMap { views.state.lists[$0]?.name }
        let archive = SL17Transfer.export(views.state, list: listID)
        do { try Journal.writeAtomically(archive.encoded(), to: file) } catch {
            throw ToolFailure(message: "cannot write \(file): \(error.message)", exitCode: 3)
        }
        let items = archive.locations.reduce(0) { $0 + $1.items.count }
        let onList = archive.locations.reduce(0) { $0 + $1.items.filter(\.onList).count }
        let out = Output(json: options.json)
        options.json
            ? out.emit(.object([("ok", true), ("file", .string(file)), ("locations", .int(archive.locations.count)), ("items", .int(items)),
                                ("list", .optional(listName)), ("onList", .int(onList)), ("asOf", .int(views.asOf))]))
            : out.line("wrote \(file): \(Format.count(archive.locations.count, "location")), \(Format.count(items, "item")), "
                       + (listName.map { "\(onList) on the list from \"\($0)\"" } ?? "nothing on the list (the household has no list)")
                       + " (as of seq \(views.asOf))")
        return 0
    }
}

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
        let engine = ViewEngine(journalPath: options.journal, history: withRecords ? .records : .totals)
        try engine.refresh()
        for warning in engine.warnings { Tool.fail("warning: \(warning)") }
        try engine.saveSnapshot()
        // The writer's side too: opening for writing then reads only what follows.
        // (A sync replica has no writer but sync: its views' snapshot is all there is to save.)
        if !Replica.isReplica(options.journal) {
            let journal = try Journal.openShared(path: options.journal)
            defer { journal.close() }
            try journal.saveSnapshot()
        }
        let out = Output(json: options.json)
        options.json
            ? out.emit(.object([("ok", true), ("snapshot", .string(engine.snapshotPath)), ("seq", .int(engine.views.asOf))]))
            : out.line("saved the views as of seq \(engine.views.asOf) to \(engine.snapshotPath)")
        return 0
    }
}
