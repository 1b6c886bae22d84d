import ShopEvents

// The snapshot coding of the purchase history, and its lowering to a lesser depth.

extension PurchaseHistory {

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
            rows.encode(to: &w)
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
            rows = try PurchaseRows(from: &r)
            guard rows.count == purchases else { throw BinaryDecodingError("\(rows.count) purchase rows for \(purchases) amounts") }
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
            var entries = PurchaseHistory(depth: .entries)
            entries.calendar = try PurchaseHistory(from: &r).calendar   // read whole, its calendar kept
            return entries
        }
        r = probe
        let start = r.position
        defer { r.letGo(start..<r.position) }   // a mapped file's pages of what is passed over are let go
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
                lowered.rows.append(seq: record.seq, location: record.location)
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
