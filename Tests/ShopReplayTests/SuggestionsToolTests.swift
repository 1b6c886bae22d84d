import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// `shop-replay view suggestions` on the demo's household, against the library's view of the same journal.
@Suite struct SuggestionsToolTests {
    @Test("view suggestions: the library's view as JSON with --list, --prefix, --limit, --now and as of an earlier seq; the text names the same items")
    func viewSuggestionsOnTheDemo() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let whole = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let weekly = try #require(whole.state.lists.values.first { $0.name == "Weekly" }).id
        let now = try #require(whole.asOfTime)
        let cases: [(arguments: [String], expected: SuggestionsView?)] = [
            (["--now", now.description], SuggestionsView(whole, now: now)),
            (["--now", now.description, "--list", "weekly", "--prefix", "B", "--limit", "3"],
             SuggestionsView(whole, list: weekly, prefix: "B", limit: 3, now: now)),
            (["--now", now.description, "--list", weekly.description, "--prefix", "", "--limit", "40"],
             SuggestionsView(whole, list: weekly, limit: 40, now: now)),
        ]
        for (arguments, expected) in cases {
            let shown = try tool.run(["view", "suggestions", "--journal", journal, "--json"] + arguments)
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(try JSONValue.parse(Array(shown.stdout.utf8)) == expected?.json, "\(arguments)")
        }
        #expect(SuggestionsView(whole, list: weekly, limit: 40, now: now)?.items.count == 40)
        // As of seq 900: due and recent purchases counted to the time of that event.
        let early = try ViewEngine.views(journal: journal, asOf: .seq(900), useSnapshot: false).0
        let asOf = try tool.run(["view", "suggestions", "--journal", journal, "--json", "--as-of", "900", "--prefix", "a"])
        #expect(asOf.status == 0, "\(asOf.stderr)")
        #expect(try JSONValue.parse(Array(asOf.stdout.utf8)) == SuggestionsView(early, prefix: "a", now: try #require(early.asOfTime))?.json)
        // The text: a header, the now used, one line an item.
        let offered = try #require(SuggestionsView(whole, prefix: "c", now: now))
        #expect(!offered.items.isEmpty)
        let text = try tool.run(["view", "suggestions", "--journal", journal, "--prefix", "c", "--now", now.description])
        #expect(text.status == 0 && text.stdout.hasPrefix("Suggestions  (as of seq \(whole.asOf))"), "\(text.stdout)")
        #expect(text.stdout.contains("Items matching \"c\"; days counted to") && text.stdout.contains("(--now)"))
        for row in offered.items { #expect(text.stdout.contains(row.name)) }
    }

    @Test("refused: an unknown list as the list views refuse it, a limit below 1 as other numbers are, --prefix and --limit on other views")
    func refusals() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let unknown = try tool.run(["view", "suggestions", "--journal", journal, "--list", "Nope"])
        let listView = try tool.run(["view", "shopping-list-by-name", "--journal", journal, "--list", "Nope"])
        #expect(unknown.status == 2 && listView.status == 2)
        #expect(unknown.stderr == listView.stderr, "the same message as the list views: \(unknown.stderr)")
        #expect(unknown.stderr.contains("there is no list named \"Nope\""), "\(unknown.stderr)")
        for limit in ["0", "-3", "ten"] {
            let refused = try tool.run(["view", "suggestions", "--journal", journal, "--limit", limit])
            #expect(refused.status == 2 && refused.stderr.contains("--limit expects a whole number from 1 to 100000, not \"\(limit)\""), "\(refused.stderr)")
        }
        let prefix = try tool.run(["view", "lists", "--journal", journal, "--prefix", "mi"])
        #expect(prefix.status == 2 && prefix.stderr.contains("--prefix is for the suggestions view, not lists"), "\(prefix.stderr)")
        let limit = try tool.run(["view", "due", "--journal", journal, "--limit", "3"])
        #expect(limit.status == 2 && limit.stderr.contains("--limit is for the suggestions view, not due"), "\(limit.stderr)")
    }
}
