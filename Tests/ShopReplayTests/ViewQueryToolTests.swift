import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// `shop-replay view household|item` and list-detail's purchases (issue 52) on the demo's household,
/// against the library's views of the same journal.
@Suite struct ViewQueryToolTests {
    @Test("view household and view item: the library's views as JSON; their text names the same things; item takes a name, an id or a barcode")
    func householdAndItemOnTheDemo() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let whole = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let now = try #require(whole.asOfTime).adding(milliseconds: 60_000)
        let household = try tool.run(["view", "household", "--journal", journal, "--json", "--now", now.description])
        #expect(household.status == 0, "\(household.stderr)")
        #expect(try JSONValue.parse(Array(household.stdout.utf8)) == HouseholdView(whole, now: now).json)
        let text = try tool.run(["view", "household", "--journal", journal, "--now", now.description])
        let name = try #require(whole.state.household?.name)
        #expect(text.status == 0 && text.stdout.hasPrefix("\(name)  (as of seq \(whole.asOf))"), "\(text.stdout)")
        // The item bought most often, by its name and by its id.
        let item = try #require(whole.audit.records.reduce(into: [ItemID: Int]()) { $0[$1.item, default: 0] += 1 }.max { $0.value < $1.value }?.key)
        let expected = try #require(ItemView(whole, item: item))
        #expect(expected.purchases.count == ItemView.purchaseLimit)
        for given in [whole.name(of: item), item.description] {
            let shown = try tool.run(["view", "item", "--journal", journal, "--json", "--item", given])
            #expect(shown.status == 0, "\(shown.stderr)")
            #expect(try JSONValue.parse(Array(shown.stdout.utf8)) == expected.json, "\(given)")
        }
        let itemText = try tool.run(["view", "item", "--journal", journal, "--item", item.description])
        #expect(itemText.status == 0 && itemText.stdout.hasPrefix(whole.name(of: item)) && itemText.stdout.contains("Last purchases, newest first"),
                "\(itemText.stdout)")
        let none = try tool.run(["view", "item", "--journal", journal])
        #expect(none.status == 2 && none.stderr.contains("the item view shows one item: give --item"), "\(none.stderr)")
        let unknown = try tool.run(["view", "item", "--journal", journal, "--item", "Nothing like it"])
        #expect(unknown.status == 2 && unknown.stderr.contains("there is no item named \"Nothing like it\""), "\(unknown.stderr)")
    }

    @Test("view list-detail --json: each bought entry names the purchase that bought it, as the household's state has it")
    func listDetailPurchases() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        #expect(try tool.run(["demo"]).status == 0)
        let journal = tool.path("shop-demo.ndjson")
        let before = try ViewEngine.views(journal: journal, useSnapshot: false).0
        // One entry of a list bought: the demo's lists hold none bought.
        let chosen = try #require(before.state.lists.values.filter { !$0.isDeleted && $0.entries.count > 1 }.min { $0.id < $1.id })
        let entry = try #require(chosen.entries.first)
        let buyer = before.state.members.first { $0.role != .viewer }?.name ?? "ana"
        let bought = try tool.run(["apply", "--journal", journal, "--actor", buyer],
                                  stdin: #"{"type":"PurchaseItem","data":{"item":"\#(entry.item)","list":"\#(chosen.id)"}}"# + "\n")
        #expect(bought.status == 0, "\(bought.stdout) \(bought.stderr)")
        let whole = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let list = try #require(whole.state.lists[chosen.id])
        #expect(list.entries.filter(\.isBought).count >= 1)
        let shown = try tool.run(["view", "list-detail", "--journal", journal, "--json", "--list", list.id.description])
        #expect(shown.status == 0, "\(shown.stderr)")
        let entries = try JSONValue.parse(Array(shown.stdout.utf8))["entries"]?.arrayValue ?? []
        let purchases = Dictionary(uniqueKeysWithValues: list.entries.map { ($0.item.description, $0.purchase?.description) })
        #expect(entries.count == list.entries.count)
        for entry in entries {
            let item = try #require(entry["item"]?.stringValue)
            #expect(entry["purchase"]?.stringValue == purchases[item] ?? nil, "\(item)")
        }
    }
}
