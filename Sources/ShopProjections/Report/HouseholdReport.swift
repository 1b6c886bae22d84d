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
    /// The language the page is written in (the household's own words stay as they are).
    public var language: ReportLanguage = .english

    private var w: ReportWords { ReportWords(language: language) }

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
        let name = household?.name ?? w.say("A household", "Ein Haushalt")
        page.line("<!doctype html>")
        page.line("<html lang=\"\(language.rawValue)\">")
        page.line("<head>")
        page.line(#"<meta charset="utf-8">"#)
        page.line(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#)
        page.line(#"<meta name="color-scheme" content="light dark">"#)
        page.line("<title>\(escape(name)) — \(w.say("shopping report", "Einkaufsbericht"))</title>")
        page.line("<style>\(Self.css)</style>")
        page.line("</head>")
        page.line("<body>")
        page.line("<header>")
        page.line("<h1>\(escape(name)) <span class=\"sub\">\(w.say("shopping report", "Einkaufsbericht"))</span></h1>")
        page.line("<p class=\"meta\">\(escape(periodText(figures))) · \(w.say("amounts in", "Beträge in")) \(escape(currency)) · \(w.say("times in", "Zeiten in")) \(escape(views.calendar.timeZone.identifier)) · \(w.say("as of event", "Stand: Ereignis")) \(views.asOf)</p>")
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
        return "\(sign)\(groupThousands(value / 100))\(w.separators.decimal)\(cents < 10 ? "0" : "")\(cents)"
    }

    private func groupThousands(_ n: Int) -> String {
        let digits = Array(String(n))
        var out = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { out += w.separators.thousands }
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
            return w.say("no purchases: the period starts \(calendar.day(first)) and ends \(calendar.day(last))",
                         "keine Einkäufe: der Zeitraum beginnt am \(calendar.day(first)) und endet am \(calendar.day(last))")
        case let (first?, last?): return w.say("\(calendar.day(first)) to \(calendar.day(last))", "\(calendar.day(first)) bis \(calendar.day(last))")
        case let (first?, nil): return w.say("from \(calendar.day(first))", "ab \(calendar.day(first))")
        case let (nil, last?): return w.say("until \(calendar.day(last))", "bis \(calendar.day(last))")
        case (nil, nil): return w.say("no purchases yet", "noch keine Einkäufe")
        }
    }

    /// A quantity with what it counts: `1.5 kg`; a count of pieces bare in a table's column (`2`), `×2` in running text.
    static func amount(_ quantity: Quantity, _ unit: String?, pieces: String = "") -> String {
        unit.map { "\(quantity) \($0)" } ?? "\(pieces)\(quantity)"
    }

    private func summary(_ figures: ReportFigures, _ page: inout HTMLPage) {
        let reverted = figures.audit.filter(\.isReverted).count
        page.section("summary", w.say("In short", "Kurz gesagt"))
        page.line("<dl class=\"figures\">")
        for (term, value) in [(w.say("Spent", "Ausgegeben"), moneyWithCurrency(figures.total.spend)),
                              (w.say("Purchases", "Einkäufe"), "\(figures.total.purchases)"),
                              (w.say("Shopping days", "Einkaufstage"), "\(figures.days.count)"),
                              (w.say("Trips", "Einkaufsgänge"), "\(figures.trips.count)"),
                              (w.say("Reverted", "Rückgängig gemacht"), "\(reverted)")] {
            page.line("<div><dt>\(term)</dt><dd>\(escape(value))</dd></div>")
        }
        page.line("</dl>")
        if reverted > 0 {
            page.line("<p class=\"note\">\(w.say("Reverted purchases are listed in the audit trail, marked, and counted nowhere else.", "Rückgängig gemachte Einkäufe stehen markiert im Prüfprotokoll und zählen sonst nirgends."))</p>")
        }
        page.endSection()
    }

    private func months(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("months", w.say("Spend per month", "Ausgaben je Monat"))
        guard !figures.months.isEmpty else { return empty(&page, noPurchases) }
        let rows = figures.months.map { (label: $0.name, value: $0.tally.spend, text: money($0.tally.spend), count: $0.tally.purchases) }
        page.line(Chart.columns(id: "months-chart", title: w.say("Spend per month in \(currency)", "Ausgaben je Monat in \(currency)"),
                                description: rows.map { "\($0.label): \($0.text) \(currency)" }.joined(separator: "; "),
                                bars: rows.map { ($0.label, $0.value, $0.text) }))
        table(&page, [w.say("Month", "Monat"), w.say("Purchases", "Einkäufe"), w.say("Spend (\(currency))", "Ausgaben (\(currency))")], rows.map { [$0.label, "\($0.count)", $0.text] }, numeric: [1, 2])
        page.endSection()
    }

    private func topItems(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("items", w.say("Top items", "Die meistgekauften Artikel"))
        guard !figures.items.isEmpty else { return empty(&page, noPurchases) }
        let bySpend = ReportFigures.top(figures.items, topCount) { $0.spend }
        let byCount = ReportFigures.top(figures.items, topCount) { $0.purchases }
        // Money and counts: each chart on its own scale, side by side with tracks of one length.
        let spendBars: [Chart.Bar] = bySpend.map { ($0.name, $0.tally.spend, money($0.tally.spend)) }
        let countBars: [Chart.Bar] = byCount.map { ($0.name, $0.tally.purchases, "\($0.tally.purchases)×") }
        let width = Chart.valueWidth([spendBars, countBars])
        page.line("<div class=\"pair\">")
        page.line("<div><h3>\(w.say("By spend", "Nach Ausgaben"))</h3>")
        page.line(Chart.bars(id: "items-spend", title: w.say("Top \(counted(bySpend.count, "item")) by spend in \(currency)",
                                                             "\(bySpend.count) Artikel mit den höchsten Ausgaben in \(currency)"),
                             bars: spendBars, valueWidth: width))
        page.line("</div><div><h3>\(w.say("By number of purchases", "Nach Zahl der Einkäufe"))</h3>")
        page.line(Chart.bars(id: "items-count", title: w.say("Top \(counted(byCount.count, "item")) by number of purchases",
                                                             "\(byCount.count) Artikel, am häufigsten gekauft"),
                             bars: countBars, valueWidth: width))
        page.line("</div></div>")
        table(&page, [w.say("Item", "Artikel"), w.say("Purchases", "Einkäufe"), w.say("Quantity", "Menge"), w.say("Spend (\(currency))", "Ausgaben (\(currency))")],
              figures.items.sorted { ($1.tally.spend, $0.name) < ($0.tally.spend, $1.name) }
                .map { [$0.name, "\($0.tally.purchases)", Self.amount($0.tally.quantity, $0.unit), money($0.tally.spend)] },
              numeric: [1, 2, 3], summary: figures.items.count == 1 ? w.say("1 item as a table", "1 Artikel als Tabelle")
                : w.say("All \(figures.items.count) items as a table", "Alle \(figures.items.count) Artikel als Tabelle"))
        page.endSection()
    }

    private func peopleAndPlaces(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("people", w.say("Who shopped, and where", "Wer wo eingekauft hat"))
        guard !figures.actors.isEmpty else { return empty(&page, noPurchases) }
        let people = ReportFigures.top(figures.actors, figures.actors.count) { $0.spend }
        let places = ReportFigures.top(figures.locations, figures.locations.count) { $0.spend }
        // The same spend split two ways, side by side: one scale, tracks of one length.
        let peopleBars = people.map(spendBar), placeBars = places.map(spendBar)
        let (scale, width) = (Chart.scale([peopleBars, placeBars]), Chart.valueWidth([peopleBars, placeBars]))
        page.line("<div class=\"pair\">")
        page.line("<div><h3>\(w.say("Spend per person", "Ausgaben je Person"))</h3>")
        page.line(Chart.bars(id: "people-chart", title: w.say("Spend per person in \(currency)", "Ausgaben je Person in \(currency)"), bars: peopleBars, scale: scale, valueWidth: width))
        page.line("</div><div><h3>\(w.say("Spend per place of purchase", "Ausgaben je Einkaufsort"))</h3>")
        page.line(Chart.bars(id: "places-chart", title: w.say("Spend per place of purchase in \(currency)", "Ausgaben je Einkaufsort in \(currency)"), bars: placeBars, scale: scale, valueWidth: width))
        page.line("</div></div>")
        page.endSection()
    }

    /// Spend per store and what things cost where; nothing for a household without stores.
    private func stores(_ figures: ReportFigures, _ page: inout HTMLPage) {
        guard !figures.stores.isEmpty else { return }
        page.section("stores", w.say("Stores and prices", "Geschäfte und Preise"))
        page.line(Chart.bars(id: "stores-chart", title: w.say("Spend per store in \(currency)", "Ausgaben je Geschäft in \(currency)"),
                             bars: figures.stores.map { spendBar($0.key.isEmpty ? { var row = $0; row.name = noStore; return row }($0) : $0) }))
        let rows = figures.prices.flatMap { item in
            item.rows.enumerated().map { n, row in
                [n == 0 ? item.item + (item.unit.map { w.say(" (per \($0))", " (je \($0))") } ?? "") : "", row.store == StatsView.noStoreName ? noStore : row.store, money(row.last), money(row.lowest), money(row.highest),
                 "\(row.purchases)", row.cheapest ? w.say("cheapest", "am günstigsten") : ""]
            }
        }
        table(&page, [w.say("Item", "Artikel"), w.say("Store", "Geschäft"), w.say("Last (\(currency))", "Zuletzt (\(currency))"), w.say("Lowest", "Niedrigster"),
                      w.say("Highest", "Höchster"), w.say("Bought", "Gekauft"), ""], rows, numeric: [2, 3, 4, 5],
              summary: w.say("Prices of \(counted(figures.prices.count, "item")) by store", "Preise von \(w.counted(figures.prices.count, "item", ("Artikel", "Artikeln"))) je Geschäft"))
        // Each store's own aisle order, where one has one: a household without any reads as before.
        let ordered = StoresView.ordered(views)
        if !ordered.isEmpty {
            table(&page, [w.say("Store", "Geschäft"), w.say("Aisle order", "Reihenfolge der Gänge")], ordered.map { [$0.name, $0.order.map { views.name(of: $0) }.joined(separator: " → ")] },
                  numeric: [], summary: w.say("Aisle order of \(counted(ordered.count, "store"))",
                                              "Reihenfolge der Gänge in \(w.counted(ordered.count, "store", ("Geschäft", "Geschäften")))"))
        }
        page.endSection()
    }

    private func calendar(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("calendar", w.say("Shopping days", "Einkaufstage"))
        guard let first = figures.days.first, let last = figures.days.last else {
            return empty(&page, w.say("No shopping days in this period.", "Keine Einkaufstage in diesem Zeitraum."))
        }
        let busiest = figures.days.max { ($0.tally.purchases, $1.day) < ($1.tally.purchases, $0.day) }!
        let busiestText = "\(purchases(busiest.tally.purchases)) (\(escape(moneyWithCurrency(busiest.tally.spend))))"
        page.line(figures.days.count == 1 ? w.say("<p>1 shopping day, \(first.day), with \(busiestText).</p>", "<p>1 Einkaufstag, \(first.day), mit \(busiestText).</p>")
                  : w.say("<p>\(counted(figures.days.count, "shopping day")) from \(first.day) to \(last.day); the busiest was \(busiest.day) with \(busiestText).</p>",
                          "<p>\(figures.days.count) Einkaufstage vom \(first.day) bis \(last.day); der meiste war am \(busiest.day) mit \(busiestText).</p>"))
        page.line(Chart.calendar(id: "calendar-chart", days: figures.days.map {
            ($0.day, $0.tally.purchases, "\($0.day): \(purchases($0.tally.purchases)), \(money($0.tally.spend)) \(currency)")
        }, words: w))
        table(&page, [w.say("Day", "Tag"), w.say("Purchases", "Einkäufe"), w.say("Spend (\(currency))", "Ausgaben (\(currency))")], figures.days.map { [$0.day, "\($0.tally.purchases)", money($0.tally.spend)] },
              numeric: [1, 2], summary: w.say("Every shopping day as a table", "Jeder Einkaufstag als Tabelle"))
        page.endSection()
    }

    private func trips(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("trips", w.say("Shopping trips", "Einkaufsgänge"))
        let trips = figures.trips
        guard let mean = trips.meanSeconds else { return empty(&page, w.say("No shopping trip ended in this period.", "Kein Einkaufsgang endete in diesem Zeitraum.")) }
        page.line("<dl class=\"figures\">")
        for (term, value) in [(w.say("Trips ended", "Beendete Einkaufsgänge"), "\(trips.count)"), (w.say("Time in all", "Zeit insgesamt"), Self.duration(trips.totalSeconds)),
                              (w.say("Mean trip", "Mittlerer Einkaufsgang"), Self.duration(mean))] {
            page.line("<div><dt>\(term)</dt><dd>\(value)</dd></div>")
        }
        page.line("</dl><p class=\"note\">\(w.say("Paused time is not counted.", "Pausen zählen nicht mit."))</p>")
        page.endSection()
    }

    private func lists(_ page: inout HTMLPage) {
        page.section("lists", w.say("The lists now", "Die Listen jetzt"))
        let lists = ListsView(views).lists
        guard !lists.isEmpty else { return empty(&page, w.say("The household has no lists.", "Der Haushalt hat keine Listen.")) }
        for row in lists {
            guard let view = ShoppingListView(views, list: row.id, grouping: .byLocation) else { continue }
            page.line("<article class=\"list\"><h3>\(escape(view.list.name)) <span class=\"sub\">\(w.say("\(view.remaining) to buy · \(view.bought) bought · about", "\(view.remaining) zu kaufen · \(view.bought) gekauft · etwa")) \(escape(moneyWithCurrency(view.estimatedTotal)))\(view.unpriced > 0 ? w.say(" + \(view.unpriced) without a price", " + \(view.unpriced) ohne Preis") : "")</span></h3>")
            if view.sections.isEmpty { page.line("<p class=\"note\">\(w.say("Nothing to buy.", "Nichts zu kaufen."))</p>") }
            for section in view.sections {
                page.line("<h4>\(escape(section.title))</h4><ul>")
                for entry in section.entries {
                    let price = entry.unitPrice.map { " · \(money(entry.quantity.cost(unitPrice: $0)))" } ?? ""
                    let who = entry.assignee.map { " <span class=\"who\">\(w.say("for", "für")) \(escape($0))</span>" } ?? ""
                    page.line("<li>\(escape(entry.name)) <span class=\"qty\">\(escape(Self.amount(entry.quantity, entry.unit, pieces: "×")))\(price)</span>\(who)\(entry.available ? "" : " <em>\(w.say("(out of stock)", "(nicht vorrätig)"))</em>")</li>")
                }
                page.line("</ul>")
            }
            page.line("</article>")
        }
        page.endSection()
    }

    private func audit(_ figures: ReportFigures, _ page: inout HTMLPage) {
        page.section("audit", w.say("Audit trail", "Prüfprotokoll"))
        guard !figures.audit.isEmpty else { return empty(&page, noPurchases) }
        page.line(w.say("<p>Every purchase of the period in the order it was recorded, with the names things had then. Reverted purchases are struck through, marked <strong>reverted</strong>, and not counted in any total.</p>",
                        "<p>Jeder Einkauf des Zeitraums in der Reihenfolge, in der er festgehalten wurde, mit den Namen, die die Dinge damals hatten. Rückgängig gemachte Einkäufe sind durchgestrichen, als <strong>rückgängig</strong> markiert und in keiner Summe gezählt.</p>"))
        // A store column where there are stores to name; a household without any has none.
        let stores = !views.state.stores.isEmpty || figures.audit.contains { $0.store != nil }
        page.line("<div class=\"scroll\"><table class=\"audit\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">\(w.say("When", "Wann"))</th><th scope=\"col\">\(w.say("Who", "Wer"))</th><th scope=\"col\">\(w.say("What", "Was"))</th><th scope=\"col\" class=\"num\">\(w.say("Qty", "Menge"))</th><th scope=\"col\" class=\"num\">\(w.say("Price", "Preis"))</th><th scope=\"col\" class=\"num\">\(w.say("Total", "Summe"))</th>\(stores ? "<th scope=\"col\">\(w.say("Store", "Geschäft"))</th>" : "")<th scope=\"col\">\(w.say("Where", "Wo"))</th><th scope=\"col\">\(w.say("List", "Liste"))</th></tr></thead><tbody>")
        for r in figures.audit {
            let price = r.unitPrice.map(money) ?? "—"
            let total = r.unitPrice == nil ? "—" : money(r.spend)
            // The unit the item has now (a purchase records none); a deleted item's quantity stands bare.
            let quantity = Self.amount(r.quantity, views.state.items[r.item]?.details.unit)
            let store = stores ? "<td>\(escape(r.storeName ?? r.store?.description ?? "—"))</td>" : ""
            page.line("<tr\(r.isReverted ? " class=\"reverted\"" : "")><td class=\"num\">\(r.seq)</td><td>\(escape(views.calendar.minute(r.purchasedAt)))</td><td>\(escape(r.actor))</td><td>\(escape(r.itemName))\(r.isReverted ? " <strong class=\"tag\">\(w.say("reverted", "rückgängig"))</strong>" : "")</td><td class=\"num\">\(escape(quantity))</td><td class=\"num\">\(price)</td><td class=\"num\">\(total)</td>\(store)<td>\(escape(r.locationName))</td><td>\(escape(r.listName ?? "—"))</td></tr>")
        }
        page.line("</tbody><tfoot><tr><th scope=\"row\" colspan=\"6\">\(w.say("Total, reverted purchases excluded", "Summe ohne rückgängig gemachte Einkäufe"))</th><td class=\"num\">\(money(figures.total.spend))</td><td colspan=\"\(stores ? 3 : 2)\">\(escape(currency))</td></tr></tfoot></table></div>")
        page.endSection()
    }

    private func auditHead(_ page: inout HTMLPage) {
        page.section("head", w.say("Check this report", "Diesen Bericht prüfen"))
        page.line(w.say("<p>This report was made from the journal up to event \(head.seq). Its audit head identifies that whole history: if anyone changes, removes or reorders any earlier event, the head no longer matches.</p>",
                        "<p>Dieser Bericht wurde aus dem Journal bis Ereignis \(head.seq) gemacht. Sein Prüfkopf steht für diese ganze Geschichte: ändert, entfernt oder vertauscht jemand ein früheres Ereignis, passt der Kopf nicht mehr.</p>"))
        page.line("<p class=\"headline\"><code>\(head)</code></p>")
        page.line(w.say("<p>To check a journal against this printout:</p>", "<p>So prüft man ein Journal gegen diesen Ausdruck:</p>"))
        page.line("<pre><code>shop-replay verify --journal \(escape(Self.shellQuoted(journal))) --expect-head \(head)</code></pre>")
        page.endSection()
    }

    private func empty(_ page: inout HTMLPage, _ text: String) {
        page.line("<p class=\"note\">\(escape(text))</p>")
        page.endSection()
    }

    /// What the purchases at no store are listed under.
    private var noStore: String { w.say(StatsView.noStoreName, "Kein Geschäft") }

    /// Said where a section has no purchase of the period to show.
    private var noPurchases: String { w.say("No purchases in this period.", "Keine Einkäufe in diesem Zeitraum.") }

    /// `1 purchase`, `3 purchases` in the report's language.
    private func purchases(_ n: Int) -> String { w.counted(n, "purchase", ("Einkauf", "Einkäufe")) }

    private func table(_ page: inout HTMLPage, _ headers: [String], _ rows: [[String]], numeric: Set<Int>, summary: String = "") {
        page.line("<details><summary>\(escape(summary.isEmpty ? w.say("As a table", "Als Tabelle") : summary))</summary><div class=\"scroll\"><table><thead><tr>")
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
