import Foundation
import ShopEvents
import ShopProjections

struct Demo: ToolCommand {
    static let name = "demo"
    static let summary = "write a demo journal of a family's months of shopping, then show what it holds"
    static let help = """
    Usage: shop-replay demo [--journal PATH] [--seed N] [--months N] [--json]

    Writes a demo journal: a neighbourhood supermarket's aisles in the order a
    shopper walks them, about a hundred everyday things with prices, a few
    lists, and months of shopping by ana and ben (owners) and cleo (a member;
    oma is a viewer and only looks) — lists filled as things
    run out, weekly trips, things out of stock, a mistaken purchase reverted,
    a party, a renamed item, an aisle that closed. Then it writes the household
    report next to it (PATH.report.html) and shows the shopping
    list by location, the last purchases from the audit and some statistics.
    The same seed always writes the same journal, byte for byte.

    Options:
      --journal PATH   where to write it (default: ./shop-demo.ndjson); a journal
                       already there is never lost: it is renamed to
                       PATH.old-<UTC time> first, and the demo says so
      --seed N         the household's luck (default: 1)
      --months N       how many months of shopping, 1 to 24 (default: 4)
      --json           the same, as JSON
    """

    static let device = "shop-replay demo"

    var options: JournalOptions
    var seed: Int
    var months: Int

    init(_ arguments: inout Arguments) throws(UsageError) {
        options = try JournalOptions(&arguments, defaultJournal: "shop-demo.ndjson")
        seed = try arguments.number("--seed", "N", in: 0...Int(UInt32.max)) ?? 1
        months = try arguments.number("--months", "N", in: 1...24) ?? 4
    }

    func run() throws -> Int32 {
        let path = options.journal
        if FileManager.default.fileExists(atPath: path), (try? JournalReader(path: path, verifyChain: false).next()) == nil {
            throw UsageError(message: "\(path) exists and is not a ShopEvents journal; the demo leaves it alone — give the demo another --journal PATH")
        }
        var simulation = DemoSimulation(seed: UInt64(seed), days: months * 30)
        let requests = simulation.run()
        // Never destroys events: a journal already at `path` is renamed aside, under the writer's lock.
        let journal = try Journal.create(path: path, options: .init(
            // The clock of the simulation's last command: each gives its own `at`, none may be ahead of the writer's clock.
            clock: .stepping(from: requests.last?.at ?? simulation.start, by: 0), ids: .seeded(0xDE00_0000_0000_0000 ^ UInt64(seed)),
            actor: "ana", device: Self.device), existing: .keepAsBackup)
        defer { journal.close() }
        if let backup = journal.previousJournalBackup {
            unlink(path + ".snapshot")   // the old journal's views: derived, and stale now
            Tool.fail("note: \(path) was already there; it is kept, untouched, as \(backup)")
        }
        var start = 0
        while start < requests.count {
            let batch = Array(requests[start..<min(start + 1000, requests.count)])
            for result in try journal.execute(batch: batch) {
                if case let .failure(violation) = result {
                    throw ToolFailure(message: "the demo's own command was rejected (\(violation.code): \(violation.message)); this is a bug", exitCode: 3)
                }
            }
            start += batch.count
        }
        let head = journal.head
        journal.close()
        let engine = ViewEngine(journalPath: path, useSnapshot: false)
        let views = try engine.refresh()
        let report = Report.defaultOut(journal: path)
        _ = try Report.write(views: views, position: engine.position, journal: path, to: report)
        show(views, head: head, path: path, report: report, simulation: simulation)
        return 0
    }

