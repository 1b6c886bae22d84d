import ShopEvents

/// One purchase as the audit shows it: names as they were when it was bought.
public struct PurchaseRecord: Hashable, Sendable {
    public var seq: Int
    public var event: EventID
    public var purchase: PurchaseID
    /// When it was bought: `purchasedAt`, or the event's `at`.
    public var purchasedAt: Timestamp
    public var actor: String
    public var item: ItemID
    public var itemName: String
    public var quantity: Quantity
    public var unitPrice: Int?
    public var list: ListID?
    public var listName: String?
    public var location: LocationID
    public var locationName: String
    public var isReverted: Bool
    /// Where it was bought (SPEC section 10); `nil`: no store named.
    public var store: StoreID?
    /// The store's name when it was bought.
    public var storeName: String?

    /// Memberwise, for preview data and tests.
    public init(seq: Int, event: EventID, purchase: PurchaseID, purchasedAt: Timestamp, actor: String, item: ItemID, itemName: String, quantity: Quantity, unitPrice: Int?, list: ListID?, listName: String?, location: LocationID, locationName: String, isReverted: Bool,
                store: StoreID? = nil, storeName: String? = nil) {
        self.seq = seq; self.event = event; self.purchase = purchase; self.purchasedAt = purchasedAt; self.actor = actor; self.item = item; self.itemName = itemName; self.quantity = quantity; self.unitPrice = unitPrice; self.list = list; self.listName = listName; self.location = location; self.locationName = locationName; self.isReverted = isReverted
        self.store = store; self.storeName = storeName
    }

    /// quantity × unitPrice, rounded half to even; a purchase without a price adds none.
    public var spend: Int { unitPrice.map { quantity.cost(unitPrice: $0) } ?? 0 }
}

/// Purchases, quantity and spend added up.
public struct Tally: Hashable, Sendable {
    public var purchases = 0
    public var quantity = Quantity.zero
    public var spend = 0

    public init(purchases: Int = 0, quantity: Quantity = .zero, spend: Int = 0) {
        self.purchases = purchases; self.quantity = quantity; self.spend = spend
    }

    mutating func add(quantity: Quantity, spend: Int, sign: Int) {
        purchases += sign
        self.quantity = sign > 0 ? self.quantity + quantity : self.quantity - quantity
        self.spend += sign * spend
    }
}

/// Every purchase in journal order, with running totals per item, month,
/// actor and place of purchase. Reverted purchases stay in the records
/// (marked) and drop out of every total.
///
/// Applying one event costs a few dictionary updates; a revert also looks
/// through the purchases of that one item to find its new first and last.
/// How much is kept is its ``Depth``: the records take memory by the history,
/// the totals by the household (and about 30 bytes a purchase for reverts).
public struct PurchaseHistory: Hashable, Sendable {
    /// How much of the purchase history is folded.
    public enum Depth: Hashable, Sendable {
        /// Nothing but the household's calendar, and the state keeps no
        /// purchase table, ended trip, deleted item or deleted location either: of the purchases, only
        /// which list entries they bought. Memory by the household, not its
        /// history; enough for the lists, shopping lists, locations and members.
        case entries
        /// Nothing but the household's calendar; the state keeps its purchase
        /// table (which purchase was reverted, for the audit streamed from the journal).
        case none
        /// The totals per item, month, actor and place; of each purchase only
        /// what a revert needs beside the state's purchase table (its quantity,
        /// price and buyer). No ``PurchaseHistory/records``.
        case totals
        /// Every purchase as the audit shows it, with the names it had then, and the totals.
        case records
    }

    public private(set) var depth = Depth.records
    /// Every purchase (`.records` only; empty otherwise).
    public private(set) var records: [PurchaseRecord] = []
    private var index: [PurchaseID: Int] = [:]
    /// Per item, where its purchases stand: in ``records``, or (`.totals`) in the state's purchase table.
    private var byItem: [ItemID: [Int32]] = [:]
    /// `.totals`: quantity, price and buyer of each purchase, by its position in the state's purchase table.
    private var amounts = AmountTable()
    private var actorNames: [String] = []
    private var actorHandles: [String: Int32] = [:]
    public private(set) var items: [ItemID: ItemTally] = [:]
    /// By month number (year × 12 + month − 1) in the household's time zone; see ``monthTotals``.
    private(set) var months: [Int: Tally] = [:]
    public private(set) var actors: [String: Tally] = [:]
    public private(set) var locations: [LocationID: Tally] = [:]
    /// Per store that purchases name (never the key `nil`: see ``stores``).
    private var namedStores: [StoreID?: Tally] = [:]
    /// Per store; the key `nil` for purchases that name none (SPEC section 10).
    /// That row is the whole (every month's) less the named stores', not
    /// counted on its own: a fold pays no store update for a purchase without one.
    public var stores: [StoreID?: Tally] {
        var all = namedStores
        var none = months.values.reduce(into: Tally()) { whole, month in
            whole.purchases += month.purchases; whole.quantity += month.quantity; whole.spend += month.spend
        }
        for named in namedStores.values {
            none.purchases -= named.purchases; none.quantity -= named.quantity; none.spend -= named.spend
        }
        if none.purchases > 0 { all[nil] = none }
        return all
    }
    /// `.totals`: the store of each purchase that names one, by its position in the state's purchase table.
    private var amountStores: [Int32: StoreID] = [:]
    private(set) var calendar = HouseholdCalendar.utc
    /// `.totals` folded for one read whose reverts are known before it
    /// starts (see ``init(settling:)``); nil otherwise.
    private var settled: Settled?

