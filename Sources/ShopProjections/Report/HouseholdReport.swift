import Foundation
import ShopEvents

/// The household report: one self-contained HTML page (inline CSS and SVG,
/// no scripts, no network) that a family or an auditor would rather look at
/// than read — spend per month, top items, people and places, a calendar of
/// shopping days, trips, the current lists, the audit trail of the period,
/// and the journal's audit head with the command that checks it.
///
/// Rendering is a pure function of the views: the same views give the same
/// page, byte for byte, so it is tested without a browser.
///
/// ```swift
/// let engine = ViewEngine(journalPath: "shop.ndjson")
/// let views = try engine.refresh()
/// let head = try JournalReader(path: "shop.ndjson", resumingAt: engine.position).head()
/// let html = HouseholdReport(views: views, head: head, journal: "shop.ndjson").html
/// ```
public struct HouseholdReport: Sendable {
    /// The views it shows: names, stores, trips, the calendar (the purchases come from the audit).
    public var views: any WholeStateFold
    /// The audit head of the journal as of the views.
    public var head: JournalHead
    /// How the `verify` command in the page names the journal.
    public var journal: String
    /// Purchases at or after `from` and before `to` (either may be open).
    public var from: Timestamp?
    public var to: Timestamp?
    /// How many items the top-items charts show.
    public var topCount = 10

    /// The period's audit rows, when the views hold no audit projection (see ``init(views:audit:head:journal:from:to:)``);
    /// nil: taken from the views' own records (``HouseholdViews``).
    public var audit: [PurchaseRecord]?

    /// The report of views with every projection (the audit's records too).
    public init(views: HouseholdViews, head: JournalHead, journal: String, from: Timestamp? = nil, to: Timestamp? = nil) {
        self.views = views; self.head = head; self.journal = journal; self.from = from; self.to = to
    }

    /// The report of views without the audit projection and the period's
    /// audit rows (``AuditQuery`` filtered `from`–`to`): the same page as
    /// from ``HouseholdViews``, with only the period's purchases in memory.
    public init(views: some WholeStateFold, audit: [PurchaseRecord], head: JournalHead, journal: String, from: Timestamp? = nil, to: Timestamp? = nil) {
        self.views = views; self.head = head; self.journal = journal; self.from = from; self.to = to
        self.audit = audit
    }

    public var figures: ReportFigures {
        if let audit { return ReportFigures(views, audit: audit, from: from, to: to) }
        guard let all = views as? HouseholdViews else {
            preconditionFailure("a report of views without the audit projection (\(type(of: views))) needs the period's audit rows")
        }
        return ReportFigures(all, from: from, to: to)
    }