    func show(_ views: HouseholdViews, head: JournalHead, path: String, report: String, simulation: DemoSimulation) {
        let out = Output(json: options.json)
        let weekly = simulation.weekly
        // The simulation made the weekly list and never deletes it: it has a shopping list.
        let shopping = ShoppingListView(views, list: weekly, grouping: .byLocation)!
        let audit = AuditView(views)
        let last = Array(audit.purchases.suffix(8))
        let stats = StatsView(views)
        let currency = views.state.household?.currency
        if options.json {
            out.emit(.object([
                ("journal", .string(path)), ("report", .string(report)), ("events", .int(head.seq)), ("head", .string(head.description)),
                ("seed", .int(seed)), ("months", .int(months)),
                ("members", MembersView(views).json),
                ("shoppingList", shopping.json),
                ("lastPurchases", .array(AuditView(views).json["purchases"]!.arrayValue!.suffix(8))),   // the audit's JSON always has its array
                ("stats", stats.json),
            ]))
            return
        }
        // The journal just written holds months of events: there is a last one's time.
        let days = "\(simulation.start.description.prefix(10)) to \(views.asOfTime!.description.prefix(10))"
        out.line("ShopEvents demo — a family's shopping, kept as an event journal\n")
        out.line("Wrote \(path): \(head.seq) events by \(DemoHousehold.people.joined(separator: ", ")), \(days) (seed \(seed)).")
        out.line("Every line is one immutable event, chained to the one before by its SHA-256; `jq . \(path)` reads it.\n")
        let members = MembersView(views)
        out.line("Members: " + members.members.map { "\($0.member) (\($0.role.rawValue))" }.joined(separator: ", ")
                 + " — owners manage members, members shop, a viewer only looks.\n")
        out.line(TextViews.shoppingList(shopping, currency: currency))
        out.line("\nLast purchases, from the audit (\(audit.purchases.count) in all, \(audit.purchases.filter(\.isReverted).count) reverted)")
        var table = Table(["when", "who", "item", "qty", "price", "where", ""], rightAligned: [3, 4])
        for r in last {
            table.add([Format.time(r.purchasedAt, views.calendar), r.actor, r.itemName, "\(r.quantity)", Format.money(r.unitPrice), r.locationName,
                       r.isReverted ? "reverted" : ""])
        }
        out.line(table.render(indent: "  "))
        out.line("\nStatistics")
        let monthly = stats.months.map { "\($0.month) \(Format.money($0.tally.spend))" }.joined(separator: " · ")
        out.line("  spent per month (\(currency ?? "")): \(monthly)")
        let people = stats.actors.map { "\($0.actor) \(Format.count($0.tally.purchases, "purchase"))" }.joined(separator: " · ")
        out.line("  per person: \(people)")
        let top = stats.items.sorted { $0.tally.spend > $1.tally.spend }.prefix(5)
            .map { "\($0.name) \(Format.money($0.tally.spend))" }.joined(separator: " · ")
        out.line("  most spent on: \(top)")
        let often = stats.items.filter { $0.tally.purchases >= 4 }.sorted { ($0.meanIntervalDays ?? 0) < ($1.meanIntervalDays ?? 0) }.prefix(4)
            .map { "\($0.name) every \(String(format: "%.1f", $0.meanIntervalDays ?? 0)) days" }.joined(separator: " · ")
        out.line("  bought most often: \(often)")
        if let mean = stats.trips.meanSeconds {
            out.line("  trips: \(stats.trips.count) ended, \(Format.duration(seconds: mean)) on average")
        }
        out.line("\nAudit head \(head)")
        out.line("Anyone who keeps that line can later prove that nothing before it changed:")
        out.line("  swift run shop-replay verify --journal \(path) --expect-head \(head)")
        out.line("\nThe household report, one page to look at (or print): \(report)")
        out.line("\nTry next:")
        for example in ["view lists", "view members", "view deleted-lists", "view locations", "audit --actor ben", "history --item \"Oat drink\"", "history --member cleo",
                        "view share-text --list Weekly", "view due", "view prices --item Bananas", "view prices --item 4006381333931", "view stores",
                        "view suggestions --list Weekly --prefix ba", "stats --json"] {
            out.line("  swift run shop-replay \(example) --journal \(path)")
        }
    }
}

/// Months of a family's shopping as commands, decided against the state as
/// they go so that every one of them is accepted.
struct DemoSimulation {
    let start = Timestamp("2026-07-01T05:00:00.000Z")!   // a literal in the journal's spelling
    let days: Int
    private var rng: SeededRandom
    private let ids: IDGenerator
    private(set) var state = ShopState.initial
    /// The seq each event will have in the journal.
    private var seq = 0
    private var requests: [CommandEnvelope] = []
    private var now: Timestamp
    private var items: [String: ItemID] = [:]
    private var locations: [String: LocationID] = [:]
    private var stores: [String: StoreID] = [:]
    private var products: [(product: DemoHousehold.Product, item: ItemID, nextNeed: Int)] = []
    private(set) var weekly: ListID
    private let hardware: ListID

