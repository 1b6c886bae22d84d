import Foundation
import ShopEvents
import ShopProjections

struct Report: ToolCommand {
    static let name = "report"
    static let summary = "write the household report: one HTML page of spending, lists and the audit trail"
    static let help = """
    Usage: shop-replay report [--out FILE] [--from DAY] [--to DAY] [--lang en|de] [--as-of SEQ|TIME] [--journal PATH] [--json]

    Writes one self-contained HTML page (no scripts, no network): spend per
    month, top items by spend and by count, spend per person and per place,
    a calendar of shopping days, trips, the current lists by location, the
    audit trail of the period with reverted purchases marked, and the
    journal's audit head with the command that checks a printout later.
    Every number is the stats and audit views' number. It reads well on a
    phone, in dark mode and printed.

    Options:
      --out FILE       where to write it (default: the journal's name with
                       .report.html, e.g. shop.report.html); written atomically
      --from DAY       only purchases from this day on (a day of the
                       household's time zone, or any time --as-of takes)
      --to DAY         only purchases up to and including this day (not
                       before --from); the page's period is the one asked
                       for, an open end closed by the earliest or latest
                       purchase time shown
      --lang en|de     the page's language: English (the default) or German;
                       the household's own names stay as they are
    \(AsOf.help)
    \(JournalOptions.help)
    """

    var out: String?
    var from: TimeArgument?, to: TimeArgument?
    var asOf: AsOf
    var language = ReportLanguage.english
    var options: JournalOptions

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments)
        out = try arguments.option("--out", "FILE")
        from = try Audit.time(&arguments, "--from")
        to = try Audit.time(&arguments, "--to")
        asOf = try AsOf.parse(&arguments)
        if let code = try arguments.option("--lang", "en|de") {
            guard let chosen = ReportLanguage(rawValue: code) else {
                throw UsageError(message: "--lang is en or de, not \(code)")
            }
            language = chosen
        }
    }

    static func defaultOut(journal: String) -> String {
        let base = journal.hasSuffix(".ndjson") ? String(journal.dropLast(".ndjson".count)) : journal
        return base + ".report.html"
    }

    func run() throws -> Int32 {
        let path = out ?? Self.defaultOut(journal: options.journal)
        let calendar = householdCalendar(journal: options.journal)
        // The state and calendar from the views; the period's purchases streamed from the journal.
        let engine = ViewFolding<StateViews>(journalPath: options.journal)
        let views = try engine.refresh(to: try asOf.stop(calendar: calendar))
        for warning in engine.warnings { Tool.fail("warning: \(warning)") }
        let (start, end) = try TimeArgument.range(from: from, to: to, in: calendar)
        let audit = try AuditQuery(journal: options.journal, views: views, filter: AuditView.Filter(from: start, to: end)).view().purchases
        let written = try Self.write(views: views, audit: audit, position: engine.position, journal: options.journal, to: path,
                                     from: start, until: end, language: language)
        let output = Output(json: options.json)
        options.json
            ? output.emit(.object([("ok", true), ("file", .string(path)), ("bytes", .int(written.bytes)), ("asOf", .int(views.asOf)),
                                   ("head", .string(written.head.description))]))
            : output.line("wrote \(path) (\(written.bytes / 1024) KB, as of event \(views.asOf)); open it in a browser")
        return 0
    }

    /// Renders the report of views with every projection and writes it atomically: a temporary file, `fsync`, rename.
    static func write(views: HouseholdViews, position: JournalPosition, journal: String, to path: String) throws -> (bytes: Int, head: JournalHead) {
        let head = try JournalReader(path: journal, resumingAt: position).head()
        return (try write(HouseholdReport(views: views, head: head, journal: (journal as NSString).lastPathComponent), to: path), head)
    }

    /// Renders the report of views without the audit projection and the period's audit rows (`audit`), and writes it atomically.
    static func write(views: some WholeStateFold, audit: [PurchaseRecord], position: JournalPosition, journal: String, to path: String,
                      from: Timestamp?, until: Timestamp?, language: ReportLanguage = .english) throws -> (bytes: Int, head: JournalHead) {
        let head = try JournalReader(path: journal, resumingAt: position).head()
        var report = HouseholdReport(views: views, audit: audit, head: head, journal: (journal as NSString).lastPathComponent, from: from, to: until)
        report.language = language
        return (try write(report, to: path), head)
    }

    private static func write(_ report: HouseholdReport, to path: String) throws -> Int {
        let bytes = Array(report.html.utf8)
        try DurableFile.writeAtomically(bytes, to: path)
        return bytes.count
    }
}