    /// What a fold that knows its reverts in advance keeps instead of a
    /// table of every purchase: the purchases it will see reverted, how far
    /// each has got, and the last names of the items and places deleted on
    /// the way (the state it goes with keeps no deleted item or location).
    /// The name of a deleted item that has totals is kept with them
    /// (``ItemTally``); `deletedNames` has only those of the others.
    private struct Settled: Hashable, Sendable {
        var stages: Foresight
        var deletedNames: [ItemID: String] = [:]
        var deletedLocationNames: [LocationID: String] = [:]
        /// The trips ended on the way (the state lets them go): how many, and their running time.
        var endedTrips = 0
        var endedMilliseconds: Int64 = 0
        /// The fold met a revert the reading ahead did not foresee, or one before its purchase.
        var unforeseen = false
    }

    fileprivate struct Amount: Hashable, Sendable {
        var quantity: Quantity
        var unitPrice: Int?
        var actor: Int32
    }

    /// What the totals count of one purchase.
    private struct Fact {
        var item: ItemID
        var location: LocationID
        var actor: String
        var time: Timestamp
        var quantity: Quantity
        var unitPrice: Int?
        var store: StoreID?
        /// Worked out once (a rounded product), not once for each total it is added to.
        let spend: Int

        init(item: ItemID, location: LocationID, actor: String, time: Timestamp, quantity: Quantity, unitPrice: Int?, store: StoreID?) {
            self.item = item; self.location = location; self.actor = actor; self.time = time
            self.quantity = quantity; self.unitPrice = unitPrice; self.store = store
            spend = unitPrice.map { quantity.cost(unitPrice: $0) } ?? 0
        }
    }

    /// An item's totals and its first and last (non-reverted) purchase times.
    public struct ItemTally: Hashable, Sendable {
        public var tally = Tally()
        // `first` and `last` in milliseconds, `Int64.min` for none (no time the journal can hold):
        // two words where two optionals take four, which leaves room for `deletedName` in the same 56 bytes.
        private var firstMilliseconds = Int64.min
        private var lastMilliseconds = Int64.min
        /// A settling fold's (``PurchaseHistory/init(settling:)``): the
        /// item's last name once it was deleted, kept here beside its totals
        /// rather than in a table of its own (its state no longer holds the item).
        var deletedName: String?

        public var first: Timestamp? {
            get { firstMilliseconds == .min ? nil : Timestamp(millisecondsSince1970: firstMilliseconds) }
            set { firstMilliseconds = newValue?.millisecondsSince1970 ?? .min }
        }

        public var last: Timestamp? {
            get { lastMilliseconds == .min ? nil : Timestamp(millisecondsSince1970: lastMilliseconds) }
            set { lastMilliseconds = newValue?.millisecondsSince1970 ?? .min }
        }

        init(tally: Tally = Tally(), first: Timestamp? = nil, last: Timestamp? = nil) {
            self.tally = tally
            self.first = first
            self.last = last
        }

        /// (last − first) / (purchases − 1), in days: the mean interval between purchases of the
        /// statistics and of the due view; `nil` below two purchases.
        public var meanIntervalDays: Double? {
            guard tally.purchases > 1, firstMilliseconds != .min, lastMilliseconds != .min else { return nil }
            return Double(lastMilliseconds - firstMilliseconds) / 86_400_000 / Double(tally.purchases - 1)
        }

        /// Counts a purchase in, bought at `time`.
        mutating func add(quantity: Quantity, spend: Int, at time: Timestamp) {
            tally.add(quantity: quantity, spend: spend, sign: 1)
            let at = time.millisecondsSince1970
            if firstMilliseconds == .min || at < firstMilliseconds { firstMilliseconds = at }
            if lastMilliseconds == .min || at > lastMilliseconds { lastMilliseconds = at }
        }

        /// Totals and times; a settling fold's ``deletedName`` is where it keeps a name, not part of the value.
        public static func == (a: Self, b: Self) -> Bool {
            a.tally == b.tally && a.firstMilliseconds == b.firstMilliseconds && a.lastMilliseconds == b.lastMilliseconds
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(tally)
            hasher.combine(firstMilliseconds)
            hasher.combine(lastMilliseconds)
        }
    }

    public init() {}

    /// A history that keeps only as much as `depth`.
    public init(depth: Depth) { self.depth = depth }

