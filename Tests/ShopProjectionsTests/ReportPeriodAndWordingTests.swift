import Foundation
import Testing
@testable import ShopProjections
import ShopEvents
import ShopTestSupport

/// The household report's rules (docs/REPORT.md): the
/// period from the earliest to the latest purchase time, never backwards;
/// numbers in grammar; a short trip in seconds; bars that compare on one
/// scale with equal tracks; a short history's calendar at its own size;
/// quantities with their units; the audit trail's store; the lists' assignees.
@Suite struct ReportPeriodAndWordingTests {
    /// A week in Berlin, recorded on 2026-11-26 (the clock steps a second an
    /// event from 09:00:00Z): Milk bought that day at the Corner Shop, then
    /// three purchases of the week before entered after the fact, out of
    /// order; a 5-second trip around them; Apples on the list for ben.
    static func week() throws -> (views: HouseholdViews, head: JournalHead, folder: URL) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("week.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Timestamp("2026-11-26T09:00:00.000Z")!, by: 1000),
                                                                  ids: .sequential(prefix: 0x49), actor: "ana"))
        defer { journal.close() }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Week", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: id(0x50), name: "Produce", color: nil))
        try journal.execute(.createLocation(location: id(0x51), name: "Dairy", color: nil))
        try journal.execute(.createStore(store: id(0x60), name: "Corner Shop"))
        try journal.execute(.createStore(store: id(0x61), name: "Big Market"))
        try journal.execute(.createItem(item: id(1), name: "Apples", location: id(0x50), details: .init(unitPrice: 299, unit: "kg")))
        try journal.execute(.createItem(item: id(2), name: "Milk", location: id(0x51), details: .init(unitPrice: 119, unit: "l")))
        try journal.execute(.createItem(item: id(3), name: "Yoghurt", location: id(0x51), details: .init(unitPrice: 59)))
        try journal.execute(.createList(list: id(0x10), name: "Weekly", priority: .high))
        try journal.execute(.addItemToList(list: id(0x10), item: id(1), quantity: Quantity("1.5")!))
        try journal.execute(.addItemToList(list: id(0x10), item: id(3), quantity: 4))
        try journal.execute(.assignEntry(list: id(0x10), item: id(1), member: "ben"))
        try journal.execute(.startTrip(trip: id(0x70), list: nil, store: id(0x60)))                                  // 09:00:12
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x20), item: id(2), quantity: 2, store: id(0x60)), actor: "ben"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x21), item: id(1), quantity: Quantity("1.25")!,
                                                          purchasedAt: Timestamp("2026-11-20T16:00:00.000Z")!, store: id(0x61)), actor: "ana"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x22), item: id(3), quantity: 6,
                                                          purchasedAt: Timestamp("2026-11-22T10:00:00.000Z")!), actor: "ben"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x23), item: id(2), quantity: 1, unitPrice: 109,
                                                          purchasedAt: Timestamp("2026-11-23T11:00:00.000Z")!, store: id(0x61)), actor: "ana"))
        try journal.execute(.endTrip(trip: id(0x70)))                                                                  // 09:00:17
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        return (views, journal.head, folder)
    }

    static func report(from: Timestamp? = nil, to: Timestamp? = nil) throws -> (html: String, views: HouseholdViews) {
        let (views, head, folder) = try week()
        defer { try? FileManager.default.removeItem(at: folder) }
        return (HouseholdReport(views: views, head: head, journal: "week.ndjson", from: from, to: to).html, views)
    }

    /// The lines of the page from the first that starts with `first` up to and including the first after it that starts with `last`.
    static func lines(_ html: String, from first: String, through last: String) -> [String] {
        let all = html.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard let start = all.firstIndex(where: { $0.hasPrefix(first) }),
              let end = all[start...].firstIndex(where: { $0.hasPrefix(last) }) else { return [] }
        return Array(all[start...end])
    }

    static func line(_ html: String, startingWith prefix: String) -> String? {
        html.split(separator: "\n").map(String.init).first { $0.hasPrefix(prefix) }
    }

    // MARK: The language

    /// The words a person reads on the page (no tags, no style, not the shell command to check it).
    static func visibleWords(_ html: String) -> Set<String> {
        var text = html
        for (open, close) in [("<style>", "</style>"), ("<pre>", "</pre>")] {
            while let start = text.range(of: open), let end = text.range(of: close, range: start.upperBound..<text.endIndex) {
                text.removeSubrange(start.lowerBound..<end.upperBound)
            }
        }
        var words = "", inTag = false
        for character in text {
            if character == "<" { inTag = true; words.append(" ") } else if character == ">" { inTag = false } else if !inTag { words.append(character) }
        }
        return Set(words.split { !$0.isLetter }.map { $0.lowercased() })
    }

    @Test("in German every heading, label, sentence and chart of the page is German, amounts have German separators; the household's own names stay; English is unchanged")
    func theReportInGerman() throws {
        let (views, head, folder) = try Self.week()
        defer { try? FileManager.default.removeItem(at: folder) }
        var report = HouseholdReport(views: views, head: head, journal: "week.ndjson")
        let english = report.html
        #expect(english == (try Self.report()).html)
        report.language = .german
        let german = report.html
        #expect(german.hasPrefix("<!doctype html>\n<html lang=\"de\">\n"))
        #expect(Self.line(german, startingWith: "<p class=\"meta\">")
                == "<p class=\"meta\">2026-11-20 bis 2026-11-26 · Beträge in EUR · Zeiten in Europe/Berlin · Stand: Ereignis 18</p>")
        for heading in ["Kurz gesagt", "Ausgaben je Monat", "Die meistgekauften Artikel", "Wer wo eingekauft hat", "Geschäfte und Preise",
                        "Einkaufstage", "Einkaufsgänge", "Die Listen jetzt", "Prüfprotokoll", "Diesen Bericht prüfen"] {
            #expect(german.contains(">\(heading)</h2>"), "\(heading)")
        }
        #expect(german.contains("<div><dt>Ausgegeben</dt><dd>10,75 EUR</dd></div>") && english.contains("<div><dt>Spent</dt><dd>10.75 EUR</dd></div>"))
        #expect(german.contains(">Mo</text>") && german.contains("Einkäufe am Tag: ") && german.contains("Kein Geschäft"))
        // No English word is left for a German reader; the household's own names are there as they are.
        let englishWords: Set<String> = ["the", "and", "of", "per", "short", "spend", "spent", "purchase", "purchases", "trip", "trips", "shopping",
            "report", "item", "items", "store", "stores", "table", "lists", "reverted", "total", "price", "who", "what", "when", "where", "bought",
            "buy", "to", "from", "until", "none", "day", "days", "cheapest", "lowest", "highest", "last", "quantity", "month", "audit", "check",
            "event", "amounts", "times", "as", "mon", "wed", "fri", "about", "for", "nothing", "paused", "time", "mean", "top", "by", "number", "place"]
        #expect(Self.visibleWords(german).intersection(englishWords) == [])
        #expect(Self.visibleWords(english).isSuperset(of: ["spent", "purchases", "audit", "trips"]))
        for name in ["Week", "Corner Shop", "Big Market", "Apples", "Yoghurt", "Weekly", "Dairy"] { #expect(german.contains(name), "\(name)") }
    }

    // MARK: The period

    @Test("the period runs from the earliest to the latest purchase time, whatever the journal's order")
    func thePeriodIsTheEarliestToTheLatestPurchase() throws {
        let (html, _) = try Self.report()
        // In journal order the purchases are on the 26th, 20th, 22nd and 23rd: first to last would be "2026-11-26 to 2026-11-23".
        #expect(Self.line(html, startingWith: "<p class=\"meta\">")
                == "<p class=\"meta\">2026-11-20 to 2026-11-26 · amounts in EUR · times in Europe/Berlin · as of event 18</p>")
    }

    @Test("a period given at one end only is closed at the other by the latest (or earliest) purchase shown")
    func anOpenEndIsTheLatestPurchaseShown() throws {
        let calendar = try Self.week().views.calendar
        let from = calendar.start(ofDay: 2026, 11, 21)!
        let (fromHTML, _) = try Self.report(from: from)
        // The period's purchases in journal order: the 26th, then the 22nd and 23rd.
        #expect(Self.line(fromHTML, startingWith: "<p class=\"meta\">")
                == "<p class=\"meta\">2026-11-21 to 2026-11-26 · amounts in EUR · times in Europe/Berlin · as of event 18</p>")
        let to = calendar.start(ofDay: 2026, 11, 25)!
        let (toHTML, _) = try Self.report(to: to)
        #expect(Self.line(toHTML, startingWith: "<p class=\"meta\">")
                == "<p class=\"meta\">2026-11-20 to 2026-11-24 · amounts in EUR · times in Europe/Berlin · as of event 18</p>")
    }

    @Test("a period that ends before it starts is said to be empty, not written backwards")
    func anInvertedPeriodIsNotWrittenBackwards() throws {
        let calendar = try Self.week().views.calendar
        let (html, _) = try Self.report(from: calendar.start(ofDay: 2026, 11, 26)!, to: calendar.start(ofDay: 2026, 11, 21)!)
        #expect(Self.line(html, startingWith: "<p class=\"meta\">")
                == "<p class=\"meta\">no purchases: the period starts 2026-11-26 and ends 2026-11-20 · amounts in EUR · times in Europe/Berlin · as of event 18</p>")
    }

    // MARK: Grammar and durations

    @Test("one shopping day, one purchase: numbers agree with their nouns")
    func oneShoppingDayIsSingular() throws {
        let calendar = try Self.week().views.calendar
        let (html, _) = try Self.report(from: calendar.start(ofDay: 2026, 11, 26)!)
        #expect(Self.lines(html, from: "<section id=\"calendar\"", through: "<p>")
                == ["<section id=\"calendar\" aria-labelledby=\"calendar-title\"><h2 id=\"calendar-title\">Shopping days</h2>",
                    "<p>1 shopping day, 2026-11-26, with 1 purchase (2.38 EUR).</p>"])
        #expect(html.contains("<title>2026-11-26: 1 purchase, 2.38 EUR</title>"))
        #expect(html.contains("<figcaption>Top 1 item by spend in EUR</figcaption>"))
        #expect(html.contains("<figcaption>Top 1 item by number of purchases</figcaption>"))
        #expect(html.contains("<details><summary>1 item as a table</summary>"))
        #expect(html.contains("<details><summary>Prices of 1 item by store</summary>"))
        #expect(html.contains("1 shopping day; each square's title gives the day, the purchases and the spend.</desc>"))
    }

    @Test("several shopping days, the busiest with one purchase")
    func severalShoppingDays() throws {
        let (html, _) = try Self.report()
        #expect(Self.lines(html, from: "<section id=\"calendar\"", through: "<p>")
                == ["<section id=\"calendar\" aria-labelledby=\"calendar-title\"><h2 id=\"calendar-title\">Shopping days</h2>",
                    "<p>4 shopping days from 2026-11-20 to 2026-11-26; the busiest was 2026-11-20 with 1 purchase (3.74 EUR).</p>"])
        #expect(html.contains("<details><summary>All 3 items as a table</summary>"))
        #expect(html.contains("<details><summary>Prices of 3 items by store</summary>"))
    }

    @Test("a trip of five seconds is five seconds, not 0 min")
    func aShortTripShowsItsSeconds() throws {
        let (html, _) = try Self.report()
        #expect(Self.lines(html, from: "<section id=\"trips\"", through: "</section>")
                == ["<section id=\"trips\" aria-labelledby=\"trips-title\"><h2 id=\"trips-title\">Shopping trips</h2>",
                    "<dl class=\"figures\">",
                    "<div><dt>Trips ended</dt><dd>1</dd></div>",
                    "<div><dt>Time in all</dt><dd>5 s</dd></div>",
                    "<div><dt>Mean trip</dt><dd>5 s</dd></div>",
                    "</dl><p class=\"note\">Paused time is not counted.</p>",
                    "</section>"])
    }

    @Test func durationsReadAsAPersonSaysThem() {
        #expect([0, 0.4, 5, 59.4, 59.6, 60, 119, 3599, 3600, 3725].map(HouseholdReport.duration)
                == ["0 s", "0 s", "5 s", "59 s", "1 min", "1 min", "1 min", "59 min", "1 h 0 min", "1 h 2 min"])
    }

    // MARK: Bars

    @Test("people and places are drawn on one scale, with tracks of one length")
    func peopleAndPlacesShareOneScale() throws {
        let (html, _) = try Self.report()
        func bar(_ label: String, _ width: String, _ value: String) -> String {
            "<li><span class=\"label\">\(label)</span><span class=\"track\" aria-hidden=\"true\"><span class=\"fill\" style=\"width:\(width)%\"></span></span><span class=\"value\">\(value)</span></li>"
        }
        // The largest of both charts (Dairy, 7.01) is the full track of both.
        #expect(Self.line(html, startingWith: "<figure class=\"hbars\" id=\"people-chart\">")
                == "<figure class=\"hbars\" id=\"people-chart\"><figcaption>Spend per person in EUR</figcaption><ol style=\"--value:9ch\">"
                + bar("ben", "84.5", "5.92 · 2×") + bar("ana", "68.9", "4.83 · 2×") + "</ol></figure>")
        #expect(Self.line(html, startingWith: "<figure class=\"hbars\" id=\"places-chart\">")
                == "<figure class=\"hbars\" id=\"places-chart\"><figcaption>Spend per place of purchase in EUR</figcaption><ol style=\"--value:9ch\">"
                + bar("Dairy", "100", "7.01 · 3×") + bar("Produce", "53.4", "3.74 · 1×") + "</ol></figure>")
        // Items by spend and by count: each on its own scale (money and counts), tracks of one length.
        #expect(Self.line(html, startingWith: "<figure class=\"hbars\" id=\"items-spend\">")
                == "<figure class=\"hbars\" id=\"items-spend\"><figcaption>Top 3 items by spend in EUR</figcaption><ol style=\"--value:4ch\">"
                + bar("Apples", "100", "3.74") + bar("Yoghurt", "94.7", "3.54") + bar("Milk", "92.8", "3.47") + "</ol></figure>")
        #expect(Self.line(html, startingWith: "<figure class=\"hbars\" id=\"items-count\">")
                == "<figure class=\"hbars\" id=\"items-count\"><figcaption>Top 3 items by number of purchases</figcaption><ol style=\"--value:4ch\">"
                + bar("Milk", "100", "2×") + bar("Apples", "50", "1×") + bar("Yoghurt", "50", "1×") + "</ol></figure>")
        #expect(Self.line(html, startingWith: "<figure class=\"hbars\" id=\"stores-chart\">")
                == "<figure class=\"hbars\" id=\"stores-chart\"><figcaption>Spend per store in EUR</figcaption><ol style=\"--value:9ch\">"
                + bar("Big Market", "100", "4.83 · 2×") + bar("No store", "73.3", "3.54 · 1×") + bar("Corner Shop", "49.3", "2.38 · 1×") + "</ol></figure>")
        // Every row of every chart has the same columns: the value column's width comes from its chart, not its text.
        #expect(HouseholdReport.css.contains(".hbars li{display:grid;grid-template-columns:minmax(6rem,11rem) 1fr var(--value,auto);"))
        #expect(HouseholdReport.css.contains(".hbars li{grid-template-columns:minmax(5rem,8rem) 1fr var(--value,auto)}"))
    }

    @Test("a bar of nothing has an empty track, not a sliver that reads as something")
    func aZeroBarIsEmpty() {
        #expect(Chart.bars(id: "z", title: "Spend", bars: [("Beer", 0, "0.00"), ("Milk", 250, "2.50")], scale: 500)
                == "<figure class=\"hbars\" id=\"z\"><figcaption>Spend</figcaption><ol style=\"--value:4ch\">"
                + "<li><span class=\"label\">Beer</span><span class=\"track\" aria-hidden=\"true\"></span><span class=\"value\">0.00</span></li>"
                + "<li><span class=\"label\">Milk</span><span class=\"track\" aria-hidden=\"true\"><span class=\"fill\" style=\"width:50%\"></span></span><span class=\"value\">2.50</span></li>"
                + "</ol></figure>")
    }

    // MARK: Calendar

    @Test("a week's calendar is drawn at its own size, its legend naming only the shades used")
    func aShortHistorysCalendarKeepsItsSize() throws {
        let (html, _) = try Self.report()
        let svg = try #require(Self.line(html, startingWith: "<div class=\"scroll\"><svg class=\"chart calendar\""))
        // Two week columns, and a legend of "none" and the one shade used: 169 × 169 user units, drawn 237 × 237 pixels at most (1.4×).
        #expect(svg.hasPrefix("<div class=\"scroll\"><svg class=\"chart calendar\" id=\"calendar-chart\" role=\"img\" aria-labelledby=\"calendar-chart-title calendar-chart-desc\" viewBox=\"0 0 169 169\" width=\"237\" height=\"237\">"))
        #expect(svg.hasSuffix("<text class=\"label small\" x=\"0\" y=\"158\">none</text>"
                              + "<rect class=\"day l0\" x=\"30\" y=\"147\" width=\"14\" height=\"14\" rx=\"2\"/>"
                              + "<rect class=\"day l4\" x=\"47\" y=\"147\" width=\"14\" height=\"14\" rx=\"2\"/>"
                              + "<text class=\"label small\" x=\"68\" y=\"158\">purchases a day: 1</text></svg></div>"))
        // No rule stretches the calendar beyond its width; charts only shrink to fit.
        #expect(!HouseholdReport.css.contains("svg.calendar{"))
        #expect(HouseholdReport.css.contains("svg.chart{display:block;max-width:100%;height:auto}"))
    }

    @Test("the legend names each shade's range, and only the shades that occur")
    func theLegendNamesTheShadesUsed() {
        func legend(_ most: Int) -> String {
            let svg = Chart.calendar(id: "c", days: [("2026-11-02", 1, ""), ("2026-11-03", most, "")])
            return String(svg[svg.range(of: "purchases a day: ")!.upperBound...].prefix { $0 != "<" })
        }
        #expect([1, 2, 3, 4, 8, 9].map(legend) == ["1", "1, 2", "1, 2, 3", "1, 2, 3, 4", "1–2, 3–4, 5–6, 7–8", "1–2, 3–4, 5–6, 7–9"])
    }

    // MARK: Units, stores, assignees

    @Test("the audit trail gives quantities with their units and names the store")
    func theAuditTrailHasUnitsAndStores() throws {
        let (html, _) = try Self.report()
        #expect(Self.lines(html, from: "<div class=\"scroll\"><table class=\"audit\">", through: "</tbody>")
                == ["<div class=\"scroll\"><table class=\"audit\"><thead><tr><th scope=\"col\">#</th><th scope=\"col\">When</th><th scope=\"col\">Who</th><th scope=\"col\">What</th><th scope=\"col\" class=\"num\">Qty</th><th scope=\"col\" class=\"num\">Price</th><th scope=\"col\" class=\"num\">Total</th><th scope=\"col\">Store</th><th scope=\"col\">Where</th><th scope=\"col\">List</th></tr></thead><tbody>",
                    "<tr><td class=\"num\">14</td><td>2026-11-26 10:00</td><td>ben</td><td>Milk</td><td class=\"num\">2 l</td><td class=\"num\">1.19</td><td class=\"num\">2.38</td><td>Corner Shop</td><td>Dairy</td><td>—</td></tr>",
                    "<tr><td class=\"num\">15</td><td>2026-11-20 17:00</td><td>ana</td><td>Apples</td><td class=\"num\">1.25 kg</td><td class=\"num\">2.99</td><td class=\"num\">3.74</td><td>Big Market</td><td>Produce</td><td>—</td></tr>",
                    "<tr><td class=\"num\">16</td><td>2026-11-22 11:00</td><td>ben</td><td>Yoghurt</td><td class=\"num\">6</td><td class=\"num\">0.59</td><td class=\"num\">3.54</td><td>—</td><td>Dairy</td><td>—</td></tr>",
                    "<tr><td class=\"num\">17</td><td>2026-11-23 12:00</td><td>ana</td><td>Milk</td><td class=\"num\">1 l</td><td class=\"num\">1.09</td><td class=\"num\">1.09</td><td>Big Market</td><td>Dairy</td><td>—</td></tr>",
                    "</tbody><tfoot><tr><th scope=\"row\" colspan=\"6\">Total, reverted purchases excluded</th><td class=\"num\">10.75</td><td colspan=\"3\">EUR</td></tr></tfoot></table></div>"])
    }

    @Test("the items table gives quantities with their units")
    func theItemsTableHasUnits() throws {
        let (html, _) = try Self.report()
        let table = Self.lines(html, from: "<details><summary>All 3 items as a table</summary>", through: "</tbody></table></div></details>")
        #expect(table.filter { $0.hasPrefix("<tr><td>") }
                == ["<tr><td>Apples</td><td class=\"num\">1</td><td class=\"num\">1.25 kg</td><td class=\"num\">3.74</td></tr>",
                    "<tr><td>Yoghurt</td><td class=\"num\">1</td><td class=\"num\">6</td><td class=\"num\">3.54</td></tr>",
                    "<tr><td>Milk</td><td class=\"num\">2</td><td class=\"num\">3 l</td><td class=\"num\">3.47</td></tr>"])
    }

    @Test("the lists give quantities with their units and name each entry's assignee")
    func theListsHaveUnitsAndAssignees() throws {
        let (html, _) = try Self.report()
        #expect(Self.lines(html, from: "<article class=\"list\">", through: "</article>")
                == ["<article class=\"list\"><h3>Weekly <span class=\"sub\">2 to buy · 0 bought · about 6.84 EUR</span></h3>",
                    "<h4>Produce</h4><ul>",
                    "<li>Apples <span class=\"qty\">1.5 kg · 4.48</span> <span class=\"who\">for ben</span></li>",
                    "</ul>",
                    "<h4>Dairy</h4><ul>",
                    "<li>Yoghurt <span class=\"qty\">×4 · 2.36</span></li>",
                    "</ul>",
                    "</article>"])
    }
}

