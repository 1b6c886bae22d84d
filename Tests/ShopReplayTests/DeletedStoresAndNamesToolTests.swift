import Foundation
import Testing
import ShopEvents
import ShopProjections
import ShopTestSupport

/// What a user trial of stores found, at the tool (run as a child
/// process), numbered as in the trial: 2, a purchase during a trip whose store
/// was deleted; 1, a name that only deleted things share; 7, `view stores`
/// from a snapshot of the totals; 14, the demo's "Try next".
@Suite struct DeletedStoresAndNamesToolTests {
    static let discount = "00000000-0000-0000-0000-000000000051", discountAgain = "00000000-0000-0000-0000-000000000052"
    static let market = "00000000-0000-0000-0000-000000000053", party = "00000000-0000-0000-0000-000000000010"

    static func apply(_ tool: ToolRunner, _ lines: [String]) throws {
        let applied = try tool.run(["apply", "--actor", "ana", "--json"], stdin: lines.joined(separator: "\n") + "\n")
        #expect(applied.status == 0, "\(applied.stdout)\(applied.stderr)")
    }

    /// Party with Bread, a trip at Discount, Discount deleted during it, Bread bought without a store.
    static func tripAtADeletedStore(_ tool: ToolRunner) throws {
        try apply(tool, [
            #"{"type":"CreateHousehold","data":{"household":"00000000-0000-0000-0000-0000000000aa","name":"Home","currency":"EUR","timeZone":"UTC"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(party)","name":"Party"}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a2","name":"Bread","unitPrice":249}}"#,
            #"{"type":"AddItemToList","data":{"list":"Party","item":"Bread"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(discount)","name":"Discount"}}"#,
            #"{"type":"StartTrip","data":{"list":"Party","store":"Discount"}}"#,
            #"{"type":"DeleteStore","data":{"store":"Discount"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e01","item":"Bread","list":"Party"}}"#,
        ])
    }

