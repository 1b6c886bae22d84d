import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// Who is getting what through the tool (SPEC section 10): `apply` an `AssignEntry`, `view … --for`.
@Suite struct AssignToolTests {
    @Test("apply AssignEntry; view --for shows the member's entries and nobody's, as the library does; refusals have their codes; --for only on the shopping list views")
    func assignAndViewFor() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let views = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let weekly = try #require(views.state.lists.values.first { $0.name == "Weekly" })
        let open = weekly.entries.filter { !$0.isBought && $0.assignee == nil }.map(\.item)
        try #require(open.count >= 2)
        let lines = [
            #"{"type":"AssignEntry","data":{"list":"\#(weekly.id)","item":"\#(open[0])","member":"ben"}}"#,
            #"{"type":"AssignEntry","data":{"list":"\#(weekly.id)","item":"\#(open[1])","member":"eve"}}"#,   // no member
            #"{"type":"AssignEntry","data":{"list":"\#(weekly.id)","item":"\#(open[0])","member":"ben"}}"#,   // ben's already
        ]
        let applied = try tool.run(["apply", "--journal", journal, "--actor", "ana", "--json"], stdin: lines.joined(separator: "\n") + "\n")
        let answers = applied.stdout.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(answers.count == 3)
        #expect(answers.first?["ok"] as? Bool == true)
        #expect((answers.dropFirst().first?["error"] as? [String: Any])?["code"] as? String == "unknown_member", "\(answers)")
        #expect((answers.last?["error"] as? [String: Any])?["code"] as? String == "unchanged", "\(answers)")

        let shown = try tool.run(["view", "shopping-list-by-location", "--list", "Weekly", "--for", "ben", "--journal", journal, "--json"])
        #expect(shown.status == 0, "\(shown.stderr)")
        let after = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let expected = ShoppingListView(after, list: weekly.id, grouping: .byLocation, for: "ben")!
        #expect(try JSONValue.parse(Array(shown.stdout.utf8)) == expected.json)
        let names = expected.sections.flatMap(\.entries)
        #expect(names.contains { $0.item == open[0] && $0.assignee == "ben" })
        #expect(!names.contains { $0.assignee == "cleo" }, "cleo's entries are not ben's")
        let text = try tool.run(["view", "shopping-list-by-location", "--list", "Weekly", "--for", "ben", "--journal", journal])
        #expect(text.stdout.contains("for ben (and nobody's)") && text.stdout.contains("for ben"))
        let refused = try tool.run(["view", "lists", "--for", "ben", "--journal", journal])
        #expect(refused.status == 2 && refused.stderr.contains("--for is for the shopping list views, share-text and household, not lists"), "\(refused.stderr)")
    }
}
