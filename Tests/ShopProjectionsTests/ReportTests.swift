import Foundation
import Testing
@testable import ShopProjections
import ShopEvents
import ShopTestSupport

/// The household report, rendered without a browser: exact numbers from a
/// household built by hand, a reverted purchase marked and not counted, an
/// empty household, hostile names escaped.
@Suite struct ReportTests {
    static let cheese = #"Käse <&> "Gouda" 🧀"#

    /// Milk ×2 and Bread in March by ana and ben, cheese bought by cleo and
    /// reverted, Milk again in April (recorded after the fact).
    static func household() throws -> (views: HouseholdViews, head: JournalHead, folder: URL) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("home.ndjson").path
        var journal = try Journal.open(path: path, options: .init(clock: TestClock.stepping(), ids: .sequential(prefix: 0x4E), actor: "ana"))
        defer { journal.close() }
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home <&> \"Berg\"", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createLocation(location: id(0x50), name: "Dairy", color: nil))
        try journal.execute(.createItem(item: id(1), name: "Milk", location: id(0x50), details: .init(unitPrice: 119)))
        try journal.execute(.createItem(item: id(2), name: "Bread", location: .unknown, details: .init(unitPrice: 250)))
        try journal.execute(.createItem(item: id(3), name: cheese, location: id(0x50), details: .init(unitPrice: 500)))
        try journal.execute(.createList(list: id(0x10), name: "Weekly", priority: .high))
        try journal.execute(.addItemToList(list: id(0x10), item: id(1), quantity: 2))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x20), item: id(1), list: id(0x10), quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil), actor: "ana"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x21), item: id(2), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil), actor: "ben"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x22), item: id(3), list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil), actor: "cleo"))
        try journal.execute(CommandEnvelope(.revertPurchase(purchase: id(0x22)), actor: "ben"))
        // Recorded that morning, after the fact: a purchasedAt more than a day after the clock is `in_future`.
        journal.close()
        journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Timestamp("2026-04-02T08:30:00.000Z")!, by: 1000),
                                                              ids: .sequential(prefix: 0x4F), actor: "ana"))
        try journal.execute(CommandEnvelope(.purchaseItem(purchase: id(0x23), item: id(1), list: nil, quantity: 1, unitPrice: nil, location: nil,
                                                          purchasedAt: Timestamp("2026-04-02T08:00:00.000Z")!), actor: "ana"))
        try journal.execute(.addItemToList(list: id(0x10), item: id(2), quantity: 3))
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        return (views, journal.head, folder)
    }

    @Test func theNumbersAreTheHouseholdsNumbers() throws {
        let (views, head, folder) = try Self.household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let figures = ReportFigures(views, from: nil, to: nil)
        typealias Row = ReportFigures.Row
        #expect(figures.total == Tally(purchases: 3, quantity: 4, spend: 607))
        #expect(figures.months == [Row(key: "2026-03", name: "2026-03", tally: Tally(purchases: 2, quantity: 3, spend: 488)),
                                   Row(key: "2026-04", name: "2026-04", tally: Tally(purchases: 1, quantity: 1, spend: 119))])
        #expect(ReportFigures.top(figures.items, 10) { $0.spend }.map(\.name) == ["Milk", "Bread"])
        #expect(figures.actors == [Row(key: "ana", name: "ana", tally: Tally(purchases: 2, quantity: 3, spend: 357)),
                                   Row(key: "ben", name: "ben", tally: Tally(purchases: 1, quantity: 1, spend: 250))])
        #expect(figures.days.map(\.day) == ["2026-03-01", "2026-04-02"])
        #expect(figures.audit.map(\.purchase) == [id(0x20), id(0x21), id(0x22), id(0x23)])
        #expect(figures.audit.map(\.isReverted) == [false, false, true, false])

        let html = HouseholdReport(views: views, head: head, journal: "home.ndjson").html
        // Spend per month, written on the bars, and in the table.
        #expect(html.contains(">4.88</text>"))
        #expect(html.contains(">1.19</text>"))
        #expect(html.contains("<td>2026-03</td><td class=\"num\">2</td><td class=\"num\">4.88</td>"))
        // Top items, people, places.
        #expect(html.contains("<span class=\"label\">Milk</span><span class=\"track\" aria-hidden=\"true\"><span class=\"fill\" style=\"width:100%\"></span></span><span class=\"value\">3.57</span>"))
        #expect(html.contains("<span class=\"label\">ana</span>"))
        #expect(html.contains("<span class=\"value\">2.50 · 1×</span>"))
        #expect(!html.contains("<span class=\"label\">cleo</span>"), "a reverted purchase counts for no one")
        // Summary.
        #expect(html.contains("<dt>Spent</dt><dd>6.07 EUR</dd>"))
        #expect(html.contains("<dt>Reverted</dt><dd>1</dd>"))
        // The audit trail: every row, the reverted one marked, times in Berlin.
        #expect(html.components(separatedBy: "<tr><td class=\"num\">").count - 1 == 3)
        #expect(html.contains("<tr class=\"reverted\"><td class=\"num\">10</td><td>2026-03-01 10:00</td><td>cleo</td><td>Käse &lt;&amp;&gt; &quot;Gouda&quot; 🧀 <strong class=\"tag\">reverted</strong></td>"))
        #expect(html.contains("<td>2026-04-02 10:00</td><td>ana</td><td>Milk</td>"))
        #expect(html.contains("Total, reverted purchases excluded</th><td class=\"num\">6.07</td>"))
        // The current list by location.
        #expect(html.contains("<h3>Weekly <span class=\"sub\">1 to buy · 1 bought · about 7.50 EUR</span></h3>"))
        // The head and the command that checks it.
        #expect(html.contains("<code>\(head)</code>"))
        #expect(html.contains("shop-replay verify --journal home.ndjson --expect-head \(head)"))
        #expect(head.seq == 13)
    }

    @Test func withoutAPeriodTheFiguresAreTheStatsViewsFigures() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 77, commands: 400)
        let views = try ViewEngine.views(journal: journal.path, useSnapshot: false).0
        let stats = StatsView(views)
        let figures = ReportFigures(views, from: nil, to: nil)
        #expect(figures.months.map { [$0.name: $0.tally] } == stats.months.map { [$0.month: $0.tally] })
        #expect(figures.actors.map { [$0.name: $0.tally] } == stats.actors.map { [$0.actor: $0.tally] })
        #expect(Set(figures.items.map { "\($0.key) \($0.name) \($0.tally)" }) == Set(stats.items.map { "\($0.item) \($0.name) \($0.tally)" }))
        #expect(Set(figures.locations.map { "\($0.key) \($0.name) \($0.tally)" }) == Set(stats.locations.map { "\($0.location) \($0.name) \($0.tally)" }))
        #expect(figures.trips == stats.trips)
        #expect(figures.audit == AuditView(views).purchases)
    }

    @Test("the page from state-only views and the period's streamed audit rows is the page from the records, byte for byte")
    func fromStreamedRows() throws {
        let journal = RandomJournal()
        defer { journal.remove() }
        try journal.write(seed: 78, commands: 400)
        let full = try ViewEngine.views(journal: journal.path, useSnapshot: false).0
        let light = try StateViews.read(journal: journal.path, useSnapshot: false).0
        let reader = try JournalReader(path: journal.path)
        while try reader.next() != nil {}
        let head = try reader.head()
        let purchases = full.audit.records.map(\.purchasedAt)
        let middle = purchases[purchases.count / 2]
        for (from, to) in [(nil, nil), (middle, nil), (nil, middle), (purchases[purchases.count / 4], middle)] as [(Timestamp?, Timestamp?)] {
            let rows = try AuditQuery(journal: journal.path, views: light, filter: AuditView.Filter(from: from, to: to)).view().purchases
            #expect(ReportFigures(light, audit: rows, from: from, to: to) == ReportFigures(full, from: from, to: to))
            let streamed = HouseholdReport(views: light, audit: rows, head: head, journal: "shop.ndjson", from: from, to: to).html
            #expect(streamed == HouseholdReport(views: full, head: head, journal: "shop.ndjson", from: from, to: to).html)
        }
    }

    @Test func aPeriodCountsOnlyItsPurchases() throws {
        let (views, head, folder) = try Self.household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let april = views.calendar.start(ofDay: 2026, 4, 1)!
        let figures = ReportFigures(views, from: april, to: nil)
        #expect(figures.total == Tally(purchases: 1, quantity: 1, spend: 119))
        #expect(figures.audit.map(\.purchase) == [id(0x23)])
        let html = HouseholdReport(views: views, head: head, journal: "home.ndjson", from: april).html
        #expect(html.contains("2026-04-01 to 2026-04-02"))
    }

    @Test func anEmptyHouseholdGivesASensiblePage() throws {
        let html = HouseholdReport(views: HouseholdViews(), head: .empty, journal: "new.ndjson").html
        #expect(html.hasPrefix("<!doctype html>\n<html lang=\"en\">"))
        #expect(html.hasSuffix("</html>\n"))
        #expect(html.contains("<h1>A household <span class=\"sub\">shopping report</span></h1>"))
        #expect(html.contains("no purchases yet"))
        #expect(html.contains("No purchases in this period."))
        #expect(html.contains("The household has no lists."))
        #expect(!html.contains("<svg"))
        #expect(html.contains("--expect-head 0:" + String(repeating: "0", count: 64)))
    }

    @Test func namesAreEscapedEverywhere() throws {
        let (views, head, folder) = try Self.household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let html = HouseholdReport(views: views, head: head, journal: "my <home>.ndjson").html
        #expect(!html.contains(Self.cheese))
        #expect(!html.contains("Home <&>"))
        #expect(html.contains("<title>Home &lt;&amp;&gt; &quot;Berg&quot; — shopping report</title>"))
        #expect(html.contains("Käse &lt;&amp;&gt; &quot;Gouda&quot; 🧀"))
        #expect(html.contains("--journal &#39;my &lt;home&gt;.ndjson&#39;"))
        // Every tag that opens a chart or section closes it.
        for tag in ["section", "svg", "figure", "table", "details", "ol", "ul", "article"] {
            #expect(html.components(separatedBy: "<\(tag)").count == html.components(separatedBy: "</\(tag)>").count, "\(tag)")
        }
        #expect(!html.contains("<script"))
        #expect(!html.contains("http://") && !html.contains("https://"), "nothing from the network")
    }
}
