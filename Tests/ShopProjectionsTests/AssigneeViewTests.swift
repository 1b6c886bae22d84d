import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Who is getting what, in the list views (docs/VIEWS.md).
@Suite struct AssigneeViewTests {
    @Test("list views show each entry's assignee (null for nobody's); --for shows a member's entries and nobody's, totals over what it shows")
    func assigneesInTheListViews() throws {
        let h = SmallHousehold()
        defer { h.remove() }
        try h.write { journal in
            try journal.execute(.assignEntry(list: h.weekly, item: h.butter, member: "ben"))
            try journal.execute(.assignEntry(list: h.weekly, item: h.eggs, member: "cleo"))
        }
        let views = try h.views()
        let all = ShoppingListView(views, list: h.weekly, grouping: .byName)!
        #expect(all.sections.flatMap(\.entries).map { "\($0.name):\($0.assignee ?? "-")" } == ["butter:ben", "Eggs:cleo", "Whole milk:-"])
        let bens = ShoppingListView(views, list: h.weekly, grouping: .byName, for: "ben")!
        #expect(bens.member == "ben")
        #expect(bens.sections.flatMap(\.entries).map(\.name) == ["butter", "Whole milk"])
        #expect((bens.remaining, bens.bought, bens.estimatedTotal, bens.unpriced) == (2, all.bought, 229 + 2 * 119, 0))
        #expect(all.bought == 1, "the bread")
        let json = bens.json
        guard case let .object(pairs) = json else { Issue.record("not an object"); return }
        #expect(pairs.map(\.0) == ["view", "asOf", "list", "for", "sections", "remaining", "bought", "estimatedTotal", "unpriced"])
        #expect(pairs.first { $0.0 == "for" }?.1 == .string("ben"))
        let entries = bens.sections[0].entries
        #expect(ShoppingListView(views, list: h.weekly, grouping: .byName)!.json != json)
        #expect(entries[0].assignee == "ben" && entries[1].assignee == nil)
        // The JSON has the key for every entry, null for nobody's (docs/VIEWS.md).
        let text = ShoppingListView(views, list: h.weekly, grouping: .byName)!.json.text()
        #expect(text.contains(#""assignee":"ben""#) && text.contains(#""assignee":null"#) && text.components(separatedBy: "assignee").count == 4)
        let detail = ListDetailView(views, list: h.weekly)!
        // Unbought in manual order (milk, butter, eggs), then the bought bread.
        #expect(detail.entries.map(\.assignee) == [nil, "ben", "cleo", nil])
        #expect(detail.json.text().components(separatedBy: "assignee").count == 5)
    }
}