    /// `.totals` for one read to an end whose reverts are known before it
    /// starts: `reverted` holds every purchase that the events to be folded
    /// revert. A purchase among them is never counted and a revert is
    /// passed over, so no purchase needs keeping for a revert to come (the
    /// state it goes with keeps no history either: ``HouseholdViews/init(settling:)``).
    /// The totals equal those of a plain `.totals` fold when the events
    /// revert exactly those purchases, each after it was bought; if they do
    /// not, ``isSettled`` says so and the read folds again the plain way.
    /// Such a history is for showing, never for a snapshot.
    package init(settling reverted: Set<PurchaseID>) {
        depth = .totals
        settled = Settled(stages: Foresight(reverted))
    }

    /// Whether the totals folded so far equal a plain `.totals` fold's: true
    /// unless this history was made by ``init(settling:)`` and the events did
    /// not revert exactly the purchases it was told of, each after its
    /// purchase: a revert it was not told of, a revert before its purchase,
    /// or a purchase it was told of bought and its revert still to come. (A
    /// purchase it was told of and never bought nor reverted is nothing in
    /// either fold.)
    package var isSettled: Bool {
        guard let settled else { return true }
        return !settled.unforeseen && !settled.stages.anyBought
    }

    /// Whether this history was folded by ``init(settling:)``.
    package var isSettling: Bool { settled != nil }

    /// Lets go of what the fold checked its foresight with, once it has been
    /// found good (``isSettled``): the totals are all that is shown.
    package mutating func dropForesight() {
        precondition(isSettled)
        settled?.stages = Foresight([])
    }

    /// The trips a settling fold saw end (its state keeps none that ended):
    /// how many, and their running time in milliseconds; (0, 0) otherwise.
    package var endedTrips: (count: Int, milliseconds: Int64) {
        (settled?.endedTrips ?? 0, settled?.endedMilliseconds ?? 0)
    }

    /// The last name of an item deleted during a settling fold (its state no longer holds it).
    package func deletedName(of item: ItemID) -> String? {
        guard let settled else { return nil }
        return items[item]?.deletedName ?? settled.deletedNames[item]
    }
    /// The last name of a location deleted during a settling fold.
    package func deletedName(of location: LocationID) -> String? { settled?.deletedLocationNames[location] }

    /// The record of a purchase id (`.records` only).
    public func record(_ purchase: PurchaseID) -> PurchaseRecord? { index[purchase].map { records[$0] } }

    /// How many a purchase bought, where this depth keeps it (`.records`, `.totals`); nil otherwise.
    public func quantity(of purchase: PurchaseID, in state: ShopState) -> Quantity? {
        switch depth {
        case .records: return record(purchase)?.quantity
        case .totals: return state.purchases.position(of: purchase).map { amounts[$0].quantity }
        case .entries, .none: return nil
        }
    }

    /// One purchase as the prices count it: not reverted, with a price.
    struct PricedPurchase {
        var item: ItemID
        var store: StoreID?
        var unitPrice: Int
        var time: Timestamp
        var seq: Int
    }

    /// Every purchase that is not reverted and has a price (of `item` only,
    /// if given), in journal order: from the records at `.records`, from the
    /// amounts and `state`'s purchase table at `.totals`. `nil` where this
    /// history keeps neither (`.entries`, `.none`, a settling fold).
    func pricedPurchases(of item: ItemID?, in state: ShopState) -> [PricedPurchase]? {
        // Positions of the one item's purchases, or of every purchase.
        func positions(_ count: Int) -> [Int] { item.map { (byItem[$0] ?? []).map(Int.init) } ?? Array(0..<count) }
        switch depth {
        case .records:
            return positions(records.count).compactMap { position in
                let r = records[position]
                guard !r.isReverted, let price = r.unitPrice else { return nil }
                return PricedPurchase(item: r.item, store: r.store, unitPrice: price, time: r.purchasedAt, seq: r.seq)
            }
        case .totals:
            guard settled == nil else { return nil }
            return positions(state.purchases.count).compactMap { position in
                let bought = state.purchases.purchase(at: position)
                guard !bought.isReverted, let price = amounts[position].unitPrice else { return nil }
                return PricedPurchase(item: bought.item, store: amountStores[Int32(position)], unitPrice: price,
                                      time: bought.effectiveTime, seq: bought.seq)
            }
        case .entries, .none:
            return nil
        }
    }

