import Foundation
import ShopEvents

/// The package's seedable generator, for tests.
package typealias SplitMix64 = ShopEvents.SeededRandom

/// Random text that stresses the codec: quotes, backslashes, control
/// characters, accents (precomposed and combining), CJK, emoji, U+2028.
public enum RandomText {
    static let pieces: [String] = [
        "a", "B", "z", " ", "0", "\"", "\\", "/", "\n", "\t", "\u{0001}", "\u{001F}", "\u{007F}",
        "é", "e\u{0301}", "ß", "Æ", "ø", "日本", "中", "🛒", "👩‍👩‍👧", "🇩🇪", "\u{2028}", "\u{FEFF}", "\u{10FFFF}",
    ]

    package static func string(_ rng: inout SplitMix64, maxPieces: Int = 12) -> String {
        let n = Int.random(in: 0...maxPieces, using: &rng)
        return (0..<n).map { _ in pieces.randomElement(using: &rng)! }.joined()
    }
}

/// Builds random commands from the current state: mostly valid ones, with
/// enough collisions and stale references that every rejection rule fires.
public struct RandomCommands {
    package var rng: SplitMix64
    /// The fraction digits of quantities, drawn apart: a seed gives the same
    /// history of commands as before quantities became decimals.
    package var fractions: SplitMix64
    /// Stores' own orders (SPEC section 11), drawn apart too: a step that
    /// reorders a store draws nothing from the other two streams.
    package var storeOrders: SplitMix64
    public let ids: IDGenerator
    static let words = ["Milk", "Bread", "Eggs", "Apples", "Coffee", "Rice", "Soap", "Tea", "Dairy", "Bakery",
                        "Produce", "Frozen", "Weekly", "Party", "milk", " Milk ", "Käse", "🍎 Äpfel", "Drinks"]

