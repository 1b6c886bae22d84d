import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// `shop-replay view due` on the demo's household, against the library's view of the same journal.
@Suite struct DueToolTests {
    @Test("view due: the library's view as JSON, now and as of an earlier point; the text lists the same items; an unknown option is refused")
    func viewDueOnTheDemo() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let whole = try ViewEngine.views(journal: journal, useSnapshot: false).0
        // Now pinned to the last event's time (--now), and as of seq 900 the time of that event.
        for asOf in [nil, 900] as [Int?] {
            let arguments = ["view", "due", "--journal", journal, "--json"]
                + (asOf.map { ["--as-of", "\($0)"] } ?? ["--now", whole.asOfTime!.description])
            let shown = try tool.run(arguments)
            #expect(shown.status == 0, "\(shown.stderr)")
            let views = try ViewEngine.views(journal: journal, asOf: asOf.map { .seq($0) } ?? .end, useSnapshot: false).0
            #expect(try JSONValue.parse(Array(shown.stdout.utf8)) == DueView(views, now: views.asOfTime!).json)
        }
        let due = DueView(whole, now: whole.asOfTime!)
        #expect(!due.items.isEmpty, "the demo has a staple that is due")
        let text = try tool.run(["view", "due", "--journal", journal, "--now", whole.asOfTime!.description])
        #expect(text.status == 0 && text.stdout.hasPrefix("Staples that are due"))
        for row in due.items { #expect(text.stdout.contains(row.name)) }
        let refused = try tool.run(["view", "due", "--journal", journal, "--list", "Weekly"])
        #expect(refused.status == 2 && refused.stderr.contains("--list is for the list views, not due"), "\(refused.stderr)")
    }
}