    /// Folds `recorded` in; `state` is the household just before it (for names).
    mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        // Moved out and back (no copy: reading the optional copied all it holds, for each event).
        if var settling = settled.take() {
            defer { settled = settling }
            return applySettling(recorded, before: state, into: &settling)
        }
        switch recorded.event {
        case let .householdCreated(_, _, _, timeZone):
            calendar = HouseholdCalendar(timeZone: timeZone)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            switch depth {
            case .entries, .none:
                // Only the totals and the records count a purchase: the others pay for no fact (its spend is a rounded product).
                return
            case .totals:
                // The state keeps the first purchase of an id (a legal journal has no other); so do the totals.
                guard state.purchases[purchase] == nil else { return }
                byItem[item, default: []].append(Int32(state.purchases.count))
                if let store { amountStores[Int32(state.purchases.count)] = store }
                amounts.append(Amount(quantity: quantity, unitPrice: unitPrice, actor: handle(recorded.actor)))
            case .records:
                let record = PurchaseRecord(recorded, before: state)!
                index[purchase] = records.count
                byItem[item, default: []].append(Int32(records.count))
                records.append(record)
            }
            count(Fact(item: item, location: location, actor: recorded.actor, time: purchasedAt ?? recorded.at,
                       quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
        case let .purchaseReverted(purchase):
            switch depth {
            case .entries, .none:
                return
            case .totals:
                guard let at = state.purchases.position(of: purchase) else { return }
                let bought = state.purchases.purchase(at: at)
                guard !bought.isReverted else { return }
                let amount = amounts[at]
                let purchases = state.purchases   // for the closure, which may not capture the borrowed state
                count(Fact(item: bought.item, location: bought.location, actor: actorNames[Int(amount.actor)],
                           time: bought.effectiveTime, quantity: amount.quantity, unitPrice: amount.unitPrice,
                           store: amountStores[Int32(at)]), sign: -1) { position in
                    let other = purchases.purchase(at: position)
                    return position == at || other.isReverted ? nil : other.effectiveTime
                }
            case .records:
                guard let at = index[purchase], !records[at].isReverted else { return }
                records[at].isReverted = true
                let r = records[at], all = records   // shares the buffer: `count` does not touch the records
                count(Fact(item: r.item, location: r.location, actor: r.actor, time: r.purchasedAt,
                           quantity: r.quantity, unitPrice: r.unitPrice, store: r.store), sign: -1) { position in
                    all[position].isReverted ? nil : all[position].purchasedAt
                }
            }
        case .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted,
             .itemCreated, .itemRenamed, .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted,
             .listCreated, .listRenamed, .listPriorityChanged, .listDeleted, .listRestored, .listPurged,
             .itemAddedToList, .listEntryQuantityChanged, .itemRemovedFromList, .listReordered, .boughtEntriesCleared,
             .tripStarted, .tripPaused, .tripResumed, .tripEnded, .memberAdded, .memberRoleChanged, .memberRemoved, .listEntryAssigned,
             .storeCreated, .storeRenamed, .storeDeleted:
            break
        }
    }

    /// ``apply(_:before:)`` of a settling fold: counts every purchase but
    /// those it was told will be reverted; passes over their reverts.
    private mutating func applySettling(_ recorded: RecordedEvent, before state: borrowing ShopState, into settled: inout Settled) {
        switch recorded.event {
        case let .householdCreated(_, _, _, timeZone):
            calendar = HouseholdCalendar(timeZone: timeZone)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            if let at = settled.stages.position(of: purchase) {
                // Its revert is to come; a second purchase of the id (no legal journal has one) is not counted either.
                if settled.stages[at] == .awaited { settled.stages[at] = .bought }
                return
            }
            count(Fact(item: item, location: location, actor: recorded.actor, time: purchasedAt ?? recorded.at,
                       quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
        case let .purchaseReverted(purchase):
            let at = settled.stages.position(of: purchase)
            switch at.map({ settled.stages[$0] }) {
            case .bought: settled.stages[at!] = .reverted
            case .reverted: break   // reverted twice: a plain fold passes over it too
            case .awaited, nil: settled.unforeseen = true
            }
        case let .itemDeleted(item):
            guard let name = state.items[item]?.name else { return }
            if items[item] != nil { items[item]!.deletedName = name } else { settled.deletedNames[item] = name }
        case let .locationDeleted(location):
            if let name = state.locations[location]?.name { settled.deletedLocationNames[location] = name }
        case let .tripEnded(trip):
            guard var ended = state.trips[trip] else { return }
            if case .ended = ended.phase { return }   // ended twice: counted once, as the state does
            ended.end(at: recorded.at)
            settled.endedTrips += 1
            settled.endedMilliseconds += ended.activeMilliseconds
        case .locationCreated, .locationRenamed, .locationRecolored, .locationsReordered, .itemCreated, .itemRenamed,
             .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .listCreated, .listRenamed,
             .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList,
             .listEntryQuantityChanged, .itemRemovedFromList, .listReordered, .boughtEntriesCleared, .tripStarted,
             .tripPaused, .tripResumed, .memberAdded, .memberRoleChanged, .memberRemoved, .listEntryAssigned,
             .storeCreated, .storeRenamed, .storeDeleted:
            break
        }
    }

    private mutating func handle(_ actor: String) -> Int32 {
        if let known = actorHandles[actor] { return known }
        let new = Int32(actorNames.count)
        actorNames.append(actor)
        actorHandles[actor] = new
        return new
    }

    /// Adds (`sign` 1) or takes away (-1) a purchase. A total that drops to no
    /// purchases is removed, so the same purchases always give the same totals.
    /// Taking away, `standing` gives the time of each other purchase of the item
    /// at a position in ``byItem``, or nil if it does not count.
    private mutating func count(_ fact: Fact, sign: Int, standing: (Int) -> Timestamp? = { _ in nil }) {
        func add<Key: Hashable>(_ totals: inout [Key: Tally], _ key: Key) {
            if sign > 0 {
                // Found or made and changed where it lies, in one look-up: a total added to never drops to none.
                totals[key, default: Tally()].add(quantity: fact.quantity, spend: fact.spend, sign: sign)
                return
            }
            var tally = totals[key, default: Tally()]
            tally.add(quantity: fact.quantity, spend: fact.spend, sign: sign)
            totals[key] = tally.purchases == 0 ? nil : tally
        }
        add(&months, calendar.monthNumber(remembering: fact.time))
        add(&actors, fact.actor)
        add(&locations, fact.location)
        if fact.store != nil { add(&namedStores, fact.store) }
        if sign > 0 {
            items[fact.item, default: ItemTally()].add(quantity: fact.quantity, spend: fact.spend, at: fact.time)
            return
        }
        var tally = items[fact.item, default: ItemTally()]
        tally.tally.add(quantity: fact.quantity, spend: fact.spend, sign: sign)
        // Taken away: the first and last of the purchases that still count.
        var first: Timestamp?, last: Timestamp?
        for position in byItem[fact.item] ?? [] {
            guard let time = standing(Int(position)) else { continue }
            first = min(first ?? time, time)
            last = max(last ?? time, time)
        }
        tally.first = first
        tally.last = last
        items[fact.item] = tally.tally.purchases == 0 ? nil : tally
    }

    /// Stores in a fixed order for the snapshot: no store first, then by id.
    static func storeOrder(_ a: StoreID?, _ b: StoreID?) -> Bool {
        switch (a, b) {
        case let (a?, b?): a < b
        case (nil, _?): true
        default: false
        }
    }

    /// Totals per calendar month `YYYY-MM`, in the household's time zone.
    public var monthTotals: [String: Tally] {
        Dictionary(uniqueKeysWithValues: months.map { (HouseholdCalendar.monthText($0.key), $0.value) })
    }

    /// When the item was last bought (not counting reverted purchases).
    public func lastPurchase(of item: ItemID) -> Timestamp? { items[item]?.last }

    // MARK: Snapshot

    /// The history in the snapshot encoding, at its depth: `.records` writes
    /// the records (the totals are added up again on reading); `.totals` the
    /// totals and, per purchase, what a revert needs; `.none` and `.entries` the calendar only.
    /// Things are written in key order, so the same history gives the same bytes.
    package func encode(to w: inout BinaryWriter) {
        precondition(settled == nil, "a settling fold's history is for showing, not for a snapshot")
        w.string(calendar.timeZone.identifier)
        switch depth {
        case .entries:
            w.int(3)
        case .none:
            w.int(0)
        case .totals:
            w.int(1)
            // Fixed-size records, read back in one go: quantity, price, whether there is one, buyer.
            w.array(actorNames) { $0.string($1) }
            amounts.encode(to: &w)
            w.array(byItem.sorted { $0.key < $1.key }) { w, entry in
                w.id(entry.key); w.int(entry.value.count)
                for position in entry.value { w.uint32(UInt32(bitPattern: position)) }
            }
            w.array(items.sorted { $0.key < $1.key }) { w, entry in
                w.id(entry.key); w.tally(entry.value.tally)
                w.optional(entry.value.first) { $0.timestamp($1) }; w.optional(entry.value.last) { $0.timestamp($1) }
            }
            w.array(months.sorted { $0.key < $1.key }) { w, entry in w.int(entry.key); w.tally(entry.value) }
            w.array(actors.sorted { $0.key < $1.key }) { w, entry in w.string(entry.key); w.tally(entry.value) }
            w.array(locations.sorted { $0.key < $1.key }) { w, entry in w.id(entry.key); w.tally(entry.value) }
            w.array(namedStores.sorted { Self.storeOrder($0.key, $1.key) }) { w, entry in w.optional(entry.key) { $0.id($1) }; w.tally(entry.value) }
            w.array(amountStores.sorted { $0.key < $1.key }) { w, entry in w.uint32(UInt32(bitPattern: entry.key)); w.id(entry.value) }
        case .records:
            w.int(2)
            w.array(records) { w, r in
                w.int(r.seq); w.id(r.event); w.id(r.purchase); w.timestamp(r.purchasedAt); w.string(r.actor)
                w.id(r.item); w.string(r.itemName); w.int(r.quantity.thousandths); w.optional(r.unitPrice) { $0.int($1) }
                w.optional(r.list) { $0.id($1) }; w.optional(r.listName) { $0.string($1) }
                w.id(r.location); w.string(r.locationName); w.bool(r.isReverted)
                w.optional(r.store) { $0.id($1) }; w.optional(r.storeName) { $0.string($1) }
            }
        }
    }

    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        calendar = HouseholdCalendar(timeZone: try r.string())
        switch try r.int() {
        case 3:
            depth = .entries
        case 0:
            depth = .none
        case 1:
            depth = .totals
            actorNames = try r.array { r throws(BinaryDecodingError) in try r.string() }
            for (index, name) in actorNames.enumerated() { actorHandles[name] = Int32(index) }
            amounts = try AmountTable(from: &r, actors: actorNames.count)
            let purchases = amounts.count
            var bad: String?
            let itemCount = try r.count(minimumSize: 24)
            byItem.reserveCapacity(itemCount)
            for _ in 0..<itemCount {
                let item: ItemID = try r.id()
                let n = try r.count(minimumSize: 4)
                try r.block(n * 4) { raw in
                    byItem[item] = (0..<n).map { at in
                        let position = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at * 4, as: Int32.self))
                        if !(0..<Int32(purchases)).contains(position) { bad = bad ?? "item \(item) names purchase \(position) of \(purchases)" }
                        return position
                    }
                }
            }
            if let bad { throw BinaryDecodingError(bad) }
            let tallies = try r.array { r throws(BinaryDecodingError) -> (ItemID, ItemTally) in
                (try r.id(), ItemTally(tally: try r.tally(), first: try r.optional { r throws(BinaryDecodingError) in try r.timestamp() },
                                       last: try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }))
            }
            items.reserveCapacity(tallies.count)
            for (item, tally) in tallies { items[item] = tally }
            for (month, tally) in try r.array({ r throws(BinaryDecodingError) in (try r.int(), try r.tally()) }) { months[month] = tally }
            for (actor, tally) in try r.array({ r throws(BinaryDecodingError) in (try r.string(), try r.tally()) }) { actors[actor] = tally }
            for (location, tally) in try r.array({ r throws(BinaryDecodingError) -> (LocationID, Tally) in (try r.id(), try r.tally()) }) {
                locations[location] = tally
            }
            for (store, tally) in try r.array({ r throws(BinaryDecodingError) -> (StoreID?, Tally) in
                (try r.optional { r throws(BinaryDecodingError) -> StoreID in try r.id() }, try r.tally())
            }) {
                namedStores[store] = tally
            }
            for (position, store) in try r.array({ r throws(BinaryDecodingError) -> (Int32, StoreID) in (Int32(bitPattern: try r.uint32()), try r.id()) }) {
                guard (0..<Int32(purchases)).contains(position) else { throw BinaryDecodingError("a store names purchase \(position) of \(purchases)") }
                amountStores[position] = store
            }
        case 2:
            depth = .records
            let saved = try r.array { r throws(BinaryDecodingError) in
                PurchaseRecord(seq: try r.int(), event: try r.id(), purchase: try r.id(), purchasedAt: try r.timestamp(),
                               actor: try r.string(), item: try r.id(), itemName: try r.string(), quantity: Quantity(thousandths: try r.int()),
                               unitPrice: try r.optional { r throws(BinaryDecodingError) in try r.int() },
                               list: try r.optional { r throws(BinaryDecodingError) in try r.id() },
                               listName: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                               location: try r.id(), locationName: try r.string(), isReverted: try r.bool(),
                               store: try r.optional { r throws(BinaryDecodingError) in try r.id() },
                               storeName: try r.optional { r throws(BinaryDecodingError) in try r.string() })
            }
            records.reserveCapacity(saved.count)
            for record in saved {
                index[record.purchase] = records.count
                byItem[record.item, default: []].append(Int32(records.count))
                records.append(record)
                if !record.isReverted {
                    count(Fact(item: record.item, location: record.location, actor: record.actor, time: record.purchasedAt,
                               quantity: record.quantity, unitPrice: record.unitPrice, store: record.store), sign: 1)
                }
            }
        case let other:
            throw BinaryDecodingError("purchase history depth \(other)")
        }
    }

    /// A history in the snapshot encoding read as `.entries` keeps it: the
    /// calendar alone. What `.totals` keeps per purchase is passed over by its
    /// sizes, never read (a mapped snapshot's pages of it stay untouched);
    /// records are read and let go.
    package static func entries(from r: inout BinaryReader) throws(BinaryDecodingError) -> PurchaseHistory {
        var probe = r
        let calendar = HouseholdCalendar(timeZone: try probe.string())
        guard try probe.int() == 1 else {
            return try PurchaseHistory(from: &r).lowered(to: .entries, state: ShopState.initial)!
        }
        r = probe
        _ = try r.array { r throws(BinaryDecodingError) in try r.string() }   // the buyers' names
        _ = try r.skip(try r.count(minimumSize: 24) * 24)                       // the amounts
        for _ in 0..<(try r.count(minimumSize: 24)) {                            // each item's purchases
            let _: ItemID = try r.id()
            _ = try r.skip(try r.count(minimumSize: 4) * 4)
        }
        _ = try r.array { r throws(BinaryDecodingError) in
            let _: ItemID = try r.id()
            _ = try r.tally()
            _ = try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }
            _ = try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }
        }
        _ = try r.array { r throws(BinaryDecodingError) in _ = try r.int(); _ = try r.tally() }
        _ = try r.array { r throws(BinaryDecodingError) in _ = try r.string(); _ = try r.tally() }
        _ = try r.array { r throws(BinaryDecodingError) in let _: LocationID = try r.id(); _ = try r.tally() }
        _ = try r.array { r throws(BinaryDecodingError) in _ = try r.optional { r throws(BinaryDecodingError) -> StoreID in try r.id() }; _ = try r.tally() }
        _ = try r.array { r throws(BinaryDecodingError) in _ = try r.uint32(); let _: StoreID = try r.id() }
        var history = PurchaseHistory(depth: .entries)
        history.calendar = calendar
        return history
    }

    /// The same history kept at a lesser depth, as if folded at that depth
    /// from the start; `nil` if it cannot be (a greater depth, or records
    /// that do not match `state`'s purchase table one to one, as in a journal
    /// that reused a purchase id, or a settling fold lowered to `.none`).
    package func lowered(to lesser: Depth, state: ShopState) -> PurchaseHistory? {
        if lesser == depth { return self }
        // A settling fold's state keeps no purchase table, which `.none` needs.
        if settled != nil, lesser != .entries { return nil }
        var lowered = PurchaseHistory(depth: lesser)
        lowered.calendar = calendar
        switch (depth, lesser) {
        case (_, .entries), (.totals, .none), (.records, .none):
            return lowered
        case (.records, .totals):
            guard records.count == state.purchases.count else { return nil }
            for (position, record) in records.enumerated() {
                guard state.purchases.position(of: record.purchase) == position else { return nil }
                lowered.amounts.append(Amount(quantity: record.quantity, unitPrice: record.unitPrice, actor: lowered.handle(record.actor)))
                if let store = record.store { lowered.amountStores[Int32(position)] = store }
            }
            lowered.byItem = byItem   // positions in the records are positions in the state's table
            (lowered.items, lowered.months, lowered.actors, lowered.locations, lowered.namedStores) = (items, months, actors, locations, namedStores)
            return lowered
        default:
            return nil
        }
    }
}