    @Test("a purchase during a trip whose store was deleted is at no store; the stats and audit count it there")
    func aPurchaseAfterTheTripsStoreWasDeleted() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.tripAtADeletedStore(tool)
        let events = try JournalReader.readAll(path: tool.path("shop.ndjson")).map(\.event)
        #expect(events.last == .itemPurchased(purchase: PurchaseID("00000000-0000-0000-0000-000000000e01")!, item: ItemID("00000000-0000-0000-0000-0000000000a2")!,
                                              list: ListID(Self.party)!, quantity: 1, unitPrice: 249, location: .unknown, purchasedAt: nil, store: nil))
        let audit = try JSONValue.parse(Array(try tool.run(["audit", "--store", Self.discount, "--json"]).stdout.utf8))
        #expect(audit["purchases"] == .array([]))
        let stats = try JSONValue.parse(Array(try tool.run(["stats", "--json"]).stdout.utf8))
        #expect(stats["stores"] == .array([.object([("store", .null), ("name", "No store"), ("purchases", 1), ("spend", 249)])]))
        #expect(try tool.run(["verify"]).status == 0)
    }

    @Test("a name no live thing has and several deleted ones share is a usage error naming their ids")
    func aNameOnlyDeletedThingsShare() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.tripAtADeletedStore(tool)
        // One deleted Discount: that one.
        let one = try JSONValue.parse(Array(try tool.run(["history", "--store", "discount", "--json"]).stdout.utf8))
        #expect(one["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["StoreCreated", "TripStarted", "StoreDeleted"])
        try Self.apply(tool, [
            #"{"type":"CreateStore","data":{"store":"\#(Self.discountAgain)","name":"Discount"}}"#,
            #"{"type":"DeleteStore","data":{"store":"\#(Self.discountAgain)"}}"#,
            #"{"type":"DeleteItem","data":{"item":"Bread"}}"#,
            #"{"type":"CreateItem","data":{"item":"00000000-0000-0000-0000-0000000000a3","name":"Bread"}}"#,
            #"{"type":"DeleteItem","data":{"item":"00000000-0000-0000-0000-0000000000a3"}}"#,
        ])
        let stores = "2 deleted stores are named \"Discount\": \(Self.discount), \(Self.discountAgain); give the id of the one meant"
        let items = "2 deleted items are named \"bread\": 00000000-0000-0000-0000-0000000000A2, 00000000-0000-0000-0000-0000000000A3; give the id of the one meant"
        for (command, message) in [(["audit", "--store", "Discount"], stores), (["history", "--store", "Discount"], stores),
                                   (["audit", "--item", "bread"], items), (["history", "--item", "bread"], items)] {
            let refused = try tool.run(command)
            #expect(refused.status == 2 && refused.stdout.isEmpty, "\(command)")
            #expect(refused.stderr == "shop-replay \(command[0]): \(message)\nSee shop-replay \(command[0]) --help\n")
        }
        // By id, each is there; a live Discount again wins by its name.
        #expect(try tool.run(["history", "--store", Self.discountAgain]).status == 0)
        try Self.apply(tool, [#"{"type":"CreateStore","data":{"store":"\#(Self.market)","name":"Discount"}}"#])
        let live = try JSONValue.parse(Array(try tool.run(["history", "--store", "Discount", "--json"]).stdout.utf8))
        #expect(live["events"]?.arrayValue?.compactMap { $0["type"]?.stringValue } == ["StoreCreated"])
    }

    @Test("after a snapshot of the totals, view stores reads it, says nothing, and shows what the journal does")
    func theStoresViewFromASnapshot() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        try Self.tripAtADeletedStore(tool)
        try Self.apply(tool, [
            #"{"type":"CreateStore","data":{"store":"\#(Self.market)","name":"Market"}}"#,
            #"{"type":"PurchaseItem","data":{"item":"Bread","store":"Market","purchasedAt":"2026-01-05T10:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-0000-0000-000000000e03","item":"Bread","store":"Market","purchasedAt":"2026-01-07T10:00:00.000Z"}}"#,
            #"{"type":"PurchaseItem","data":{"item":"Bread","store":"Market","purchasedAt":"2026-01-06T10:00:00.000Z"}}"#,
            #"{"type":"RevertPurchase","data":{"purchase":"00000000-0000-0000-0000-000000000e03"}}"#,
        ])
        let plain = try tool.run(["view", "stores", "--json", "--no-snapshot"]), plainText = try tool.run(["view", "stores", "--no-snapshot"])
        #expect(try JSONValue.parse(Array(plain.stdout.utf8))["stores"]?.arrayValue?.first?["lastPurchased"] == "2026-01-06T10:00:00.000Z")
        let saved = try tool.run(["snapshot"])
        #expect(saved.status == 0, "\(saved.stderr)")
        // It names the snapshot by its absolute path, the journal given as a relative one.
        let path = saved.stdout.components(separatedBy: " to ").last?.trimmingCharacters(in: .newlines) ?? ""
        #expect(path.hasPrefix("/") && path.hasSuffix("/shop.ndjson.snapshot") && FileManager.default.fileExists(atPath: path), "\(saved.stdout)")
        for (arguments, expected) in [(["view", "stores", "--json"], plain), (["view", "stores"], plainText)] {
            let fromSnapshot = try tool.run(arguments)
            #expect(fromSnapshot.status == 0 && fromSnapshot.stderr.isEmpty, "\(fromSnapshot.stderr)")
            #expect(fromSnapshot.stdout == expected.stdout)
        }
    }

    @Test("the demo's \"Try next\" names view stores and view suggestions --prefix, and every line it names runs")
    func theDemoSuggestsTheStoresAndSuggestionsViews() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let demo = try tool.run(["demo", "--months", "1", "--journal", "demo.ndjson"])
        #expect(demo.status == 0, "\(demo.stderr)")
        let prefix = "  swift run shop-replay "
        let tries = demo.stdout.components(separatedBy: "\nTry next:\n").last?.split(separator: "\n").map(String.init) ?? []
        #expect(tries.contains("\(prefix)view stores --journal demo.ndjson"), "\(tries)")
        #expect(tries.contains("\(prefix)view suggestions --list Weekly --prefix ba --journal demo.ndjson"), "\(tries)")
        for line in tries {
            #expect(line.hasPrefix(prefix))
            // Words, a quoted one ("Oat drink") kept whole.
            let arguments = line.dropFirst(prefix.count).split(separator: "\"", omittingEmptySubsequences: false).enumerated().flatMap { index, part in
                index % 2 == 1 ? [String(part)] : part.split(separator: " ").map(String.init)
            }
            let result = try tool.run(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty && !result.stdout.isEmpty, "\(line): \(result.stderr)")
        }
    }
}
