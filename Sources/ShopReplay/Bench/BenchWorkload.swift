import ShopEvents

/// A synthetic household at benchmark scale: hundreds of items and locations,
/// several lists, four people, and years of everyday activity — lists filled
/// and bought, quantities changed, prices and names changed, things out of
/// stock, trips, reverts, items and locations created and deleted — in the
/// proportions of the demo. Every command is decided as it is made, so the
/// journal accepts them all. The same seed gives the same commands.
struct BenchWorkload {
    static let people = ["ana", "ben", "cleo", "dev"]
    let locationCount: Int
    let itemCount: Int
    private var rng: SeededRandom
    private let ids: IDGenerator
    private(set) var state = ShopState.compact
    /// The seq each event will have in the journal.
    private var seq = 0
    private(set) var commands: [CommandEnvelope] = []
    private(set) var events = 0
    private var now = Timestamp("2022-01-03T07:00:00.000Z")!   // a literal in the journal's spelling
    private var liveItems: [ItemID] = []
    private var liveLocations: [LocationID] = []
    private var lists: [ListID] = []
    private var purchases: [PurchaseID] = []
    private var names = 0

    init(seed: UInt64 = 1, locations: Int = 120, items: Int = 600) {
        rng = SeededRandom(seed: seed)
        ids = .sequential(prefix: 0xBE4C_0000 | UInt32(seed & 0xFFFF))
        locationCount = locations
        itemCount = items
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    private mutating func pick<T>(_ values: [T]) -> T? { values.randomElement(using: &rng) }

    @discardableResult
    private mutating func issue(_ command: Command, by actor: String? = nil) -> Bool {
        now = now.adding(milliseconds: Int64.random(in: 20_000...240_000, using: &rng))
        let who = actor ?? Self.people.randomElement(using: &rng)!   // four people, never none
        guard let made = try? ShopDecider.decide(command, state, actor: who) else { return false }
        for event in made {
            seq += 1
            state.apply(event, EventContext(seq: seq, at: now, actor: who))
        }
        commands.append(CommandEnvelope(command, id: ids.make(), actor: who, at: now))
        events += made.count
        return true
    }

    private mutating func newName(_ prefix: String) -> String {
        names += 1
        return "\(prefix) \(names)"
    }

    /// Commands until they make at least `target` events.
    mutating func generate(events target: Int) {
        if state.household == nil { setUp() }
        while events < target { step() }
    }

    private mutating func setUp() {
        issue(.createHousehold(household: ids.make(), name: "Bench household", currency: "EUR", timeZone: "Europe/Berlin"), by: "ana")
        for _ in 0..<locationCount { createLocation() }
        for _ in 0..<itemCount { createItem() }
        for (name, priority) in [("Weekly", Priority.high), ("Market", .normal), ("Pharmacy", .normal), ("Hardware", .low),
                                 ("Party", .low), ("Office", .normal)] {
            let list: ListID = ids.make()
            if issue(.createList(list: list, name: name, priority: priority), by: "ana") { lists.append(list) }
        }
    }

    private mutating func createLocation() {
        let location: LocationID = ids.make()
        let color = Color(red: Double.random(in: 0...1, using: &rng), green: 0.5, blue: 0.5, opacity: 1)
        if issue(.createLocation(location: location, name: newName("Aisle"), color: color)) { liveLocations.append(location) }
    }

    private mutating func createItem() {
        let item: ItemID = ids.make()
        let price = chance(85) ? Int.random(in: 29...2_999, using: &rng) : nil
        let details = ItemDetails(category: chance(30) ? "Food" : nil, notes: chance(5) ? "the blue one, not the green one" : nil, unitPrice: price)
        if issue(.createItem(item: item, name: newName("Item"), location: pick(liveLocations), details: details)) { liveItems.append(item) }
    }

    private mutating func step() {
        let roll = Int.random(in: 0..<1000, using: &rng)
        guard let list = pick(lists), let item = pick(liveItems) else { return }
        switch roll {
        case 0..<330:   // something ran out
            issue(.addItemToList(list: list, item: item, quantity: Quantity(Int.random(in: 1...4, using: &rng))))
        case 330..<640:   // bought, mostly from a list
            if let entry = state.lists[list]?.entries.first(where: { !$0.isBought }), chance(92) {
                let purchase: PurchaseID = ids.make()
                if issue(.purchaseItem(purchase: purchase, item: entry.item, list: list, quantity: nil,
                                       unitPrice: chance(10) ? Int.random(in: 19...999, using: &rng) : nil, location: nil, purchasedAt: nil)) {
                    purchases.append(purchase)
                }
            } else {
                let purchase: PurchaseID = ids.make()
                if issue(.purchaseItem(purchase: purchase, item: item, list: nil, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)) {
                    purchases.append(purchase)
                }
            }
        case 640..<700:
            if let entry = state.lists[list]?.entries.first(where: { !$0.isBought }) {
                issue(.changeQuantity(list: list, item: entry.item, quantity: Quantity(Int.random(in: 1...9, using: &rng))))
            }
        case 700..<730:
            if let entry = state.lists[list]?.entries.last { issue(.removeItemFromList(list: list, item: entry.item)) }
        case 730..<780:
            if state.lists[list]?.entries.contains(where: \.isBought) == true { issue(.clearBought(list: list)) }
        case 780..<800:
            if let recent = purchases.suffix(50).randomElement(using: &rng) { issue(.revertPurchase(purchase: recent)) }
        case 800..<830:
            issue(.changeItemDetails(item: item, patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: Int.random(in: 29...2_999, using: &rng)))))
        case 830..<850: issue(.renameItem(item: item, name: newName("Item")))
        case 850..<880: issue(.setItemAvailability(item: item, available: chance(60)))
        case 880..<900:
            if let location = pick(liveLocations) { issue(.relocateItem(item: item, location: location)) }
        case 900..<915:
            if let entries = state.lists[list]?.entries, entries.count > 1, entries.count <= 40 {
                issue(.reorderList(list: list, order: entries.map(\.item).shuffled(using: &rng)))
            }
        case 915..<960: trip(list)
        case 960..<972:   // the catalogue changes: an item goes, another comes
            if issue(.deleteItem(item: item)) { liveItems.removeAll { $0 == item } }
            createItem()
        case 972..<978:
            if let location = pick(liveLocations), issue(.deleteLocation(location: location)) { liveLocations.removeAll { $0 == location } }
            createLocation()
        case 978..<984:
            if let location = pick(liveLocations) { issue(.renameLocation(location: location, name: newName("Aisle"))) }
        case 984..<987:
            if chance(20) { issue(.reorderLocations(order: liveLocations.shuffled(using: &rng))) }
        case 987..<992:
            if let priority = pick(Priority.allCases) { issue(.setListPriority(list: list, priority: priority)) }
        case 992..<996:
            if issue(.deleteList(list: list)) { issue(.restoreList(list: list)) }
        default:
            if let location = pick(liveLocations) {
                issue(.recolorLocation(location: location, color: Color(red: 0.2, green: Double.random(in: 0...1, using: &rng), blue: 0.4, opacity: 1)))
            }
        }
    }

    private mutating func trip(_ list: ListID) {
        // One trip at a time in the whole household, whoever started it: the workload's journal stays as it was.
        if let open = state.openTripsInOrder.first?.id {
            if case .running = state.trips[open]?.phase, chance(30) {
                issue(.pauseTrip(trip: open))
                issue(.resumeTrip(trip: open))
            }
            issue(.endTrip(trip: open))
        } else {
            issue(.startTrip(trip: ids.make(), list: list))
        }
    }
}