extension BinaryWriter {
    fileprivate mutating func tally(_ t: Tally) { int(t.purchases); int(t.quantity.thousandths); int(t.spend) }
}

extension BinaryReader {
    fileprivate mutating func tally() throws(BinaryDecodingError) -> Tally { Tally(purchases: try int(), quantity: Quantity(thousandths: try int()), spend: try int()) }
}

/// `.totals`: quantity, price and buyer of each purchase, by position. Those a
/// snapshot held are read where they lie in its mapped bytes (24-byte records:
/// quantity, price, whether there is one, buyer); those added since are kept
/// in chunks of 12-byte ``Packed`` records.
private struct AmountTable: Hashable, Sendable {
    typealias Amount = PurchaseHistory.Amount
    /// The amounts of a snapshot, 24 bytes each as ``encode(to:)`` writes them, where they lie.
    private var stored: MappedRecords?
    /// The amounts added since, 12 bytes each (``Packed``), in chunks:
    /// growing never copies them all, nor holds twice their size for a moment.
    private var added: [[Packed]] = []
    private var addedCount = 0
    /// The rare amount whose numbers do not fit ``Packed`` (beyond the spec's
    /// limits, as a journal written by hand may hold): kept whole, in order.
    private var outsized: [Amount] = []
    private static var chunkShift: Int { 13 }