    public init(seed: UInt64, ids: IDGenerator = .sequential(prefix: 0xABCD)) {
        rng = SplitMix64(seed: seed)
        fractions = SplitMix64(seed: seed ^ 0x5EC7_10)
        storeOrders = SplitMix64(seed: seed ^ 0x5EC7_11)
        self.ids = ids
    }

    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &rng) < percent }
    /// A quantity in `whole`'s range: most of them whole, some with one to three fraction digits (1.5 kg, 0.25 l, 0.125).
    mutating func quantity(_ whole: ClosedRange<Int>) -> Quantity {
        let base = Int.random(in: whole, using: &rng)
        guard Int.random(in: 0..<100, using: &fractions) < 30 else { return Quantity(base) }
        let fraction = [500, 250, 125, 1, 999, 100][Int.random(in: 0..<6, using: &fractions)]
        return Quantity(thousandths: base * 1000 + (base == whole.upperBound ? -fraction : fraction))
    }

    /// A word, or random text; now and then one with a control character, which the rules refuse.
    mutating func name() -> String {
        guard !chance(80) else { return Self.words.randomElement(using: &rng)! + (chance(60) ? " \(Int.random(in: 1...40, using: &rng))" : "") }
        let text = RandomText.string(&rng)
        return chance(95) ? String(text.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init)) : text
    }

    /// Random text as notes: line feeds and tabs kept, no other control character (which the rules refuse in notes,
    /// and drawing no more numbers than before, so that a seed's history is what it was).
    mutating func notes() -> String {
        String(RandomText.string(&rng).unicodeScalars.filter { $0 == "\n" || $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }.map(Character.init))
    }

    mutating func pick<T>(_ values: [T]) -> T? { values.isEmpty ? nil : values.randomElement(using: &rng) }

    /// A store's own order: mostly a live store and some live locations in
    /// any order; now and then Unknown, a location twice, a deleted location or store, or an unknown store.
    mutating func reorderStore(_ state: ShopState) -> Command {
        func roll() -> Int { Int.random(in: 0..<100, using: &storeOrders) }
        let live = state.stores.values.filter { !$0.isDeleted }.map(\.id).sorted()
        let store = roll() < 90 ? (Self.pick(live, &storeOrders) ?? Self.pick(state.stores.keys.sorted(), &storeOrders)!)   // reason: stores is not empty
                                : roll() < 50 ? Self.pick(state.stores.keys.sorted(), &storeOrders)! : StoreID(UUID(uuidString: "00000000-0000-0000-0000-0000000005F0")!)   // reason: as above
        var order = state.visitingOrder.filter { $0 != .unknown }.shuffled(using: &storeOrders)
        order.removeLast(order.isEmpty ? 0 : Int.random(in: 0...order.count, using: &storeOrders))
        switch roll() {
        case 0..<3: order.insert(.unknown, at: 0)
        case 3..<6: if let first = order.first { order.append(first) }
        case 6..<9: if let gone = Self.pick(state.locations.values.filter(\.isDeleted).map(\.id).sorted(), &storeOrders) { order.append(gone) }
        default: break
        }
        return .reorderStoreLocations(store: store, order: order)
    }

    mutating func color() -> Color {
        Color(red: Double.random(in: 0...1, using: &rng), green: chance(50) ? 0.5 : 1, blue: 0.1, opacity: chance(90) ? 1 : 1.5)
    }

    public mutating func next(for state: ShopState) -> Command {
        guard let household = state.household else {
            return .createHousehold(household: ids.make(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin")
        }
        if !state.stores.isEmpty, Int.random(in: 0..<100, using: &storeOrders) < 3 { return reorderStore(state) }
        let locations = state.locations.values.map(\.id).sorted()
        let liveLocations = state.locations.values.filter { !$0.isDeleted }.map(\.id).sorted()
        let items = state.items.values.map(\.id).sorted()
        let liveItems = state.items.values.filter { !$0.isDeleted }.map(\.id).sorted()
        let lists = state.lists.values.map(\.id).sorted()
        let liveLists = state.lists.values.filter { !$0.isDeleted }.map(\.id).sorted()
        let purchases = Array(state.purchases.values.map(\.id))   // the ledger is in journal order (by seq)
        let trips = state.trips.keys.sorted()
        let anyLocation = (chance(90) ? pick(liveLocations) : pick(locations)) ?? .unknown
        let anyItem = (chance(90) ? pick(liveItems) : pick(items)) ?? ids.make()
        let anyList = (chance(90) ? pick(liveLists) : pick(lists)) ?? ids.make()
        // Section 10's stores, drawn from a stream of their own (`fractions`) so that a seed's other commands stay as they were.
        let stores = state.stores.keys.sorted()
        // Half the time no store; else a store of the household, and now and then one that is not (unknown_store).
        let unknownStore = StoreID(UUID(uuidString: "00000000-0000-0000-0000-0000000005F0")!)
        let storeRoll = Int.random(in: 0..<100, using: &fractions)
        let anyStore: StoreID? = storeRoll < 50 ? nil : storeRoll < 95 ? Self.pick(stores, &fractions) : unknownStore
        if Int.random(in: 0..<100, using: &fractions) < 5 {
            switch Int.random(in: 0..<4, using: &fractions) {
            case 0, 1: return .createStore(store: Int.random(in: 0..<100, using: &fractions) < 95 ? ids.make() : (Self.pick(stores, &fractions) ?? ids.make()),
                                           name: ["Corner shop", "Market", "market ", "Bakery", "  ", "Ünï"][Int.random(in: 0..<6, using: &fractions)])
            case 2: return .renameStore(store: anyStore ?? ids.make(), name: ["Corner", "Market", "Big market"][Int.random(in: 0..<3, using: &fractions)])
            default: return .deleteStore(store: anyStore ?? ids.make())
            }
        }
        let roll = Int.random(in: 0..<100, using: &rng)
        switch roll {
        case 0: return .createHousehold(household: household.id, name: "Again", currency: "EUR", timeZone: "UTC")
        case 1..<6: return .createLocation(location: chance(97) ? ids.make() : (pick(locations) ?? ids.make()),
                                           name: name(), color: chance(50) ? nil : color())
        case 6..<8: return .renameLocation(location: anyLocation, name: name())
        case 8: return .recolorLocation(location: anyLocation, color: color())
        case 9..<11:
            var order = state.visitingOrder.filter { $0 != .unknown }
            order.shuffle(using: &rng)
            if chance(10), !order.isEmpty { order.removeLast() }
            return .reorderLocations(order: order)
        case 11: return .deleteLocation(location: anyLocation)
        case 12..<22:
            let price = chance(70) ? Int.random(in: 0...2_000, using: &rng) : (chance(50) ? nil : 100_000_001)
            return .createItem(item: chance(98) ? ids.make() : (pick(items) ?? ids.make()), name: name(),
                               location: chance(80) ? anyLocation : nil,
                               details: ItemDetails(category: chance(30) ? name() : nil,
                                                    notes: chance(20) ? notes() : nil,
                                                    unitPrice: price, photo: chance(10) ? "photo.jpg" : nil,
                                                    unit: unit(), barcode: barcode()))
        case 22..<24: return .renameItem(item: anyItem, name: name())
        case 24..<26: return .changeItemDetails(item: anyItem, patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: Int.random(in: -1...999, using: &rng),
                                                                                    unit: unit(), barcode: barcode())))
        case 26..<28: return .relocateItem(item: anyItem, location: anyLocation)
        case 28..<30: return .setItemAvailability(item: anyItem, available: chance(50))
        case 30..<32: return .deleteItem(item: anyItem)
        case 32..<36: return .createList(list: ids.make(), name: name(), priority: pick(Priority.allCases))
        case 36: return .renameList(list: anyList, name: name())
        case 37: return .setListPriority(list: anyList, priority: pick(Priority.allCases)!)
        case 38..<40: return .deleteList(list: anyList)
        case 40..<42: return .restoreList(list: pick(lists) ?? anyList)
        case 42: return .purgeList(list: pick(lists) ?? anyList)
        case 43..<58:
            return .addItemToList(list: anyList, item: anyItem, quantity: chance(95) ? quantity(1...12) : 10_000)
        case 58..<60:
            return .changeQuantity(list: anyList, item: entryItem(state, anyList) ?? anyItem, quantity: quantity(0...20))
        case 60:
            // Who is getting what: a member, a stranger (refused in a closed household), or nobody.
            return .assignEntry(list: anyList, item: entryItem(state, anyList, unboughtOnly: chance(90)) ?? anyItem,
                                member: chance(25) ? nil : pick(Self.actors))
        case 61..<63: return .removeItemFromList(list: anyList, item: entryItem(state, anyList) ?? anyItem)
        case 63..<65:
            var order = state.lists[anyList]?.entries.map(\.item) ?? []
            order.shuffle(using: &rng)
            if chance(10) { order.append(anyItem) }
            return .reorderList(list: anyList, order: order)
        case 65..<82:
            let onList = chance(75)
            let item = onList ? (entryItem(state, anyList, unboughtOnly: true) ?? anyItem) : anyItem
            return .purchaseItem(purchase: ids.make(), item: item, list: onList ? anyList : nil,
                                 quantity: chance(50) ? nil : quantity(1...5),
                                 unitPrice: chance(70) ? nil : Int.random(in: 0...5_000, using: &rng),
                                 location: chance(80) ? nil : anyLocation,
                                 purchasedAt: chance(10) ? Timestamp(millisecondsSince1970: 1_600_000_000_000) : nil, store: anyStore)
        case 82..<86: return .revertPurchase(purchase: pick(purchases) ?? ids.make())
        case 86..<89: return .clearBought(list: anyList)
        case 89..<92: return .startTrip(trip: ids.make(), list: chance(50) ? anyList : nil, store: anyStore)
        case 92..<94: return .pauseTrip(trip: state.openTripsInOrder.first?.id ?? pick(trips) ?? ids.make())
        case 94..<96: return .resumeTrip(trip: state.openTripsInOrder.first?.id ?? pick(trips) ?? ids.make())
        default: return .endTrip(trip: state.openTripsInOrder.first?.id ?? pick(trips) ?? ids.make())
        }
    }

    /// The people of random histories with members; `eve` is never added by
    /// the generator on purpose, so strangers keep knocking.
    public static let actors = ["ana", "ben", "cleo", "dora", "eve"]

    /// A command and who issues it, for histories with members and roles:
    /// member commands among the others (adding, promoting, demoting,
    /// removing, leaving), issued by owners, members, viewers and strangers.
    public mutating func nextWithActor(for state: ShopState) -> (Command, String) {
        let members = state.members
        let actor: String
        if members.isEmpty || chance(10) {
            actor = pick(Self.actors)!
        } else {
            // Mostly owners and members, so that the household does things.
            let doers = members.filter { $0.role != .viewer }
            actor = (chance(85) ? pick(doers) : pick(members))?.name ?? "ana"
        }
        guard state.household != nil, chance(12) else { return (next(for: state), actor) }
        let someone = chance(85) ? pick(Array(Self.actors.dropLast()))! : (chance(50) ? "eve" : " ")
        let role = pick(Role.allCases)!
        switch Int.random(in: 0..<4, using: &rng) {
        case 0, 1: return (.addMember(member: someone, role: role), actor)
        case 2: return (.changeMemberRole(member: pick(members)?.name ?? someone, role: role), actor)
        default: return (.removeMember(member: chance(40) ? actor : (pick(members)?.name ?? someone)), actor)
        }
    }

    /// Now and then a unit, some refused (17 characters, a control character), by the second stream.
    mutating func unit() -> String? {
        Int.random(in: 0..<100, using: &fractions) < 75 ? nil : ["kg", "l", " pack ", "Stück", String(repeating: "x", count: 17), "k\tg"][Int.random(in: 0..<6, using: &fractions)]
    }

    /// Now and then a barcode: a few valid ones (so that they collide: duplicate_barcode), a UPC-A and its EAN-13, a bad check digit.
    mutating func barcode() -> String? {
        Int.random(in: 0..<100, using: &fractions) < 80 ? nil
            : ["4006381333931", "96385074", "036000291452", "0036000291452", "4006381333932", "5901234123457"][Int.random(in: 0..<6, using: &fractions)]
    }

    /// An element of `values` by another generator.
    static func pick<T>(_ values: [T], _ generator: inout SplitMix64) -> T? { values.isEmpty ? nil : values.randomElement(using: &generator) }

    mutating func entryItem(_ state: ShopState, _ list: ListID, unboughtOnly: Bool = false) -> ItemID? {
        pick(state.lists[list]?.entries.filter { !unboughtOnly || !$0.isBought }.map(\.item) ?? [])
    }
}

