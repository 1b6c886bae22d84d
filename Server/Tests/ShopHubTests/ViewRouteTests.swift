import Foundation
import ShopEvents
import ShopTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `GET /v1/households/{H}/views/{NAME}` (docs/HUB.md, "Views over HTTP") on a real `shop-hub`: every view, with its
/// options, answers byte for byte what `shop-replay view NAME --json` prints on the journal exported
/// from the hub; who may ask; the refusals; views kept current as pushes arrive; 304 for a known head.
@Suite("views over HTTP", .serialized)
struct ViewRouteTests {
    @Test("every view and option: the hub's body is shop-replay view --json's stdout on the exported journal; tokens, refusals, a push, ETag and 304",
          arguments: [Backend.files])
    func viewsOverHTTP(_ backend: Backend) async throws { try await Self.viewsOverHTTPBody(backend) }

    @Test("every view and option: the hub's body is shop-replay view --json's stdout on the exported journal; tokens, refusals, a push, ETag and 304 — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)), arguments: [Backend.postgres])
    func viewsOverHTTPOnPostgres(_ backend: Backend) async throws { try await Self.viewsOverHTTPBody(backend) }

    static let now = "2026-12-24T10:00:00.000Z"

    /// What a household does: a store, a second list, purchases (one reverted), an assignment, a list deleted, a trip paused.
    static func history(list: ListID, items: [ItemID]) -> [String] {
        let (store, party, gone, trip) = (StoreID(), ListID(), ListID(), TripID())
        return [
            #"{"type":"CreateStore","data":{"store":"\#(store)","name":"Corner shop"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(party)","name":"Party","priority":"high"}}"#,
            #"{"type":"AddItemToList","data":{"list":"\#(party)","item":"\#(items[0])","quantity":6}}"#,
            #"{"type":"AssignEntry","data":{"list":"\#(list)","item":"\#(items[1])","member":"ben"}}"#,
            #"{"type":"StartTrip","data":{"trip":"\#(trip)","list":"\#(list)","store":"\#(store)"}}"#,
            #"{"type":"PurchaseItem","data":{"item":"\#(items[0])","list":"\#(list)","unitPrice":189}}"#,
            #"{"type":"PurchaseItem","data":{"purchase":"00000000-0000-4000-8000-0000000000a1","item":"\#(items[2])","unitPrice":99}}"#,
            #"{"type":"RevertPurchase","data":{"purchase":"00000000-0000-4000-8000-0000000000a1"}}"#,
            #"{"type":"CreateList","data":{"list":"\#(gone)","name":"Old"}}"#,
            #"{"type":"DeleteList","data":{"list":"\#(gone)"}}"#,
            #"{"type":"PauseTrip","data":{"trip":"\#(trip)"}}"#,
        ]
    }

    /// Each view's name and query parameters: every view, and the options of each.
    static func cases(list: ListID, items: [ItemID]) -> [(view: String, options: [(String, String)])] {
        var cases: [(view: String, options: [(String, String)])] = []
        for view in ["shopping-list-by-location", "shopping-list-by-name", "list-detail", "lists", "deleted-lists", "locations",
                     "all-items-by-name", "all-items-by-purchase-date", "audit", "stats", "share-text", "members", "prices", "stores"] {
            cases.append((view, []))
        }
        cases += [
            ("due", [("now", now)]), ("suggestions", [("now", now)]), ("household", [("now", now)]), ("item", [("item", "Milk")]),
            ("shopping-list-by-location", [("list", "weekly")]), ("shopping-list-by-name", [("list", list.description), ("for", "ben")]),
            ("shopping-list-by-location", [("store", "Corner shop")]), ("list-detail", [("list", "Party")]), ("share-text", [("list", "Weekly")]),
            ("prices", [("item", items[0].description)]), ("item", [("item", items[2].description)]),
            ("suggestions", [("prefix", "b"), ("limit", "1"), ("now", now), ("list", "Weekly")]), ("due", [("now", "2027-01-01")]),
            ("lists", [("as-of", "6")]), ("audit", [("as-of", "2020-01-01")]), ("household", [("as-of", "12")]),
            ("stats", [("as-of", "20")]), ("soft-deleted-lists", []),
        ]
        return cases
    }

    static func query(_ options: [(String, String)]) -> String {
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let pairs = options.map { "\($0)=\($1.addingPercentEncoding(withAllowedCharacters: allowed) ?? $1)" }
        return pairs.isEmpty ? "" : "?" + pairs.joined(separator: "&")
    }

    static func viewsOverHTTPBody(_ backend: Backend) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: ["--requests-per-second", "500"])
        defer { #expect(hub.terminate() == 0) }
        let world = SyncWorld()
        let (household, list, items) = try HostedHousehold.make(on: hub, world: world, members: [("ben", .member), ("vic", .viewer)],
                                                                items: ["Milk", "Bread", "Butter"])
        let answers = try world.apply("ana", actor: "ana", history(list: list, items: items))
        #expect(answers.allSatisfy { $0["ok"] as? Bool == true }, "\(answers)")
        #expect(try world.sync("ana", actor: "ana").status == 0)
        let journal = world.tool.path("exported.ndjson")
        Scratch.write(try hub.journal(household.id), to: journal)

        for (view, options) in cases(list: list, items: items) {
            let answer = try await HTTP.call("GET", "\(household.url)/views/\(view)\(query(options))", token: household.ownerToken)
            let arguments = options.flatMap { ["--\($0.0)", $0.1] }
            // The owner's device is ana's: the tool asks as ana too (whose trip the trip-following views take).
            let printed = try world.tool.run(["view", view, "--json", "--journal", journal, "--actor", "ana"] + arguments)
            #expect(printed.status == 0, "\(view) \(options): \(printed.stderr)")
            #expect(answer.status == 200 && answer.headers["content-type"] == "application/json", "\(view) \(options): \(answer.status) \(answer.text)")
            #expect(answer.text == printed.stdout, "\(view) \(options)")
        }
        try await expectWhoMayAsk(household, world: world, hub: hub)
        try await expectRefusals(household)
        try await expectKeptCurrent(household, world: world, journal: journal, list: list, items: items)
    }