    /// An amount in 12 bytes: the spec's limits (quantity ≤ 9,999,000 thousandths, price ≤
    /// 100,000,000 minor units) fit 32 bits with room to spare. A price of −1
    /// is none; a quantity of `Int32.min` marks an amount kept in `outsized`,
    /// at the index the price field holds.
    private struct Packed: Hashable, Sendable {
        var quantity: Int32
        var unitPrice: Int32
        var actor: Int32

        init(_ a: Amount, outsized: inout [Amount]) {
            actor = a.actor
            if let q = Int32(exactly: a.quantity.thousandths), q != .min,
               let p = a.unitPrice.map({ Int32(exactly: $0) }) ?? .some(-1), p >= 0 || a.unitPrice == nil {
                (quantity, unitPrice) = (q, p)
            } else {
                (quantity, unitPrice) = (.min, Int32(outsized.count))
                outsized.append(a)
            }
        }

        func amount(outsized: [Amount]) -> Amount {
            if quantity == .min { return outsized[Int(unitPrice)] }
            return Amount(quantity: Quantity(thousandths: Int(quantity)), unitPrice: unitPrice < 0 ? nil : Int(unitPrice), actor: actor)
        }
    }

    init() {}

    var count: Int { (stored?.count ?? 0) + addedCount }

