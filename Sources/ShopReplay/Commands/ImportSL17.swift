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
        } else if let first = seqs.first, let last = seqs.last {
            out.line("imported \(Format.count(archive.locations.count, "location")), \(Format.count(items, "item")) and \(onList) on \(list) from \(file):")
            out.line("\(Format.count(seqs.count, "event")), seq \(first)–\(last); audit head \(journal.head)")
            for change in plan.changes { out.line(change.summary) }
        } else {
            out.line("nothing to import: the journal already holds everything in \(file)")
        }
        return 0
    }
}
