import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// A store's own order at the tool (SPEC section 11), run as a child
/// process: ReorderStoreLocations through `apply` by ids and by names, every
/// refusal leaving the journal byte for byte, `view shopping-list-by-location
/// --store`, `view stores`, `history --store`, `audit --store`, `apply --help`.
@Suite struct StoreOrderToolTests {
    static let dairy = "00000000-0000-0000-0000-000000000021", bakery = "00000000-0000-0000-0000-000000000022"
    static let produce = "00000000-0000-0000-0000-000000000023", gone = "00000000-0000-0000-0000-000000000025"
    static let corner = "00000000-0000-0000-0000-000000000051", market = "00000000-0000-0000-0000-000000000052"
    static let closed = "00000000-0000-0000-0000-000000000053", weekly = "00000000-0000-0000-0000-000000000010"

    /// Three locations, a deleted one, milk at dairy and bread at bakery on Weekly, two stores and a deleted one.
    static func household(_ tool: ToolRunner) throws {
        let lines = [
            #"{"type":"CreateHousehold","data":{"household":"00000000-0000-0000-0000-0000000000aa","name":"Home","currency":"EUR","timeZone":"UTC"}}"#,
            #"{"type":"CreateLocation","data":{"location":"\#(dairy)","name":"Dairy"}}"#,
            #"{"type":"CreateLocation","data":{"location":"\#(bakery)","name":"Bakery"}}"#,
            #"{"type":"CreateLocation","data":{"location":"\#(produce)","name":"Produce"}}"#,
            #"{"type":"CreateLocation","data":{"location":"\#(gone)","name":"Gone"}}"#,
            #"{"type":"DeleteLocation","data":{"location":"\#(gone)"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(weekly)","name":"Weekly"}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a1","name":"Milk","location":"Dairy","unitPrice":119}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a2","name":"Bread","location":"Bakery"}}"#,
            #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Milk"}}"#,
            #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Bread"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(corner)","name":"Corner shop"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(market)","name":"Market"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(closed)","name":"Closed"}}"#,
            #"{"type":"DeleteStore","data":{"store":"\#(closed)"}}"#,
        ]
        let applied = try tool.run(["apply", "--actor", "ana", "--json"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    }

    static func apply(_ tool: ToolRunner, _ line: String) throws -> [String: Any] {
        let result = try tool.run(["apply", "--actor", "ana", "--json"], stdin: line + "\n")
        return try result.object()
    }

    @Test func byIdsAndByNamesTheJournalsHoldTheSameData() throws {
        let byIDs = ToolRunner(), byNames = ToolRunner()
        defer { byIDs.remove(); byNames.remove() }
        try Self.household(byIDs)
        try Self.household(byNames)
        let first = try Self.apply(byIDs, #"{"type":"ReorderStoreLocations","data":{"store":"\#(Self.corner)","order":["\#(Self.produce)","\#(Self.dairy)"]}}"#)
        let second = try Self.apply(byNames, #"{"type":"ReorderStoreLocations","data":{"store":" corner SHOP","order":["produce","\#(Self.dairy)"]}}"#)
        #expect(first["ok"] as? Bool == true, "\(first)")
        #expect(second["ok"] as? Bool == true, "\(second)")
        let events = { (tool: ToolRunner) in try JournalReader.readAll(path: tool.path("shop.ndjson")).map(\.event) }
        #expect(try events(byIDs) == events(byNames))
        #expect(try events(byIDs).last == .storeLocationsReordered(store: StoreID(Self.corner)!, order: [LocationID(Self.produce)!, LocationID(Self.dairy)!]))
        #expect(try byIDs.run(["verify"]).status == 0)
    }

    @Test func everyRefusalLeavesTheJournalByteForByte() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let journal = tool.path("shop.ndjson")
        let before = Scratch.bytes(journal)
        let refused: [(String, String)] = [
            (#"{"store":"Nowhere","order":["Dairy"]}"#, "unknown_store"),
            (#"{"store":"00000000-0000-0000-0000-000000000059","order":["Dairy"]}"#, "unknown_store"),
            (#"{"store":"\#(Self.closed)","order":["Dairy"]}"#, "store_deleted"),
            (#"{"store":"Corner shop","order":["Dairy","Attic"]}"#, "unknown_location"),
            (#"{"store":"Corner shop","order":["00000000-0000-0000-0000-000000000029"]}"#, "unknown_location"),
            (#"{"store":"Corner shop","order":["\#(Self.gone)"]}"#, "location_deleted"),
            (#"{"store":"Corner shop","order":["Dairy","\#(Self.dairy)"]}"#, "duplicate_location"),
            (#"{"store":"Corner shop","order":["Dairy","00000000-0000-0000-0000-000000000000"]}"#, "unknown_location_fixed"),
            (#"{"store":"Corner shop"}"#, "missing_field"),
        ]
        var codes: [String] = []
        for (data, _) in refused {
            let answer = try Self.apply(tool, #"{"type":"ReorderStoreLocations","data":\#(data)}"#)
            codes.append((answer["error"] as? [String: Any])?["code"] as? String ?? "accepted: \(answer)")
            #expect(Scratch.bytes(journal) == before, "\(data)")
        }
        #expect(codes == refused.map(\.1))
    }

    @Test func theShoppingListByLocationAtAStore() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        _ = try Self.apply(tool, #"{"type":"ReorderStoreLocations","data":{"store":"Corner shop","order":["Bakery"]}}"#)
        let journal = tool.path("shop.ndjson")
        let views = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let atCorner = try tool.run(["view", "shopping-list-by-location", "--store", "corner shop", "--json"])
        #expect(atCorner.status == 0, "\(atCorner.stderr)")
        let expected = try #require(ShoppingListView(views, list: ListID(Self.weekly)!, grouping: .byLocation, store: StoreID(Self.corner)!))
        #expect(try JSONValue.parse(Array(atCorner.stdout.utf8)) == expected.json)
        #expect(expected.sections.map(\.title) == ["Bakery", "Dairy"])
        let text = try tool.run(["view", "shopping-list-by-location", "--store", Self.corner])
        #expect(text.stdout.hasPrefix("Weekly — shopping list by location at Corner shop  (as of seq \(views.asOf))\n\nBakery\n"), "\(text.stdout)")
        // Without a store or trip: the household's order, store null.
        let plain = try JSONValue.parse(Array(try tool.run(["view", "shopping-list-by-location", "--json"]).stdout.utf8))
        #expect(plain == ShoppingListView(views, list: ListID(Self.weekly)!, grouping: .byLocation)?.json)
        #expect(plain["store"] == .null)
        // A trip at the corner shop makes it the default.
        _ = try Self.apply(tool, #"{"type":"StartTrip","data":{"store":"Corner shop"}}"#)
        let during = try JSONValue.parse(Array(try tool.run(["view", "shopping-list-by-location", "--json", "--actor", "ana"]).stdout.utf8))
        #expect(during["store"] == .object([("id", .string(Self.corner)), ("name", "Corner shop")]))
        #expect(during["sections"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Bakery", "Dairy"])
        // Usage errors: an unknown or deleted store, --store on another view.
        let unknown = try tool.run(["view", "shopping-list-by-location", "--store", "Nowhere"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("there is no live store named \"Nowhere\"; the stores are Corner shop, Market"), "\(unknown.stderr)")
        #expect(try tool.run(["view", "shopping-list-by-location", "--store", Self.closed]).status == 2)
        #expect(try tool.run(["view", "lists", "--store", "Market"]).status == 2)
    }

    @Test func theStoresViewHistoryAndAuditByStore() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        for line in [#"{"type":"ReorderStoreLocations","data":{"store":"Market","order":["Produce","Dairy"]}}"#,
                     #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e01","item":"Milk","store":"Market"}}"#,
                     #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e02","item":"Bread","store":"Corner shop"}}"#] {
            #expect(try Self.apply(tool, line)["ok"] as? Bool == true, "\(line)")
        }
        let journal = tool.path("shop.ndjson")
        let views = try ViewEngine.views(journal: journal, useSnapshot: false).0
        let stores = try tool.run(["view", "stores", "--json"])
        #expect(stores.status == 0, "\(stores.stderr)")
        #expect(try JSONValue.parse(Array(stores.stdout.utf8)) == StoresView(views).json)
        #expect(StoresView(views).stores.map(\.name) == ["Corner shop", "Market"])
        let text = try tool.run(["view", "stores"]).stdout
        #expect(text.contains("  Market: Produce → Dairy → Bakery → Unknown Location\n"), "\(text)")
        #expect(text.contains("  Corner shop: Dairy → Bakery → Produce → Unknown Location (the household's)"), "\(text)")
        let audit = try tool.run(["audit", "--store", "market", "--json"])
        #expect(try JSONValue.parse(Array(audit.stdout.utf8))["purchases"]?.arrayValue?.compactMap { $0["purchase"]?.stringValue }
                == ["00000000-0000-0000-0000-000000000E01"])
        let history = try tool.run(["history", "--store", "Market", "--json"])
        #expect(try JSONValue.parse(Array(history.stdout.utf8))["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue }
                == ["StoreCreated", "StoreLocationsReordered", "ItemPurchased"])
        let historyText = try tool.run(["history", "--store", "Market"]).stdout
        #expect(historyText.contains("StoreLocationsReordered  Market: Produce, Dairy\n"), "\(historyText)")
        // A deleted store by its last name; an unknown one is the usage error the other filters give.
        #expect(try tool.run(["history", "--store", "closed"]).status == 0)
        for command in [["audit", "--store", "Nowhere"], ["history", "--store", "Nowhere"]] {
            let refused = try tool.run(command)
            #expect(refused.status == 2, "\(command)")
            #expect(refused.stderr.contains("there is no store named \"Nowhere\""), "\(refused.stderr)")
        }
        let item = try tool.run(["audit", "--item", "Nowhere"])
        #expect(item.status == 2 && item.stderr.contains("there is no item named \"Nowhere\""))
    }

    @Test func applyHelpListsTheCommandWithItsFields() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let help = try tool.run(["apply", "--help"]).stdout
        #expect(help.contains("\n  ReorderStoreLocations  store, order\n"), "\(help)")
    }
}