    subscript(at: Int) -> Amount {
        if let stored, at < stored.count {
            return Amount(quantity: Quantity(thousandths: Int(stored.load(at, 0, as: Int64.self))),
                          unitPrice: stored.load(at, 16, as: UInt32.self) == 1 ? Int(stored.load(at, 8, as: Int64.self)) : nil,
                          actor: stored.load(at, 20))
        }
        let position = at - (stored?.count ?? 0)
        return added[position >> Self.chunkShift][position & ((1 << Self.chunkShift) - 1)].amount(outsized: outsized)
    }

    mutating func append(_ amount: Amount) {
        if addedCount >> Self.chunkShift == added.count {
            added.append([])
            added[added.count - 1].reserveCapacity(1 << Self.chunkShift)
        }
        added[added.count - 1].append(Packed(amount, outsized: &outsized))
        addedCount += 1
    }

    static func == (a: AmountTable, b: AmountTable) -> Bool {
        guard a.count == b.count else { return false }
        if a.stored === b.stored { return a.added == b.added && a.outsized == b.outsized }
        return (0..<a.count).allSatisfy { a[$0] == b[$0] }
    }

    func hash(into hasher: inout Hasher) { hasher.combine(count) }

    func encode(to w: inout BinaryWriter) {
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * 24)
        for at in 0..<count {
            let a = self[at]
            w.int(a.quantity.thousandths); w.int(a.unitPrice ?? 0); w.uint32(a.unitPrice == nil ? 0 : 1); w.uint32(UInt32(bitPattern: a.actor))
        }
    }

    /// Reads the records back where they lie in `r`'s bytes, each checked first.
    init(from r: inout BinaryReader, actors: Int) throws(BinaryDecodingError) {
        let count = try r.count(minimumSize: 24)
        let at = try r.skip(count * 24)
        guard count > 0 else { return }
        let raw = r.all
        for position in 0..<count {
            let hasPrice = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + position * 24 + 16, as: UInt32.self))
            let actor = UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at + position * 24 + 20, as: UInt32.self))
            guard hasPrice <= 1, actor < UInt32(actors) else { throw BinaryDecodingError("purchase \(position)'s amount names no buyer or price") }
        }
        stored = MappedRecords(r, at: at, count: count, size: 24)
    }
}

