import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// Two shoppers at once through `shop-replay`, run as a child process: Ben at
/// Rewe, Ana at home and then at the market; each purchase at its own
/// shopper's store, the list by location and share-text following the asker's
/// trip (`--actor`, or `--for`), `view household` naming every trip's shopper.
@Suite struct ShoppingTogetherToolTests {
    static let rewe = "00000000-0000-0000-0000-000000000051", market = "00000000-0000-0000-0000-000000000052"
    static let bensTrip = "00000000-0000-0000-0000-000000000071", anasTrip = "00000000-0000-0000-0000-000000000072"

    static func apply(_ tool: ToolRunner, actor: String, _ lines: [String]) throws {
        let applied = try tool.run(["apply", "--actor", actor, "--json"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    }

    static func json(_ tool: ToolRunner, _ arguments: [String]) throws -> JSONValue {
        let result = try tool.run(arguments + ["--json"])
        #expect(result.status == 0, "\(arguments): \(result.stderr)")
        return try JSONValue.parse(Array(result.stdout.utf8))
    }

    /// Dairy before Bakery at home; Rewe walks Bakery first.
    static func household(_ tool: ToolRunner) throws {
        try apply(tool, actor: "ana", [
            #"{"type":"CreateHousehold","data":{"household":"00000000-0000-0000-0000-0000000000aa","name":"Home","currency":"EUR","timeZone":"UTC"}}"#,
            #"{"type":"CreateLocation","data":{"location":"00000000-0000-0000-0000-000000000021","name":"Dairy"}}"#,
            #"{"type":"CreateLocation","data":{"location":"00000000-0000-0000-0000-000000000022","name":"Bakery"}}"#,
            #"{"type":"CreateList","data":{"list":"00000000-0000-0000-0000-000000000010","name":"Weekly"}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a1","name":"Eggs","location":"Dairy","unitPrice":300}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a2","name":"Bread","location":"Bakery","unitPrice":250}}"#,
            #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Eggs"}}"#,
            #"{"type":"AddItemToList","data":{"list":"Weekly","item":"Bread"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(rewe)","name":"Rewe"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(market)","name":"Market"}}"#,
            #"{"type":"ReorderStoreLocations","data":{"store":"Rewe","order":["Bakery","Dairy"]}}"#,
        ])
        try apply(tool, actor: "ben", [#"{"type":"StartTrip","data":{"trip":"\#(bensTrip)","store":"Rewe"}}"#])
    }

    @Test("Ana buys Eggs at home while Ben shops at Rewe: her purchase is at no store, his at Rewe; the audit says so")
    func eachPurchaseAtItsOwnShoppersStore() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        try Self.apply(tool, actor: "ana", [#"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e01","item":"Eggs","list":"Weekly"}}"#])
        try Self.apply(tool, actor: "ben", [#"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e02","item":"Bread","list":"Weekly"}}"#])
        let audit = try Self.json(tool, ["audit"])
        let rows = audit["purchases"]?.arrayValue ?? []
        #expect(rows.map { $0["itemName"] } == ["Eggs", "Bread"], "\(audit)")
        #expect(rows.map { $0["actor"] } == ["ana", "ben"])
        #expect(rows.map { $0["store"] } == [.null, .string(Self.rewe)])
        #expect(rows.map { $0["storeName"] } == [.null, "Rewe"])
        #expect(try tool.run(["verify"]).status == 0)
    }

    @Test("the list by location and share-text follow the asker's own trip: --actor, or --for; another shopper's never")
    func theListFollowsTheAskersTrip() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let reweStore: JSONValue = .object([("id", .string(Self.rewe)), ("name", "Rewe")])
        let asAna = try Self.json(tool, ["view", "shopping-list-by-location", "--actor", "ana"])
        #expect(asAna["store"] == .null)
        #expect(asAna["sections"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Dairy", "Bakery"])
        let asBen = try Self.json(tool, ["view", "shopping-list-by-location", "--actor", "ben"])
        #expect(asBen["store"] == reweStore)
        #expect(asBen["sections"]?.arrayValue?.compactMap { $0["title"]?.stringValue } == ["Bakery", "Dairy"])
        let forBen = try Self.json(tool, ["view", "shopping-list-by-location", "--actor", "ana", "--for", "ben"])
        #expect(forBen["store"] == reweStore && forBen["for"] == "ben")
        #expect(try tool.run(["view", "share-text", "--actor", "ben"]).stdout == "Weekly — 2 to buy\n\nBakery\n- Bread\nDairy\n- Eggs\n")
        #expect(try tool.run(["view", "share-text", "--actor", "ana"]).stdout == "Weekly — 2 to buy\n\nDairy\n- Eggs\nBakery\n- Bread\n")
    }

    @Test("view household lists every trip under way with its shopper, the asker's own as trip; both may run at once")
    func theHouseholdListsEveryTrip() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.household(tool)
        let again = try tool.run(["apply", "--actor", "ben", "--json"], stdin: #"{"type":"StartTrip","data":{"store":"Market"}}"# + "\n")
        #expect(again.status == 1 && again.stdout.contains("\"trip_in_progress\""), "\(again.stdout)")
        try Self.apply(tool, actor: "ana", [#"{"type":"StartTrip","data":{"trip":"\#(Self.anasTrip)","store":"Market"}}"#])
        let now = "2030-01-01T00:00:00.000Z"
        let household = try Self.json(tool, ["view", "household", "--actor", "ana", "--now", now])
        let trips = household["trips"]?.arrayValue ?? []
        #expect(trips.map { $0["shopper"] } == ["ben", "ana"])
        #expect(trips.map { $0["id"] } == [.string(Self.bensTrip), .string(Self.anasTrip)])
        #expect(trips.map { $0["store"]?["name"] } == ["Rewe", "Market"])
        #expect(household["trip"] == trips.last)
        #expect(try Self.json(tool, ["view", "household", "--actor", "cleo", "--now", now])["trip"] == .null)
        let text = try tool.run(["view", "household", "--actor", "ana", "--now", now]).stdout
        let lines = text.split(separator: "\n").filter { $0.hasPrefix("trips") || $0.hasPrefix("           ") }
        #expect(lines.count == 2, "\(text)")
        #expect(lines.first?.hasPrefix("trips      ben: running at Rewe, started ") == true, "\(text)")
        #expect(lines.last?.hasPrefix("           ana (yours): running at Market, started ") == true, "\(text)")
        // Ana ends Ben's trip, left running; he may start another.
        try Self.apply(tool, actor: "ana", [#"{"type":"EndTrip","data":{"trip":"\#(Self.bensTrip)"}}"#])
        try Self.apply(tool, actor: "ben", [#"{"type":"StartTrip","data":{"store":"Market"}}"#])
        #expect(try tool.run(["verify"]).status == 0)
    }
}