    @Test("the trip-following views follow the asking device's actor's own trip: Ben's phone sees Rewe's order, Ana's the household's; household lists both trips",
          arguments: [Backend.files])
    func viewsFollowTheAskersTrip(_ backend: Backend) async throws { try await Self.viewsFollowTheAskersTripBody(backend) }

    @Test("the trip-following views follow the asking device's actor's own trip — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)), arguments: [Backend.postgres])
    func viewsFollowTheAskersTripOnPostgres(_ backend: Backend) async throws { try await Self.viewsFollowTheAskersTripBody(backend) }

    static func viewsFollowTheAskersTripBody(_ backend: Backend) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: ["--requests-per-second", "500"])
        defer { #expect(hub.terminate() == 0) }
        let world = SyncWorld()
        let (household, list, items) = try HostedHousehold.make(on: hub, world: world, members: [("ben", .member)], items: ["Milk", "Bread"])
        let (rewe, bakery, bensTrip) = (StoreID(), LocationID(), TripID())
        let setUp = try world.apply("ana", actor: "ana", [
            #"{"type":"CreateLocation","data":{"location":"\#(bakery)","name":"Bakery"}}"#,
            #"{"type":"RelocateItem","data":{"item":"\#(items[1])","location":"\#(bakery)"}}"#,
            #"{"type":"CreateStore","data":{"store":"\#(rewe)","name":"Rewe"}}"#,
            #"{"type":"ReorderStoreLocations","data":{"store":"\#(rewe)","order":["\#(bakery)"]}}"#,
        ])
        #expect(setUp.allSatisfy { $0["ok"] as? Bool == true }, "\(setUp)")
        #expect(try world.sync("ana", actor: "ana").status == 0)
        try await household.join("ben", actor: "ben")
        let bensToken = try HubToken.load(journal: world.path("ben"))
        let started = try world.apply("ben", actor: "ben", [#"{"type":"StartTrip","data":{"trip":"\#(bensTrip)","list":"\#(list)","store":"\#(rewe)"}}"#])
        #expect(started.allSatisfy { $0["ok"] as? Bool == true }, "\(started)")
        #expect(try world.sync("ben", actor: "ben").status == 0)
        let journal = world.tool.path("exported.ndjson")
        Scratch.write(try hub.journal(household.id), to: journal)
        for (view, options) in [("shopping-list-by-location", ""), ("share-text", ""), ("household", "?now=\(now)"), ("shopping-list-by-location", "?for=ben")] {
            for (actor, token) in [("ana", household.ownerToken), ("ben", bensToken)] {
                let answer = try await HTTP.call("GET", "\(household.url)/views/\(view)\(options)", token: token)
                let arguments = options.isEmpty ? [] : ["--" + options.dropFirst().split(separator: "=")[0], String(options.split(separator: "=")[1])]
                let printed = try world.tool.run(["view", view, "--json", "--journal", journal, "--actor", actor] + arguments)
                #expect(answer.status == 200 && answer.text == printed.stdout, "\(view)\(options) as \(actor): \(answer.text) ≠ \(printed.stdout)")
            }
        }
        let asAna = try await HTTP.call("GET", "\(household.url)/views/shopping-list-by-location", token: household.ownerToken)
        let asBen = try await HTTP.call("GET", "\(household.url)/views/shopping-list-by-location", token: bensToken)
        #expect((asAna.json["store"] as? NSNull) != nil, "\(asAna.text)")
        #expect((asBen.json["store"] as? [String: Any])?["name"] as? String == "Rewe", "\(asBen.text)")
        let household2 = try await HTTP.call("GET", "\(household.url)/views/household?now=\(now)", token: household.ownerToken)
        let trips = household2.json["trips"] as? [[String: Any]] ?? []
        #expect(trips.map { $0["shopper"] as? String } == ["ben"] && (household2.json["trip"] as? NSNull) != nil, "\(household2.text)")
    }

    /// A viewer's token works; no token is 401; another household's token is 403.
    static func expectWhoMayAsk(_ household: HostedHousehold, world: SyncWorld, hub: HubProcess) async throws {
        try await household.join("vic", actor: "vic")
        let viewer = try HubToken.load(journal: world.path("vic"))
        let owner = try await HTTP.call("GET", "\(household.url)/views/lists", token: household.ownerToken)
        let seen = try await HTTP.call("GET", "\(household.url)/views/lists", token: viewer)
        #expect(seen.status == 200 && seen.body == owner.body, "\(seen.status) \(seen.text)")
        let anonymous = try await HTTP.call("GET", "\(household.url)/views/lists")
        #expect(anonymous.status == 401 && anonymous.errorCode == "unauthorized")
        let otherWorld = SyncWorld()
        let (other, _, _) = try HostedHousehold.make(on: hub, world: otherWorld)
        let foreign = try await HTTP.call("GET", "\(household.url)/views/lists", token: other.ownerToken)
        #expect(foreign.status == 403 && foreign.errorCode == "forbidden", "\(foreign.status) \(foreign.text)")
    }

    /// 404 for a view or a thing that is not there, 400 for a wrong question; the hub's error shape.
    static func expectRefusals(_ household: HostedHousehold) async throws {
        let refusals: [(String, Int, String)] = [
            ("nope", 404, "unknown_view"), ("list-detail?list=Nope", 404, "unknown_list"), ("prices?item=Nope", 404, "unknown_item"),
            ("shopping-list-by-location?store=Nope", 404, "unknown_store"), ("shopping-list-by-name?for=zoe", 404, "unknown_member"),
            ("suggestions?limit=0", 400, "bad_option"), ("lists?list=Weekly", 400, "bad_option"), ("item", 400, "bad_option"),
            ("due?now=soon", 400, "bad_option"), ("lists?colour=red", 400, "bad_request"), ("lists?as-of=1&as-of=2", 400, "bad_request"),
        ]
        for (path, status, code) in refusals {
            let answer = try await HTTP.call("GET", "\(household.url)/views/\(path)", token: household.ownerToken)
            #expect(answer.status == status && answer.errorCode == code, "\(path): \(answer.status) \(answer.text)")
            let message = (answer.json["error"] as? [String: Any])?["message"] as? String
            #expect(message?.isEmpty == false, "\(path)")
        }
    }

    /// A push, then a view: the kept views show it, under a new ETag; a known ETag is 304 with no body.
    static func expectKeptCurrent(_ household: HostedHousehold, world: SyncWorld, journal: String, list: ListID, items: [ItemID]) async throws {
        let port = household.hub.port, path = "/v1/households/\(household.id)/views/list-detail?list=Weekly"
        let before = try RawHTTP.call(port: port, "GET", path, headers: ["Authorization": "Bearer \(household.ownerToken)"])
        let tag = try #require(before.headers["etag"])
        let same = try RawHTTP.call(port: port, "GET", path, headers: ["Authorization": "Bearer \(household.ownerToken)", "If-None-Match": tag])
        #expect(same.status == 304 && same.body.isEmpty && same.headers["etag"] == tag, "\(same.status) \(same.headers)")
        let answers = try world.apply("ana", actor: "ana", [#"{"type":"ChangeQuantity","data":{"list":"\#(list)","item":"\#(items[2])","quantity":4}}"#,
                                                            #"{"type":"CreateItem","data":{"name":"Bagels"}}"#])
        #expect(answers.count == 2 && answers.allSatisfy { $0["ok"] as? Bool == true }, "\(answers)")
        #expect(try world.sync("ana", actor: "ana").status == 0)
        Scratch.write(try household.hub.journal(household.id), to: journal)
        let after = try RawHTTP.call(port: port, "GET", path, headers: ["Authorization": "Bearer \(household.ownerToken)", "If-None-Match": tag])
        let printed = try world.tool.run(["view", "list-detail", "--list", "Weekly", "--json", "--journal", journal, "--actor", "ana"])
        #expect(after.status == 200 && after.text == printed.stdout, "\(after.status) \(after.text)")
        #expect(after.headers["etag"] != nil && after.headers["etag"] != tag)
        #expect(after.text.contains("\"quantity\": 4"))
        // The suggestions' index, kept since the first suggestions view, has folded the new item too.
        let suggested = try await HTTP.call("GET", "\(household.url)/views/suggestions?prefix=b&now=\(now)", token: household.ownerToken)
        let suggestedHere = try world.tool.run(["view", "suggestions", "--prefix", "b", "--now", now, "--json", "--journal", journal, "--actor", "ana"])
        #expect(suggested.status == 200 && suggested.text == suggestedHere.stdout && suggested.text.contains("Bagels"), "\(suggested.text)")
    }
}
