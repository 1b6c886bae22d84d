import Foundation
import Testing
import ShopEvents
@testable import ShopProjections
import ShopTestSupport

/// Issue 52: one way from a view's name and options to its JSON (``ViewQuery``), the household and
/// item views, and the purchase of each bought entry of list-detail. Whole values, checked by hand.
@Suite struct ViewQueryTests {
    static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    let milk: ItemID = id(1), soap: ItemID = id(2), weekly: ListID = id(0x10), party: ListID = id(0x11)
    let corner: StoreID = id(0x51), trip: TripID = id(0x70)

    /// A household with two lists, a store, purchases (one reverted), a trip paused; `more` runs last.
    func household(_ more: (Journal) throws -> Void = { _ in }) throws -> (path: String, folder: URL) {
        let folder = Scratch.directory()
        let path = folder.appendingPathComponent("shop.ndjson").path
        let journal = try Journal.open(path: path, options: .init(clock: .stepping(from: Self.start, by: 60_000), ids: .sequential(prefix: 0xE0), actor: "ana"))
        try journal.execute(.createHousehold(household: id(0xAA), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        try journal.execute(.createItem(item: milk, name: "Milk", details: ItemDetails(category: "Dairy", notes: "the blue one", unitPrice: 119, unit: "l", barcode: "4006381333931")))
        try journal.execute(.createItem(item: soap, name: "Soap"))
        try journal.execute(.createStore(store: corner, name: "Corner shop"))
        try journal.execute(.createList(list: weekly, name: "Weekly", priority: nil))
        try journal.execute(.createList(list: party, name: "Party", priority: .high))
        try journal.execute(.addItemToList(list: weekly, item: milk, quantity: 2))
        try journal.execute(.addItemToList(list: weekly, item: soap, quantity: 1))
        try journal.execute(.addItemToList(list: party, item: milk, quantity: 6))
        try journal.execute(.startTrip(trip: trip, list: weekly, store: corner))
        try journal.execute(.purchaseItem(purchase: id(0x100), item: milk, list: weekly, unitPrice: 115))
        try journal.execute(.purchaseItem(purchase: id(0x101), item: milk, quantity: 3, unitPrice: 125))
        try journal.execute(.revertPurchase(purchase: id(0x101)))
        try journal.execute(.pauseTrip(trip: trip))
        try more(journal)
        journal.close()
        return (path, folder)
    }

    /// The `at` of each event of the journal, by seq.
    func times(_ path: String) throws -> [Int: Timestamp] {
        let reader = try JournalReader(path: path, verifyChain: false)
        var times: [Int: Timestamp] = [:]
        while let line = try reader.next() { times[line.seq] = line.at }
        return times
    }

    @Test func householdViewNamesTheHouseholdAndThePausedTrip() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let at = try times(path)
        // Started at seq 10, paused at seq 14: 4 minutes running (purchases, a revert between), then paused.
        let (started, paused) = (try #require(at[10]), try #require(at[14]))
        let now = paused.adding(milliseconds: 3_600_000)
        let json = try ViewQuery(name: "household", options: ["now": now.description], shopper: "ana").json(views, clock: .init(millisecondsSince1970: 0))
        let anasTrip: JSONValue = .object([
            ("id", .string(trip.description)), ("shopper", "ana"), ("store", .object([("id", .string(corner.description)), ("name", "Corner shop")])),
            ("startedAt", .string(started.description)), ("paused", true), ("pausedAt", .string(paused.description)),
            ("activeSeconds", .double(Double(paused.millisecondsSince1970 - started.millisecondsSince1970) / 1000))])
        let household: JSONValue = .object([("id", .string((id(0xAA) as HouseholdID).description)), ("name", "Home"), ("currency", "EUR"), ("timeZone", "Europe/Berlin")])
        #expect(json == .object([("view", "household"), ("asOf", 14), ("household", household), ("open", true), ("trip", anasTrip), ("trips", [anasTrip])]))
        // Asked by someone else, the trip is not theirs: every trip is still listed with its shopper.
        let bens = try ViewQuery(name: "household", options: ["now": now.description], shopper: "ben").json(views, clock: .init(millisecondsSince1970: 0))
        #expect(bens == .object([("view", "household"), ("asOf", 14), ("household", household), ("open", true), ("trip", .null), ("trips", [anasTrip])]))
    }

    @Test func aRunningTripCountsToNowAndAnEndedOneIsNone() throws {
        let (path, folder) = try household { journal in
            try journal.execute(.resumeTrip(trip: trip))
        }
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let at = try times(path)
        let (started, paused, resumed) = (try #require(at[10]), try #require(at[14]), try #require(at[15]))
        let now = resumed.adding(milliseconds: 90_000)
        let view = HouseholdView(views, now: now, shopper: "ana")
        let running = Double(paused.millisecondsSince1970 - started.millisecondsSince1970 + 90_000) / 1000
        #expect(view.trips == [view.trip])
        #expect(view.trip == HouseholdView.TripRow(id: trip, shopper: "ana", store: StoreRef(id: corner, name: "Corner shop"), startedAt: started,
                                                  paused: false, pausedAt: nil, activeSeconds: running))
        // The clock when no `now` is given; as of an earlier seq, the time of that event.
        #expect(try ViewQuery(view: .household, shopper: "ana").json(views, clock: now) == view.json)
        let early = try ViewEngine.views(journal: path, asOf: .seq(12), useSnapshot: false).0
        let asOf = try ViewQuery(view: .household, asOf: .seq(12), shopper: "ana").json(early, clock: now)
        #expect(asOf == HouseholdView(early, now: try #require(at[12]), shopper: "ana").json)
        let (endedPath, endedFolder) = try household { journal in try journal.execute(.endTrip(trip: trip)) }
        defer { try? FileManager.default.removeItem(at: endedFolder) }
        let ended = try ViewEngine.views(journal: endedPath, useSnapshot: false).0
        #expect(HouseholdView(ended, now: now) == HouseholdView(asOf: 15, household: ended.state.household, open: true, trip: nil, trips: []))
    }

    @Test func aPausedTripKeepsWhenItWasPausedThroughASnapshot() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let replayed = try ViewEngine.views(journal: path, useSnapshot: false).0
        var w = BinaryWriter()
        replayed.state.encode(to: &w)
        var r = BinaryReader(w.bytes)
        let read = try ShopState(from: &r)
        #expect(read == replayed.state)
        #expect(read.trips[trip]?.pausedAt == (try times(path))[14])
    }