    /// The whole page.
    public var html: String {
        let figures = figures
        var page = HTMLPage()
        let household = views.state.household
        let name = household?.name ?? "A household"
        page.line("<!doctype html>")
        page.line(#"<html lang="en">"#)
        page.line("<head>")
        page.line(#"<meta charset="utf-8">"#)
        page.line(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)
        page.line(#"<meta name="color-scheme" content="light dark">"#)
        page.line("<title>\(escape(name)) — shopping report</title>")
        page.line("<style>\(Self.css)</style>")
        page.line("</head>")
        page.line("<body>")
        page.line("<header>")
        page.line("<h1>\(escape(name)) <span class=\"sub\">shopping report</span></h1>")
        page.line("<p class=\"meta\">\(escape(periodText(figures))) · amounts in \(escape(currency)) · times in \(escape(views.calendar.timeZone.identifier)) · as of event \(views.asOf)</p>")
        page.line("</header>")
        page.line("<main>")
        summary(figures, &page)
        months(figures, &page)
        topItems(figures, &page)
        peopleAndPlaces(figures, &page)
        stores(figures, &page)
        calendar(figures, &page)
        trips(figures, &page)
        lists(&page)
        audit(figures, &page)
        auditHead(&page)
        page.line("</main>")
        page.line("</body>")
        page.line("</html>")
        return page.text
    }

    // MARK: Sections

    private var currency: String { views.state.household?.currency ?? "" }

    private func money(_ minor: Int) -> String {
        let sign = minor < 0 ? "−" : ""
        let value = abs(minor)
        let cents = value % 100
        return "\(sign)\(groupThousands(value / 100)).\(cents < 10 ? "0" : "")\(cents)"
    }

    private func groupThousands(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(digit)
        }
        return out
    }

    private func moneyWithCurrency(_ minor: Int) -> String { "\(money(minor)) \(currency)" }

    /// A row's spend and purchases as a bar: `7.01 · 3×`.
    private func spendBar(_ row: ReportFigures.Row) -> Chart.Bar {
        (row.name, row.tally.spend, "\(money(row.tally.spend)) · \(row.tally.purchases)×")
    }

    /// The days the report covers: the period asked for, an end not asked
    /// for closed by the earliest or latest purchase time shown (the audit
    /// rows are in journal order, not in order of `purchasedAt`); never backwards.
    private func periodText(_ figures: ReportFigures) -> String {
        let calendar = views.calendar
        let times = figures.audit.map(\.purchasedAt)
        let first = figures.from ?? times.min()
        let last = figures.to.map { $0.adding(milliseconds: -1) } ?? times.max()
        switch (first, last) {
        case let (first?, last?) where first > last:
            return "no purchases: the period starts \(calendar.day(first)) and ends \(calendar.day(last))"
        case let (first?, last?): return "\(calendar.day(first)) to \(calendar.day(last))"
        case let (first?, nil): return "from \(calendar.day(first))"
        case let (nil, last?): return "until \(calendar.day(last))"
        case (nil, nil): return "no purchases yet"
        }
    }

    /// A quantity with what it counts: `1.5 kg`; a count of pieces bare in a table's column (`2`), `×2` in running text.
    static func amount(_ quantity: Quantity, _ unit: String?, pieces: String = "") -> String {
        unit.map { "\(quantity) \($0)" } ?? "\(pieces)\(quantity)"
    }

    private func summary(_ figures: ReportFigures, _ page: inout HTMLPage) {
        let reverted = figures.audit.filter(\.isReverted).count
        page.section("summary", "In short")
        page.line("<dl class=\"figures\">")
        for (term, value) in [("Spent", moneyWithCurrency(figures.total.spend)),
                              ("Purchases", "\(figures.total.purchases)"),
                              ("Shopping days", "\(figures.days.count)"),
                              ("Trips", "\(figures.trips.count)"),
                              ("Reverted", "\(reverted)")] {
            page.line("<div><dt>\(term)</dt><dd>\(escape(value))</dd></div>")
        }
        page.line("</dl>")
        if reverted > 0 {
            page.line("<p class=\"note\">Reverted purchases are listed in the audit trail, marked, and counted nowhere else.</p>")
        }
        page.endSection()
    }

    private func months(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("months", "Spend per month")
        guard !figures.months.isEmpty else { return empty(&page, "No purchases in this period.") }
        let rows = figures.months.map { (label: $0.name, value: $0.tally.spend, text: money($0.tally.spend), count: $0.tally.purchases) }
        page.line(Chart.columns(id: "months-chart", title: "Spend per month in \(currency)",
                                description: rows.map { "\($0.label): \($0.text) \(currency)" }.joined(separator: "; "),
                                bars: rows.map { ($0.label, $0.value, $0.text) }))
        table(&page, ["Month", "Purchases", "Spend (\(currency))"], rows.map { [$0.label, "\($0.count)", $0.text] }, numeric: [1, 2])
        page.endSection()
    }

    private func topItems(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("items", "Top items")
        guard !figures.items.isEmpty else { return empty(&page, "No purchases in this period.") }
        let bySpend = ReportFigures.top(figures.items, topCount) { $0.spend }
        let byCount = ReportFigures.top(figures.items, topCount) { $0.purchases }
        // Money and counts: each chart on its own scale, side by side with tracks of one length.
        let spendBars: [Chart.Bar] = bySpend.map { ($0.name, $0.tally.spend, money($0.tally.spend)) }
        let countBars: [Chart.Bar] = byCount.map { ($0.name, $0.tally.purchases, "\($0.tally.purchases)×") }
        let width = Chart.valueWidth([spendBars, countBars])
        page.line("<div class=\"pair\">")
        page.line("<div><h3>By spend</h3>")
        page.line(Chart.bars(id: "items-spend", title: "Top \(counted(bySpend.count, "item")) by spend in \(currency)",
                             bars: spendBars, valueWidth: width))
        page.line("</div><div><h3>By number of purchases</h3>")
        page.line(Chart.bars(id: "items-count", title: "Top \(counted(byCount.count, "item")) by number of purchases",
                             bars: countBars, valueWidth: width))
        page.line("</div></div>")
        table(&page, ["Item", "Purchases", "Quantity", "Spend (\(currency))"],
              figures.items.sorted { ($1.tally.spend, $0.name) < ($0.tally.spend, $1.name) }
                .map { [$0.name, "\($0.tally.purchases)", Self.amount($0.tally.quantity, $0.unit), money($0.tally.spend)] },
              numeric: [1, 2, 3], summary: figures.items.count == 1 ? "1 item as a table" : "All \(figures.items.count) items as a table")
        page.endSection()
    }

    private func peopleAndPlaces(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("people", "Who shopped, and where")
        guard !figures.actors.isEmpty else { return empty(&page, "No purchases in this period.") }
        let people = ReportFigures.top(figures.actors, figures.actors.count) { $0.spend }
        let places = ReportFigures.top(figures.locations, figures.locations.count) { $0.spend }
        // The same spend split two ways, side by side: one scale, tracks of one length.
        let peopleBars = people.map(spendBar), placeBars = places.map(spendBar)
        let (scale, width) = (Chart.scale([peopleBars, placeBars]), Chart.valueWidth([peopleBars, placeBars]))
        page.line("<div class=\"pair\">")
        page.line("<div><h3>Spend per person</h3>")
        page.line(Chart.bars(id: "people-chart", title: "Spend per person in \(currency)", bars: peopleBars, scale: scale, valueWidth: width))
        page.line("</div><div><h3>Spend per place of purchase</h3>")
        page.line(Chart.bars(id: "places-chart", title: "Spend per place of purchase in \(currency)", bars: placeBars, scale: scale, valueWidth: width))
        page.line("</div></div>")
        page.endSection()
    }

    /// Spend per store and what things cost where (SPEC section 10); nothing for a household without stores.
    private func stores(_ figures: ReportFigures, _ page: inout HTMLPage) {
        guard !figures.stores.isEmpty else { return }
        page.section("stores", "Stores and prices")
        page.line(Chart.bars(id: "stores-chart", title: "Spend per store in \(currency)", bars: figures.stores.map(spendBar)))
        let rows = figures.prices.flatMap { item in
            item.rows.enumerated().map { n, row in
                [n == 0 ? item.item + (item.unit.map { " (per \($0))" } ?? "") : "", row.store, money(row.last), money(row.lowest), money(row.highest),
                 "\(row.purchases)", row.cheapest ? "cheapest" : ""]
            }
        }
        table(&page, ["Item", "Store", "Last (\(currency))", "Lowest", "Highest", "Bought", ""], rows, numeric: [2, 3, 4, 5],
              summary: "Prices of \(counted(figures.prices.count, "item")) by store")
        // Each store's own aisle order (SPEC section 11), where one has one: a household without any reads as before.
        let ordered = StoresView.ordered(views)
        if !ordered.isEmpty {
            table(&page, ["Store", "Aisle order"], ordered.map { [$0.name, $0.order.map { views.name(of: $0) }.joined(separator: " → ")] },
                  numeric: [], summary: "Aisle order of \(counted(ordered.count, "store"))")
        }
        page.endSection()
    }

    private func calendar(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("calendar", "Shopping days")
        guard let first = figures.days.first, let last = figures.days.last else { return empty(&page, "No shopping days in this period.") }
        let busiest = figures.days.max { ($0.tally.purchases, $1.day) < ($1.tally.purchases, $0.day) }!
        let busiestText = "\(counted(busiest.tally.purchases, "purchase")) (\(escape(moneyWithCurrency(busiest.tally.spend))))"
        page.line(figures.days.count == 1 ? "<p>1 shopping day, \(first.day), with \(busiestText).</p>"
                  : "<p>\(counted(figures.days.count, "shopping day")) from \(first.day) to \(last.day); the busiest was \(busiest.day) with \(busiestText).</p>")
        page.line(Chart.calendar(id: "calendar-chart", days: figures.days.map {
            ($0.day, $0.tally.purchases, "\($0.day): \(counted($0.tally.purchases, "purchase")), \(money($0.tally.spend)) \(currency)")
        }))
        table(&page, ["Day", "Purchases", "Spend (\(currency))"], figures.days.map { [$0.day, "\($0.tally.purchases)", money($0.tally.spend)] },
              numeric: [1, 2], summary: "Every shopping day as a table")
        page.endSection()
    }

    private func trips(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("trips", "Shopping trips")
        let trips = figures.trips
        guard let mean = trips.meanSeconds else { return empty(&page, "No shopping trip ended in this period.") }
        page.line("<dl class=\"figures\">")
        for (term, value) in [("Trips ended", "\(trips.count)"), ("Time in all", Self.duration(trips.totalSeconds)),
                              ("Mean trip", Self.duration(mean))] {
            page.line("<div><dt>\(term)</dt><dd>\(value)</dd></div>")
        }
        page.line("</dl><p class=\"note\">Paused time is not counted.</p>")
        page.endSection()
    }

    private func lists(_ page: inout HTMLPage) {
        page.section("lists", "The lists now")
        let lists = ListsView(views).lists
        guard !lists.isEmpty else { return empty(&page, "The household has no lists.") }
        for row in lists {
            guard let view = ShoppingListView(views, list: row.id, grouping: .byLocation) else { continue }
            page.line("<article class=\"list\"><h3>\(escape(view.list.name)) <span class=\"sub\">\(view.remaining) to buy · \(view.bought) bought · about \(escape(moneyWithCurrency(view.estimatedTotal)))\(view.unpriced > 0 ? " + \(view.unpriced) without a price" : "")</span></h3>")
            if view.sections.isEmpty { page.line("<p class=\"note\">Nothing to buy.</p>") }
            for section in view.sections {
                page.line("<h4>\(escape(section.title))</h4><ul>")
                for entry in section.entries {
                    let price = entry.unitPrice.map { " · \(money(entry.quantity.cost(unitPrice: $0)))" } ?? ""
                    let who = entry.assignee.map { " <span class=\"who\">for \(escape($0))</span>" } ?? ""
                    page.line("<li>\(escape(entry.name)) <span class=\"qty\">\(escape(Self.amount(entry.quantity, entry.unit, pieces: "×")))\(price)</span>\(who)\(entry.available ? "" : " <em>(out of stock)</em>")</li>")
                }
                page.line("</ul>")
            }
            page.line("</article>")
        }
        page.endSection()
    }

    private func audit(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("audit", "Audit trail")
        guard !figures.audit.isEmpty else { return empty(&page, "No purchases in this period.") }
        page.line("<p>Every purchase of the period in the order it was recorded, with the names things had then. Reverted purchases are struck through, marked <strong>reverted</strong>, and not counted in any total.</p>")
        // A store column where there are stores to name (SPEC section 10); a household without any has none.
        let stores = !views.state.stores.isEmpty || figures.audit.contains { $0.store != nil }
        page.line("<div class=\"scroll\"><table class=\"audit\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">When</th><th scope=\"col\">Who</th><th scope=\"col\">What</th><th scope=\"col\" class=\"num\">Qty</th><th scope=\"col\" class=\"num\">Price</th><th scope=\"col\" class=\"num\">Total</th>\(stores ? "<th scope=\"col\">Store</th>" : "")<th scope=\"col\">Where</th><th scope=\"col\">List</th></tr></thead><tbody>")
        for r in figures.audit {
            let price = r.unitPrice.map(money) ?? "—"
            let total = r.unitPrice == nil ? "—" : money(r.spend)
            // The unit the item has now (a purchase records none); a deleted item's quantity stands bare.
            let quantity = Self.amount(r.quantity, views.state.items[r.item]?.details.unit)
            let store = stores ? "<td>\(escape(r.storeName ?? r.store?.description ?? "—"))</td>" : ""
            page.line("<tr\(r.isReverted ? " class=\"reverted\"" : "")><td class=\"num\">\(r.seq)</td><td>\(escape(views.calendar.minute(r.purchasedAt)))</td><td>\(escape(r.actor))</td><td>\(escape(r.itemName))\(r.isReverted ? " <strong class=\"tag\">reverted</strong>" : "")</td><td class=\"num\">\(escape(quantity))</td><td class=\"num\">\(price)</td><td class=\"num\">\(total)</td>\(store)<td>\(escape(r.locationName))</td><td>\(escape(r.listName ?? "—"))</td></tr>")
        }
        page.line("</tbody><tfoot><tr><th scope=\"row\" colspan=\"6\">Total, reverted purchases excluded</th><td class=\"num\">\(money(figures.total.spend))</td><td colspan=\"\(stores ? 3 : 2)\">\(escape(currency))</td></tr></tfoot></table></div>")
        page.endSection()
    }

    private func auditHead(_ page: inout HTMLPage) {
        page.section("head", "Check this report")
        page.line("<p>This report was made from the journal up to event \(head.seq). Its audit head identifies that whole history: if anyone changes, removes or reorders any earlier event, the head no longer matches.</p>")
        page.line("<p class=\"headline\"><code>\(head)</code></p>")
        page.line("<p>To check a journal against this printout:</p>")
        page.line("<pre><code>shop-replay verify --journal \(escape(Self.shellQuoted(journal))) --expect-head \(head)</code></pre>")
        page.endSection()
    }

    private func empty(_ page: inout HTMLPage, _ text: String) {
        page.line("<p class=\"note\">\(escape(text))</p>")
        page.endSection()
    }

    private func table(_ page: inout HTMLPage, _ headers: [String], _ rows: [[String]], numeric: Set<Int>, summary: String = "As a table") {
        page.line("<details><summary>\(escape(summary))</summary><div class=\"scroll\"><table><thead><tr>")
        for (index, header) in headers.enumerated() {
            page.line("<th scope=\"col\"\(numeric.contains(index) ? " class=\"num\"" : "")>\(escape(header))</th>")
        }
        page.line("</tr></thead><tbody>")
        for row in rows {
            page.line("<tr>" + row.enumerated().map { index, cell in
                "<td\(numeric.contains(index) ? " class=\"num\"" : "")>\(escape(cell))</td>"
            }.joined() + "</tr>")
        }
        page.line("</tbody></table></div></details>")
    }

    /// `5 s` under a minute (a quick trip is not "0 min"), else `12 min`, `1 h 2 min`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        if total < 60 { return "\(total) s" }
        return total >= 3600 ? "\(total / 3600) h \(total % 3600 / 60) min" : "\(total / 60) min"
    }

    /// The path as a POSIX shell reads it: bare where every scalar is a letter, a digit or one of `-_./`,
    /// else in single quotes with each quote written `'\''`. Scalar by scalar, never by `Character`: a
    /// scalar that joins the one after it (a Prepend letter before a quote) would hide the quote.
    static func shellQuoted(_ text: String) -> String {
        let bare = text.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType == .decimal || "-_./".unicodeScalars.contains(scalar)
        }
        if bare { return text }
        var quoted = "'"
        for scalar in text.unicodeScalars {
            if scalar == "'" { quoted += "'\\''" } else { quoted.unicodeScalars.append(scalar) }
        }
        return quoted + "'"
    }
}