/// The purchases a settling fold was told will be reverted
/// (``PurchaseHistory/init(settling:)``), and how far each has got: their
/// ids sorted, found by halving, beside a byte each for the stage — 17
/// bytes a purchase, where a dictionary takes 23 to 45. Before the search,
/// a fixed 16 KiB table of bits, one set under a hash of each id, turns
/// away in one look almost every purchase that is not among them.
private struct Foresight: Hashable, Sendable {
    enum Stage: UInt8, Hashable, Sendable {
        /// Named by a revert, not bought yet.
        case awaited
        /// Bought, and not counted: its revert is still to come.
        case bought
        /// Bought and reverted, as foreseen.
        case reverted
    }

    private static var filterBits: Int { 1 << 17 }
    private var ids: [(UInt64, UInt64)] = []
    private var stages: [Stage] = []
    private var filter: [UInt64] = []

    init(_ reverted: Set<PurchaseID>) {
        guard !reverted.isEmpty else { return }
        ids = reverted.map(\.words).sorted { $0 < $1 }   // sorted as two words: any fixed order serves
        stages = Array(repeating: .awaited, count: ids.count)
        filter = Array(repeating: 0, count: Self.filterBits / 64)
        for id in reverted { let bit = Self.bit(id); filter[bit >> 6] |= 1 << UInt64(bit & 63) }
    }

    private static func bit(_ id: PurchaseID) -> Int { id.fixedHash & (filterBits - 1) }

    /// Where `id` stands among the purchases foreseen, or nil if it is not one.
    func position(of id: PurchaseID) -> Int? {
        guard !ids.isEmpty else { return nil }
        let bit = Self.bit(id)
        guard filter[bit >> 6] & (1 << UInt64(bit & 63)) != 0 else { return nil }
        let key = id.words
        var low = 0, high = ids.count
        while low < high {
            let middle = (low + high) / 2
            if ids[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low < ids.count && ids[low] == key ? low : nil
    }

    subscript(position: Int) -> Stage {
        get { stages[position] }
        set { stages[position] = newValue }
    }

    /// Whether a purchase foreseen was bought and its revert has not come.
    var anyBought: Bool { stages.contains(.bought) }

    static func == (a: Self, b: Self) -> Bool {
        a.ids.elementsEqual(b.ids, by: ==) && a.stages == b.stages
    }

    func hash(into hasher: inout Hasher) {
        for (high, low) in ids { hasher.combine(high); hasher.combine(low) }
        hasher.combine(stages)
    }
}
