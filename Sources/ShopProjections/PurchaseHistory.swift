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
    public var quantity: Int
    public var unitPrice: Int?
    public var list: ListID?
    public var listName: String?
    public var location: LocationID
    public var locationName: String
    public var isReverted: Bool

    /// Memberwise, for preview data and tests.
    public init(seq: Int, event: EventID, purchase: PurchaseID, purchasedAt: Timestamp, actor: String, item: ItemID, itemName: String, quantity: Int, unitPrice: Int?, list: ListID?, listName: String?, location: LocationID, locationName: String, isReverted: Bool) {
        self.seq = seq; self.event = event; self.purchase = purchase; self.purchasedAt = purchasedAt; self.actor = actor; self.item = item; self.itemName = itemName; self.quantity = quantity; self.unitPrice = unitPrice; self.list = list; self.listName = listName; self.location = location; self.locationName = locationName; self.isReverted = isReverted
    }

    /// quantity × unitPrice; a purchase without a price adds none.
    public var spend: Int { unitPrice.map { $0 * quantity } ?? 0 }
}

/// Purchases, quantity and spend added up.
public struct Tally: Hashable, Sendable {
    public var purchases = 0
    public var quantity = 0
    public var spend = 0

    public init(purchases: Int = 0, quantity: Int = 0, spend: Int = 0) {
        self.purchases = purchases; self.quantity = quantity; self.spend = spend
    }

    mutating func add(_ record: PurchaseRecord, sign: Int) {
        purchases += sign
        quantity += sign * record.quantity
        spend += sign * record.spend
    }
}

/// Every purchase in journal order, with running totals per item, month,
/// actor and place of purchase. Reverted purchases stay in the records
/// (marked) and drop out of every total.
///
/// Applying one event costs a few dictionary updates; a revert also looks
/// through the purchases of that one item to find its new first and last.
public struct PurchaseHistory: Hashable, Sendable {
    public private(set) var records: [PurchaseRecord] = []
    private var index: [PurchaseID: Int] = [:]
    private var byItem: [ItemID: [Int]] = [:]
    public private(set) var items: [ItemID: ItemTally] = [:]
    /// By month number (year × 12 + month − 1) in the household's time zone; see ``monthTotals``.
    private(set) var months: [Int: Tally] = [:]
    public private(set) var actors: [String: Tally] = [:]
    public private(set) var locations: [LocationID: Tally] = [:]
    private(set) var calendar = HouseholdCalendar.utc

    /// An item's totals and its first and last (non-reverted) purchase times.
    public struct ItemTally: Hashable, Sendable {
        public var tally = Tally()
        public var first: Timestamp?
        public var last: Timestamp?
    }

    public init() {}

    /// The record of a purchase id.
    public func record(_ purchase: PurchaseID) -> PurchaseRecord? { index[purchase].map { records[$0] } }

    /// Folds `recorded` in; `state` is the household just before it (for names).
    mutating func apply(_ recorded: RecordedEvent, before state: ShopState) {
        switch recorded.event {
        case let .householdCreated(_, _, _, timeZone):
            calendar = HouseholdCalendar(timeZone: timeZone)
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt):
            let record = PurchaseRecord(
                seq: recorded.seq, event: recorded.id, purchase: purchase, purchasedAt: purchasedAt ?? recorded.at,
                actor: recorded.actor, item: item, itemName: state.items[item]?.name ?? "", quantity: quantity,
                unitPrice: unitPrice, list: list, listName: list.flatMap { state.lists[$0]?.name },
                location: location, locationName: state.locations[location]?.name ?? "", isReverted: false)
            index[purchase] = records.count
            byItem[item, default: []].append(records.count)
            records.append(record)
            count(record, sign: 1)
        case let .purchaseReverted(purchase):
            guard let at = index[purchase], !records[at].isReverted else { return }
            records[at].isReverted = true
            count(records[at], sign: -1)
        default:
            break
        }
    }

    /// Adds (`sign` 1) or takes away (-1) a purchase. A total that drops to no
    /// purchases is removed, so the same purchases always give the same totals.
    private mutating func count(_ record: PurchaseRecord, sign: Int) {
        func add<Key: Hashable>(_ totals: inout [Key: Tally], _ key: Key) {
            var tally = totals[key, default: Tally()]
            tally.add(record, sign: sign)
            totals[key] = tally.purchases == 0 ? nil : tally
        }
        add(&months, calendar.monthNumber(record.purchasedAt))
        add(&actors, record.actor)
        add(&locations, record.location)
        var tally = items[record.item, default: ItemTally()]
        tally.tally.add(record, sign: sign)
        if sign > 0 {
            tally.first = min(tally.first ?? record.purchasedAt, record.purchasedAt)
            tally.last = max(tally.last ?? record.purchasedAt, record.purchasedAt)
        } else {
            var first: Timestamp?, last: Timestamp?
            for at in byItem[record.item] ?? [] where !records[at].isReverted {
                first = min(first ?? records[at].purchasedAt, records[at].purchasedAt)
                last = max(last ?? records[at].purchasedAt, records[at].purchasedAt)
            }
            tally.first = first
            tally.last = last
        }
        items[record.item] = tally.tally.purchases == 0 ? nil : tally
    }

    /// Totals per calendar month `YYYY-MM`, in the household's time zone.
    public var monthTotals: [String: Tally] {
        Dictionary(uniqueKeysWithValues: months.map { (HouseholdCalendar.monthText($0.key), $0.value) })
    }

    /// When the item was last bought (not counting reverted purchases).
    public func lastPurchase(of item: ItemID) -> Timestamp? { items[item]?.last }

    // MARK: Snapshot

    package func encode(to w: inout BinaryWriter) {
        w.string(calendar.timeZone.identifier)
        w.array(records) { w, r in
            w.int(r.seq); w.id(r.event); w.id(r.purchase); w.timestamp(r.purchasedAt); w.string(r.actor)
            w.id(r.item); w.string(r.itemName); w.int(r.quantity); w.optional(r.unitPrice) { $0.int($1) }
            w.optional(r.list) { $0.id($1) }; w.optional(r.listName) { $0.string($1) }
            w.id(r.location); w.string(r.locationName); w.bool(r.isReverted)
        }
    }

    /// Reads the records back and adds the totals up again: totals are derived, never stored.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        calendar = HouseholdCalendar(timeZone: try r.string())
        let saved = try r.array { r throws(BinaryDecodingError) in
            PurchaseRecord(seq: try r.int(), event: try r.id(), purchase: try r.id(), purchasedAt: try r.timestamp(),
                           actor: try r.string(), item: try r.id(), itemName: try r.string(), quantity: try r.int(),
                           unitPrice: try r.optional { r throws(BinaryDecodingError) in try r.int() },
                           list: try r.optional { r throws(BinaryDecodingError) in try r.id() },
                           listName: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                           location: try r.id(), locationName: try r.string(), isReverted: try r.bool())
        }
        records.reserveCapacity(saved.count)
        for record in saved {
            index[record.purchase] = records.count
            byItem[record.item, default: []].append(records.count)
            records.append(record)
            if !record.isReverted { count(record, sign: 1) }
        }
    }
}