/// Scratch folders under the system's temporary directory, removed by the caller.
public enum Scratch {
    public static func directory(_ name: String = #function) -> URL {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("shopevents-\(safe)-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    public static func bytes(_ path: String) -> [UInt8] {
        (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
    }

    /// Replaces the file's bytes in place (same inode), as damage on disk would.
    public static func write(_ bytes: [UInt8], to path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot open \(path): errno \(errno)")
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write to \(path)")
    }
}

/// A fixed start and one second per reading: deterministic journals.
public enum TestClock {
    public static let start = Timestamp("2026-03-01T09:00:00.000Z")!
    public static func stepping() -> Clock { .stepping(from: start, by: 1000) }
}

/// The ShoppingList17 fixture of `../shared`, which CI has and a user's clone does not.
public enum Fixtures {
    /// `<package>/../shared/fixtures/sl17-sample-archive.json`, found from this source file.
    public static let sl17Path: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/sl17-sample-archive.json").path

    /// The archive's bytes, or `nil` (tests that need it skip with a message) when it is absent.
    public static let sl17: [UInt8]? = FileManager.default.contents(atPath: sl17Path).map(Array.init)

    public static let sl17Missing = "skipped: the ShoppingList17 fixture is not at ../shared/fixtures/sl17-sample-archive.json (CI has it; a clone of the project alone does not)"
}

/// The ShoppingList17 round trip: what an import keeps of an archive, and
/// random archives to hold it to.
public enum SL17RoundTrip {
    /// The archive as an export of its import gives it back, by the
    /// normalisations docs/TOOL.md lists: names trimmed; locations in visiting
    /// order (Unknown last); each location's items by name, ignoring case, then id.
    public static func normalised(_ archive: SL17Archive) -> SL17Archive {
        var locations = archive.locations.map { location in
            var location = location
            location.name = location.name.trimmingCharacters(in: .whitespacesAndNewlines)
            location.items = location.items.map { item in
                var item = item
                item.name = item.name.trimmingCharacters(in: .whitespacesAndNewlines)
                return item
            }.sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            return location
        }
        locations.sort { $0.visitationOrder < $1.visitationOrder }
        return SL17Archive(locations: locations)
    }