/// `1 purchase`, `2 purchases`: a number and its noun (one whose plural adds an s) in agreement.
func counted(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }

/// HTML text with its special characters escaped, byte by byte of its UTF-8.
///
/// Never character by character: a Swift `Character` is a grapheme cluster, and a
/// scalar that joins its neighbour (a Prepend scalar such as U+0600 before `<`, a
/// combining mark after it) makes a cluster that is not `<`, which would pass through
/// unescaped and open a tag. The five ASCII bytes never occur inside a multi-byte
/// UTF-8 sequence, so a byte walk sees every one of them.
func escape(_ text: String) -> String {
    var out: [UInt8] = []
    out.reserveCapacity(text.utf8.count)
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "&"): out += "&amp;".utf8
        case UInt8(ascii: "<"): out += "&lt;".utf8
        case UInt8(ascii: ">"): out += "&gt;".utf8
        case UInt8(ascii: "\""): out += "&quot;".utf8
        case UInt8(ascii: "'"): out += "&#39;".utf8
        default: out.append(byte)
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// The page being written, a line at a time.
struct HTMLPage {
    private(set) var text = ""

    mutating func line(_ line: String) {
        text += line
        text += "\n"
    }

    mutating func section(_ id: String, _ title: String) {
        line("<section id=\"\(id)\" aria-labelledby=\"\(id)-title\"><h2 id=\"\(id)-title\">\(escape(title))</h2>")
    }

    mutating func endSection() { line("</section>") }
}