    init(seed: UInt64, days: Int) {
        self.days = days
        rng = SeededRandom(seed: seed ^ 0x5EED_0000_0000_0000)
        ids = .seeded(0xC0DE_0000_0000_0000 ^ seed)
        now = start
        weekly = ids.make()
        hardware = ids.make()
    }

    private mutating func person() -> String { DemoHousehold.people.randomElement(using: &rng)! }   // three people, never none
    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }

    /// Decides the command now; keeps it (with its time and actor) only if the rules accept it.
    @discardableResult
    private mutating func issue(_ command: Command, by actor: String, after minutes: Int = 1) -> Bool {
        now = now.adding(milliseconds: Int64(minutes) * 60_000 + Int64.random(in: 0..<59_000, using: &rng))
        guard let events = try? ShopDecider.decide(command, state, actor: actor) else { return false }
        for event in events {
            seq += 1
            state.apply(event, EventContext(seq: seq, at: now, actor: actor))
        }
        requests.append(CommandEnvelope(command, id: ids.make(), actor: actor, at: now))
        return true
    }

    private mutating func moveTo(day: Int, hour: Int) {
        let target = start.adding(milliseconds: Int64(day) * 86_400_000 + Int64(hour - 5) * 3_600_000)
        if target > now { now = target }
    }

    mutating func run() -> [CommandEnvelope] {
        setUp()
        for day in 0..<days {
            moveTo(day: day, hour: 6)
            addWhatRanOut(day: day)
            occasional(day: day)
            let weekday = (day + 3) % 7   // 1 July 2026 is a Wednesday; 0 = Sunday
            if weekday == 6 || (weekday == 3 && chance(40)) {
                moveTo(day: day, hour: 9)
                // Saturdays at the supermarket, Wednesdays at the corner shop.
                shop(day: day, list: weekly, by: person(), at: made(stores, weekday == 6 ? "Supermarket" : "Corner shop"))
            }
            if weekday == 0, state.lists[weekly]?.entries.contains(where: \.isBought) == true {
                moveTo(day: day, hour: 18)
                issue(.clearBought(list: weekly), by: person())
            }
        }
        // Who is getting what: the hardware store is ben's errand, and cleo gets two things on the weekly list.
        issue(.assignEntry(list: hardware, item: made(items, "Batteries"), member: "ben"), by: "ana")
        let toBuy = state.lists[weekly]?.entries.filter { !$0.isBought }.map(\.item) ?? []
        for item in toBuy.prefix(2) { issue(.assignEntry(list: weekly, item: item, member: "cleo"), by: "ben") }
        return requests
    }

    private mutating func setUp() {
        issue(.createHousehold(household: ids.make(), name: "The Berg family", currency: "EUR", timeZone: "Europe/Berlin"), by: "ana")
        // Two parents own the household, the teenager shops with them, grandma looks in.
        issue(.addMember(member: "ben", role: .owner), by: "ana", after: 0)
        issue(.addMember(member: "cleo", role: .member), by: "ana", after: 0)
        issue(.addMember(member: "oma", role: .viewer), by: "ben", after: 0)
        for aisle in DemoHousehold.aisles {
            let location: LocationID = ids.make()
            locations[aisle.name] = location
            issue(.createLocation(location: location, name: aisle.name, color: aisle.color), by: "ana", after: 0)
            for product in aisle.products { create(product, at: location) }
        }
        for product in DemoHousehold.oddments { create(product, at: .unknown) }
        for name in DemoHousehold.stores {
            let store: StoreID = ids.make()
            stores[name] = store
            issue(.createStore(store: store, name: name), by: "ana", after: 0)
        }
        issue(.createList(list: weekly, name: "Weekly", priority: .high), by: "ana")
        issue(.createList(list: hardware, name: "Hardware store", priority: .low), by: "ben")
        issue(.addItemToList(list: hardware, item: made(items, "Batteries"), quantity: 4), by: "ben")
        issue(.addItemToList(list: hardware, item: made(items, "Light bulbs"), quantity: 2), by: "ben")
    }

    /// What ``setUp()`` made under `name`, one of ``DemoHousehold``'s names.
    private func made<ID>(_ table: [String: ID], _ name: String) -> ID {
        guard let id = table[name] else { preconditionFailure("the demo's set-up made no \(name)") }
        return id
    }

    private mutating func create(_ product: DemoHousehold.Product, at location: LocationID) {
        let item: ItemID = ids.make()
        items[product.name] = item
        issue(.createItem(item: item, name: product.name, location: location,
                          details: ItemDetails(unitPrice: product.price, unit: DemoHousehold.units[product.name], barcode: DemoHousehold.barcodes[product.name])),
              by: "ana", after: 0)
        products.append((product, item, Int.random(in: 0...product.everyDays, using: &rng)))
    }

    /// Whatever ran out goes on the weekly list.
    private mutating func addWhatRanOut(day: Int) {
        for index in products.indices where products[index].nextNeed <= day && products[index].product.everyDays < 60 {
            let (product, item, _) = products[index]
            guard state.items[item]?.isDeleted == false else { continue }
            if let entry = state.lists[weekly]?.entry(for: item), !entry.isBought { continue }
            let pieces = max(1, product.quantity + (chance(20) ? 1 : 0))
            // Sold by weight: by the half kilo, a little less than the pieces' count (1.5 kg, 2.5 kg).
            let quantity = DemoHousehold.units[product.name] == nil ? Quantity(pieces) : Quantity(thousandths: pieces * 1000 + 500)
            issue(.addItemToList(list: weekly, item: item, quantity: quantity), by: person(), after: Int.random(in: 1...20, using: &rng))
        }
    }

    /// A trip through the store in visiting order, buying what is on the list.
    private mutating func shop(day: Int, list: ListID, by shopper: String, at store: StoreID) {
        let trip: TripID = ids.make()
        issue(.startTrip(trip: trip, list: list, store: store), by: shopper)
        let order = state.visitingOrder
        let open = (state.lists[list]?.entries ?? []).filter { !$0.isBought }
        let entries = open.compactMap { entry in state.items[entry.item].map { (entry: entry, item: $0) } }.sorted { x, y in
            (order.firstIndex(of: x.item.location) ?? 0, x.item.name) < (order.firstIndex(of: y.item.location) ?? 0, y.item.name)
        }.map(\.entry)
        var paused = false
        for entry in entries {
            guard let item = state.items[entry.item] else { continue }
            if !item.isAvailable { issue(.setItemAvailability(item: item.id, available: true), by: shopper, after: 0) }
            if chance(3) {
                issue(.setItemAvailability(item: item.id, available: false), by: shopper, after: 1)
                continue
            }
            if !paused, chance(8) {
                paused = true
                issue(.pauseTrip(trip: trip), by: shopper)
                issue(.resumeTrip(trip: trip), by: shopper, after: Int.random(in: 5...15, using: &rng))
            }
            let sale = chance(10) ? item.details.unitPrice.map { $0 * 8 / 10 } : nil
            let purchase: PurchaseID = ids.make()
            issue(.purchaseItem(purchase: purchase, item: item.id, list: list, quantity: nil, unitPrice: sale, location: nil, purchasedAt: nil),
                  by: shopper, after: Int.random(in: 0...1, using: &rng))
            if chance(2) {
                issue(.revertPurchase(purchase: purchase), by: shopper)   // scanned twice by mistake
                continue
            }
            if let index = products.firstIndex(where: { $0.item == item.id }) {
                let every = products[index].product.everyDays
                products[index].nextNeed = day + max(1, every + Int.random(in: -(every / 4)...(every / 4), using: &rng))
            }
        }
        issue(.endTrip(trip: trip), by: shopper, after: Int.random(in: 3...10, using: &rng))
    }

    /// The things that happen now and then.
    private mutating func occasional(day: Int) {
        switch day {
        case 12:
            issue(.purchaseItem(purchase: ids.make(), item: made(items, "Batteries"), list: hardware, quantity: nil, unitPrice: 599,
                                location: nil, purchasedAt: nil, store: stores["DIY store"]), by: "ben")
        case 20:
            issue(.renameItem(item: made(items, "Oat milk"), name: "Oat drink"), by: "ben")
        case 27, 83:
            // Made on day 27, deleted that day and restored on day 83.
            guard let party: ListID = day == 27 ? ids.make() : state.lists.values.first(where: { $0.name == "Party" })?.id else { break }
            if day == 27 { issue(.createList(list: party, name: "Party", priority: .normal), by: "cleo") } else {
                issue(.restoreList(list: party), by: "cleo")
            }
            for thing in DemoHousehold.partyThings {
                if let item = items[thing] { issue(.addItemToList(list: party, item: item, quantity: Quantity(Int.random(in: 1...3, using: &rng))), by: "cleo") }
            }
            moveTo(day: day, hour: 15)
            shop(day: day, list: party, by: "cleo", at: made(stores, "Supermarket"))
            issue(.clearBought(list: party), by: "cleo", after: 60)
            issue(.deleteList(list: party), by: "cleo", after: 240)
        case 2, 16, 30:
            // A staple bought every two weeks at the corner shop, then forgotten: due again (`view due`).
            if let pepper = items["Black pepper"] {
                issue(.purchaseItem(purchase: ids.make(), item: pepper, unitPrice: 189, store: stores["Corner shop"]), by: "ana")
            }
        case 35:
            if let coffee = items["Coffee beans"] { issue(.changeItemDetails(item: coffee, patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 949, barcode: DemoHousehold.barcodes["Coffee beans"]))), by: "ana") }
        case 45:
            let organic: LocationID = ids.make()
            locations["Organic corner"] = organic
            issue(.createLocation(location: organic, name: "Organic corner", color: DemoHousehold.color(0.4, 0.8, 0.4)), by: "ana")
            create(DemoHousehold.Product(name: "Tofu", price: 249, everyDays: 12), at: organic)
            create(DemoHousehold.Product(name: "Kombucha", price: 299, everyDays: 10), at: organic)
        case 52:
            var order = state.visitingOrder.filter { $0 != .unknown }
            if let snacks = order.firstIndex(of: made(locations, "Snacks")), let frozen = order.firstIndex(of: made(locations, "Frozen")) {
                order.swapAt(snacks, frozen)
                issue(.reorderLocations(order: order), by: "ben")
            }
        case 60:
            issue(.deleteList(list: hardware), by: "ben")
        case 90:
            if let organic = locations["Organic corner"] { issue(.deleteLocation(location: organic), by: "ana") }
        case 100:
            if let kombucha = items["Kombucha"] { issue(.deleteItem(item: kombucha), by: "cleo") }
        default:
            break
        }
    }
}

extension IDGenerator {
    /// Ids that look random — version 4 UUIDs whose bits come from a seeded
    /// generator — and are the same for the same seed: the demo's, so that a
    /// purchase's short id (its first 8 hex digits) names it alone, as an
    /// app's random ids do, and the same seed still writes the same journal.
    /// Copies share the generator.
    static func seeded(_ seed: UInt64) -> IDGenerator {
        let random = Locked(SeededRandom(seed: seed))
        return IDGenerator {
            let (high, low) = random.withLock { random in (random.next(), random.next()) }
            func byte(_ word: UInt64, _ index: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> (56 - 8 * index)) }
            // Version 4 (byte 6's high nibble) and the RFC 4122 variant (byte 8's two high bits), as a random UUID has.
            return UUID(uuid: (byte(high, 0), byte(high, 1), byte(high, 2), byte(high, 3), byte(high, 4), byte(high, 5),
                               byte(high, 6) & 0x0F | 0x40, byte(high, 7),
                               byte(low, 0) & 0x3F | 0x80, byte(low, 1), byte(low, 2), byte(low, 3),
                               byte(low, 4), byte(low, 5), byte(low, 6), byte(low, 7)))
        }
    }
}