    /// Imports `archive` into a new journal at `path` (all of it, or fails) and exports it again.
    public static func importThenExport(_ archive: SL17Archive, path: String) throws -> (exported: SL17Archive, plan: SL17Transfer.Plan) {
        let journal = try Journal.open(path: path, options: .init(actor: "import"))
        defer { journal.close() }
        let plan = SL17Transfer.plan(archive, into: journal.state, household: .init(timeZone: "UTC"), ids: .random)
        _ = try journal.execute(allOrNothing: plan.commands.map { CommandEnvelope($0) })
        return (SL17Transfer.export(journal.state), plan)
    }

    /// A random archive that the rules take as it is, but for white space
    /// around names: distinct names, numbers in range, distinct visiting order.
    package static func randomArchive(_ rng: inout SplitMix64) -> SL17Archive {
        var names = Set<String>()
        func name(_ stem: String) -> String {
            while true {
                let core = "\(stem) \(Int.random(in: 0...9999, using: &rng))" + (Bool.random(using: &rng) ? " é" : "")
                guard names.insert(core.lowercased()).inserted else { continue }
                let pad = ["", " ", "  ", "\t"]
                return pad.randomElement(using: &rng)! + core + pad.randomElement(using: &rng)!
            }
        }
        func color() -> Color {
            Color(red: Double.random(in: 0...1, using: &rng), green: Double.random(in: 0...1, using: &rng),
                  blue: Double.random(in: 0...1, using: &rng), opacity: Double.random(in: 0...1, using: &rng))
        }
        func item() -> SL17Archive.Item {
            let date = Bool.random(using: &rng) ? nil : Timestamp(millisecondsSince1970: Int64.random(in: 1_500_000_000...1_800_000_000, using: &rng) * 1000
                                                                   + (Bool.random(using: &rng) ? Int64.random(in: 0...999, using: &rng) : 0))
            return SL17Archive.Item(id: ItemID(), name: name("Item"), onList: Bool.random(using: &rng), isAvailable: Int.random(in: 0..<5, using: &rng) > 0,
                                    quantity: [1, 1, 2, 3, 6, 12, 9999].randomElement(using: &rng)!, dateLastPurchased: date)
        }
        var orders = Set<Int>()
        var locations = (0..<Int.random(in: 0...8, using: &rng)).map { _ -> SL17Archive.Location in
            var order = Int.random(in: 1...200, using: &rng)
            while !orders.insert(order).inserted { order = Int.random(in: 1...200, using: &rng) }
            return SL17Archive.Location(id: LocationID(), name: name("Aisle"), visitationOrder: order, color: color(),
                                        items: (0..<Int.random(in: 0...6, using: &rng)).map { _ in item() })
        }
        let unknown = SL17Archive.Location(id: LocationID(), name: Bool.random(using: &rng) ? "Unknown Location" : name("Elsewhere"),
                                           visitationOrder: SL17Archive.unknownVisitationOrder, color: color(),
                                           items: (0..<Int.random(in: 0...4, using: &rng)).map { _ in item() })
        locations.insert(unknown, at: Int.random(in: 0...locations.count, using: &rng))
        return SL17Archive(locations: locations)
    }
}
