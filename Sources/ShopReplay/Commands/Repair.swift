import Foundation
import ShopEvents

struct Repair: ToolCommand {
    static let name = "repair"
    static let summary = "show, then with --fix cut, a torn last line (its bytes are kept in a backup)"
    static let help = """
    Usage: shop-replay repair [--fix] [--journal PATH] [--json]

    A crash while writing can leave a last line without its newline, or a
    command whose last lines were never written; an editor, or `echo >>`, can
    leave empty lines at the end. repair shows them; with --fix it copies
    those bytes to <journal>.torn-<time> and cuts them off, as opening the
    journal for writing would. It refuses to touch any other damage: that
    needs a person, not a tool.

    Exit code 0 when there is nothing to repair or the torn line was cut,
    1 when a torn line is shown but not cut, or there is damage it will not touch.

    Options:
      --fix            cut the torn last line (after backing it up)
    \(JournalOptions.help)
    """

    var fix: Bool
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        fix = arguments.flag("--fix")
    }

    func run() throws -> Int32 {
        let report = try JournalVerifier.verify(path: options.journal)
        let out = Output(json: options.json)
        func answer(_ status: String, _ text: String, _ extra: [(String, JSONValue)] = []) {
            options.json
                ? out.emit(.object([("status", .string(status)), ("events", .int(report.events)),
                                    ("head", .string(report.head.description))] + extra))
                : out.line(text)
        }
        guard let failure = report.failure else {
            answer("ok", "nothing to repair: \(Format.count(report.events, "event")), audit head \(report.head)")
            return 0
        }
        guard let torn = report.tornTail else {
            answer("refused", "not repaired: \(failure.message)\nOnly a torn last line can be repaired; this damage needs a person (compare with a backup).",
                   [("error", .object([("line", .optional(failure.line)), ("offset", .optional(failure.offset)), ("reason", .string(failure.message))]))])
            return 1
        }
        let tornJSON: [(String, JSONValue)] = [("torn", .object([("line", .int(torn.line)), ("offset", .int(torn.offset)), ("length", .int(torn.length)),
                                                                 ("commandLines", .int(torn.commandLines)), ("emptyLines", .int(torn.emptyLines))]))]
        guard fix else {
            let what = torn.commandLines > 0
                ? "line \(torn.line) at byte offset \(torn.offset) was never completed: \(Format.count(torn.commandLines, "line")) of a command a crash cut short (\(Format.count(torn.length, "byte")) to the end)"
                : torn.emptyLines > 0
                ? "the journal ends with \(Format.count(torn.emptyLines, "empty line")) from line \(torn.line) at byte offset \(torn.offset) (\(Format.count(torn.length, "byte"))): no journal line is empty"
                : "line \(torn.line) at byte offset \(torn.offset) was never completed: \(Format.count(torn.length, "byte")) without a newline"
            answer("torn", "\(what).\nRun again with --fix to back them up and cut them; the \(Format.count(report.events, "event")) before it stay.", tornJSON)
            return 1
        }
        let journal = try Journal.open(path: options.journal)
        let recovery = journal.recoveredTornTail
        journal.close()
        guard let recovery else {
            answer("ok", "nothing to repair any more: the journal ends with a complete line")
            return 0
        }
        answer("repaired", recovery.summary,
               tornJSON + [("backup", .string(recovery.backupPath))])
        return 0
    }
}