/// The v4 period on a real ShoppingList17 import (the issue's "2026-09-15 to
/// 2026-03-01"): bought today, then two purchases of the spring entered after.
@Suite(.enabled(if: Fixtures.sl17 != nil, Comment(rawValue: Fixtures.sl17Missing)))
struct ImportedReportPeriodTests {
    @Test func anImportsPeriodRunsForwards() throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.ndjson").path
        let archive = try SL17Archive.parse(Fixtures.sl17!)
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Timestamp("2026-09-15T14:00:00.000Z")!, by: 1000),
                                                                  ids: .sequential(prefix: 0x17), actor: "import"))
        defer { journal.close() }
        let commands = SL17Transfer.importCommands(archive, into: journal.state,
                                                   household: .init(name: "Home", currency: "USD", timeZone: "America/New_York"),
                                                   ids: journal.options.ids)
        for result in try journal.execute(batch: commands.map { CommandEnvelope($0) }) { _ = try result.get() }
        let milk = try #require(journal.state.items.values.first { $0.name == "Milk" }).id
        let beer = try #require(journal.state.items.values.first { $0.name == "Beer" }).id
        try journal.execute(.purchaseItem(item: milk))
        try journal.execute(.purchaseItem(item: beer, purchasedAt: Timestamp("2026-03-01T17:00:00.000Z")!))
        try journal.execute(.purchaseItem(item: milk, purchasedAt: Timestamp("2026-06-10T16:00:00.000Z")!))
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let html = HouseholdReport(views: views, head: journal.head, journal: "shop.ndjson").html
        let meta = html.split(separator: "\n").first { $0.hasPrefix("<p class=\"meta\">") }
        #expect(meta == "<p class=\"meta\">2026-03-01 to 2026-09-15 · amounts in USD · times in America/New_York · as of event \(journal.head.seq)</p>")
        #expect(html.contains("<p>3 shopping days from 2026-03-01 to 2026-09-15; the busiest was 2026-03-01 with 1 purchase (0.00 USD).</p>"))
    }
}
