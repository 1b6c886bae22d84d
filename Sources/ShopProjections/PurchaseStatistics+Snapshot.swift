import ShopEvents

// The snapshot coding of the statistics and audit projections.

extension PurchaseStatistics {
    package func encode(to w: inout BinaryWriter) {
        w.string(calendar.timeZone.identifier)
        // Fixed-size records, read back in one go: quantity, price, whether there is one, buyer.
        w.array(actorNames) { $0.string($1) }
        amounts.encode(to: &w)
        w.array(byItem.sorted { $0.key < $1.key }) { w, entry in
            w.id(entry.key); w.int(entry.value.count)
            for position in entry.value { w.uint32(UInt32(bitPattern: position)) }
        }
        w.array(totals.items.sorted { $0.key < $1.key }) { w, entry in
            w.id(entry.key); w.tally(entry.value.tally)
            w.optional(entry.value.first) { $0.timestamp($1) }; w.optional(entry.value.last) { $0.timestamp($1) }
        }
        w.array(totals.months.sorted { $0.key < $1.key }) { w, entry in w.int(entry.key); w.tally(entry.value) }
        w.array(totals.actors.sorted { $0.key < $1.key }) { w, entry in w.string(entry.key); w.tally(entry.value) }
        w.array(totals.locations.sorted { $0.key < $1.key }) { w, entry in w.id(entry.key); w.tally(entry.value) }
        w.array(totals.namedStores.sorted { PurchaseTotals.storeOrder($0.key, $1.key) }) { w, entry in
            w.optional(entry.key) { $0.id($1) }; w.tally(entry.value)
        }
        w.array(amountStores.sorted { $0.key < $1.key }) { w, entry in w.uint32(UInt32(bitPattern: entry.key)); w.id(entry.value) }
        rows.encode(to: &w)
    }

    /// Reads the statistics back; `purchases`: how many the state's ledger holds, which its table must match.
    package init(from r: inout BinaryReader, purchases: Int) throws(BinaryDecodingError) {
        totals.calendar = HouseholdCalendar(timeZone: try r.string())
        actorNames = try r.array { r throws(BinaryDecodingError) in try r.string() }
        for (index, name) in actorNames.enumerated() { actorHandles[name] = Int32(index) }
        amounts = try AmountTable(from: &r, actors: actorNames.count)
        guard amounts.count == purchases else { throw BinaryDecodingError("\(amounts.count) purchase amounts for \(purchases) purchases") }
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
        let tallies = try r.array { r throws(BinaryDecodingError) -> (ItemID, PurchaseTotals.ItemTally) in
            (try r.id(), PurchaseTotals.ItemTally(tally: try r.tally(), first: try r.optional { r throws(BinaryDecodingError) in try r.timestamp() },
                                                  last: try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }))
        }
        totals.items.reserveCapacity(tallies.count)
        for (item, tally) in tallies { totals.items[item] = tally }
        for (month, tally) in try r.array({ r throws(BinaryDecodingError) in (try r.int(), try r.tally()) }) { totals.months[month] = tally }
        for (actor, tally) in try r.array({ r throws(BinaryDecodingError) in (try r.string(), try r.tally()) }) { totals.actors[actor] = tally }
        for (location, tally) in try r.array({ r throws(BinaryDecodingError) -> (LocationID, Tally) in (try r.id(), try r.tally()) }) {
            totals.locations[location] = tally
        }
        for (store, tally) in try r.array({ r throws(BinaryDecodingError) -> (StoreID?, Tally) in
            (try r.optional { r throws(BinaryDecodingError) -> StoreID in try r.id() }, try r.tally())
        }) {
            totals.namedStores[store] = tally
        }
        for (position, store) in try r.array({ r throws(BinaryDecodingError) -> (Int32, StoreID) in (Int32(bitPattern: try r.uint32()), try r.id()) }) {
            guard (0..<Int32(purchases)).contains(position) else { throw BinaryDecodingError("a store names purchase \(position) of \(purchases)") }
            amountStores[position] = store
        }
        rows = try PurchaseRows(from: &r)
        guard rows.count == purchases else { throw BinaryDecodingError("\(rows.count) purchase rows for \(purchases) purchases") }
    }

    /// Passes over saved statistics unread but for the household's calendar,
    /// which it gives; a mapped file's pages of what is passed over are let go.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) -> HouseholdCalendar {
        let calendar = HouseholdCalendar(timeZone: try r.string())
        let start = r.position
        defer { r.letGo(start..<r.position) }
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
        try PurchaseRows.skip(&r)
        return calendar
    }
}

extension PurchaseAudit {
    /// Why views that show the audit cannot be read from a snapshot saved without its records.
    package static let missing = "it holds no purchase records (saved without --with-records)"

    /// Writes the records, after their length in bytes (so a reader that shows no audit passes over them at once).
    package func encode(to w: inout BinaryWriter) {
        w.bool(true)
        let lengthAt = w.bytes.count
        w.int(0)
        let start = w.bytes.count
        w.array(records) { w, r in
            w.int(r.seq); w.id(r.event); w.id(r.purchase); w.timestamp(r.purchasedAt); w.string(r.actor)
            w.id(r.item); w.string(r.itemName); w.int(r.quantity.thousandths); w.optional(r.unitPrice) { $0.int($1) }
            w.optional(r.list) { $0.id($1) }; w.optional(r.listName) { $0.string($1) }
            w.id(r.location); w.string(r.locationName); w.bool(r.isReverted)
            w.optional(r.store) { $0.id($1) }; w.optional(r.storeName) { $0.string($1) }
        }
        withUnsafeBytes(of: Int64(w.bytes.count - start).littleEndian) { length in
            w.bytes.replaceSubrange(lengthAt..<lengthAt + 8, with: length)
        }
    }

    /// What views saved without the audit write in its place.
    package static func encodeNone(to w: inout BinaryWriter) { w.bool(false) }

    /// Reads the records back; throws ``missing`` for a snapshot saved without them.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        guard try r.bool() else { throw BinaryDecodingError(Self.missing) }
        let length = try r.int(), start = r.position
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
        guard r.position - start == length else { throw BinaryDecodingError("purchase records of \(r.position - start) bytes, said to be \(length)") }
        records = saved
        index.reserveCapacity(saved.count)
        for (position, record) in saved.enumerated() { Self.keep(&index[record.purchase, default: position]) }
    }

    /// Passes over the saved records, if any, unread.
    package static func skipSaved(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        guard try r.bool() else { return }
        let length = try r.int()
        guard length >= 0 else { throw BinaryDecodingError("purchase records of \(length) bytes") }
        let start = r.position
        _ = try r.skip(length)
        r.letGo(start..<r.position)
    }
}

extension BinaryWriter {
    fileprivate mutating func tally(_ t: Tally) { int(t.purchases); int(t.quantity.thousandths); int(t.spend) }
}

extension BinaryReader {
    fileprivate mutating func tally() throws(BinaryDecodingError) -> Tally { Tally(purchases: try int(), quantity: Quantity(thousandths: try int()), spend: try int()) }
}