    @Test func itemViewShowsDetailsListsPricesAndLastPurchasesNewestFirst() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let records = views.audit.records.filter { $0.item == milk }
        #expect(records.map(\.purchase) == [id(0x100), id(0x101)])
        let prices = PricesView(views, item: milk).items.first?.stores ?? []
        #expect(prices.count == 1)
        for text in ["Milk", "milk", milk.description, "4006381333931"] {
            let json = try ViewQuery(name: "item", options: ["item": text]).json(views, clock: Self.start)
            #expect(json == .object([
                ("view", "item"), ("asOf", 14),
                ("item", .object([("id", .string(milk.description)), ("name", "Milk"), ("location", .string(LocationID.unknown.description)),
                                  ("locationName", .string(views.name(of: LocationID.unknown))), ("unitPrice", 119), ("unit", "l"),
                                  ("barcode", "4006381333931"), ("category", "Dairy"), ("notes", "the blue one"), ("available", true), ("deleted", false)])),
                // Party first: the lists view's order (priority high first).
                ("lists", .array([.object([("id", .string(party.description)), ("name", "Party"), ("quantity", 6), ("bought", false)]),
                                  .object([("id", .string(weekly.description)), ("name", "Weekly"), ("quantity", 2), ("bought", true)])])),
                ("prices", .array(prices.map(PricesView.json))),
                ("purchases", .array(records.reversed().map(AuditView.json))),
            ]), "\(text)")
        }
        #expect(prices.first?.lastUnitPrice == 115 && prices.first?.store == corner)
    }

    @Test func listDetailNamesThePurchaseOfEachBoughtEntryOnly() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        let json = try ViewQuery(view: .listDetail, list: "weekly").json(views, clock: Self.start)
        let entries = json["entries"]?.arrayValue ?? []
        #expect(entries == [
            .object([("item", .string(soap.description)), ("name", "Soap"), ("quantity", 1), ("bought", false), ("unit", .null), ("assignee", .null)]),
            .object([("item", .string(milk.description)), ("name", "Milk"), ("quantity", 2), ("bought", true), ("unit", "l"), ("assignee", .null),
                     ("purchase", .string((id(0x100) as PurchaseID).description))]),
        ])
    }

    @Test func refusalsHaveStableCodes() throws {
        let (path, folder) = try household()
        defer { try? FileManager.default.removeItem(at: folder) }
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        func code(_ name: String, _ options: [String: String], in views: HouseholdViews) -> ViewQueryError.Code? {
            do { _ = try ViewQuery(name: name, options: options).json(views, clock: Self.start); return nil } catch { return error.code }
        }
        let cases: [(String, [String: String], ViewQueryError.Code)] = [
            ("nope", [:], .unknownView), ("lists", ["list": "Weekly"], .badOption), ("suggestions", ["limit": "0"], .badOption),
            ("suggestions", ["limit": "100001"], .badOption), ("due", ["now": "yesterday"], .badOption), ("lists", ["as-of": "x"], .badOption),
            ("lists", ["colour": "red"], .badOption), ("item", [:], .badOption), ("list-detail", ["list": "Nope"], .unknownList),
            ("prices", ["item": "Bread"], .unknownItem), ("shopping-list-by-location", ["store": "Mall"], .unknownStore),
            ("lists", ["now": "2026-03-01"], .badOption),
        ]
        for (name, options, expected) in cases { #expect(code(name, options, in: views) == expected, "\(name) \(options)") }
        #expect(code("list-detail", [:], in: HouseholdViews()) == .noList)
        #expect(ViewQueryError.Code.unknownItem.isUnknown && !ViewQueryError.Code.noList.isUnknown && !ViewQueryError.Code.badOption.isUnknown)
        // A member: any name in an open household, a member in a closed one.
        #expect(code("shopping-list-by-name", ["for": "zoe"], in: views) == nil)
        let (closedPath, closedFolder) = try household { journal in try journal.execute(.addMember(member: "ana", role: .owner)) }
        defer { try? FileManager.default.removeItem(at: closedFolder) }
        let closed = try ViewEngine.views(journal: closedPath, useSnapshot: false).0
        #expect(code("shopping-list-by-name", ["for": "zoe"], in: closed) == .unknownMember)
    }
}
