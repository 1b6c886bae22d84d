import Foundation
import ShopEvents
import ShopProjections

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
        let views = try loadFold(options, asOf: asOf, read: StateViews.read).views      // the export needs the state only
        let listID: ListID?
        do { listID = try SL17Transfer.exportList(views.state, named: list) } catch {
            throw UsageError(message: "--list: \(error.message); nothing was written")
        }
        let listName = listID.flatMap { views.state.lists[$0]?.name }
        let archive = SL17Transfer.export(views.state, list: listID)
        do { try DurableFile.writeAtomically(archive.encoded(), to: file) } catch {
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
