// The state in the snapshot encoding. Name indexes are derived, so they are
// rebuilt rather than stored. Things are written in id order, so the same
// state always gives the same bytes.

extension ShopState {
    package func encode(to w: inout BinaryWriter) {
        w.optional(household) { w, h in
            w.id(h.id); w.string(h.name); w.string(h.currency); w.string(h.timeZone)
        }
        w.array(locations.values.sorted { $0.id < $1.id }) { w, l in
            w.id(l.id); w.string(l.name); w.int(l.position); w.color(l.color); w.bool(l.isDeleted)
        }
        w.optional(unknownLocationAlias) { $0.id($1) }
        w.array(items.values.sorted { $0.id < $1.id }) { w, i in
            w.id(i.id); w.string(i.name); w.id(i.location); w.details(i.details)
            w.bool(i.isAvailable); w.bool(i.isDeleted)
        }
        w.array(lists.values.sorted { $0.id < $1.id }) { w, l in
            w.id(l.id); w.string(l.name); w.string(l.priority.rawValue); w.timestamp(l.createdAt); w.string(l.createdBy)
            w.optional(l.deletedAt) { $0.timestamp($1) }
            w.optional(l.deletedBy) { $0.string($1) }
            w.array(l.entries) { w, e in
                w.id(e.item); w.int(e.quantity.thousandths); w.int(e.addedSeq)
                w.optional(e.purchase) { $0.id($1) }
                w.optional(e.boughtSeq) { $0.int($1) }
                w.optional(e.assignee) { $0.string($1) }
            }
        }
        w.array(purgedLists.sorted()) { $0.id($1) }
        purchases.encode(to: &w)
        w.array(trips.values.sorted { $0.id < $1.id }) { w, t in
            w.id(t.id); w.string(t.shopper); w.optional(t.list) { $0.id($1) }; w.optional(t.store) { $0.id($1) }; w.timestamp(t.startedAt); w.int(Int(t.activeMilliseconds))
            switch t.phase {
            case let .running(since): w.int(0); w.timestamp(since)
            // 3: paused, with when (the time a snapshot of an earlier build did not keep, 1).
            case .paused: if let pausedAt = t.pausedAt { w.int(3); w.timestamp(pausedAt) } else { w.int(1) }
            case let .ended(at): w.int(2); w.timestamp(at)
            }
        }
        w.array(members) { w, m in
            w.string(m.name); w.string(m.role.rawValue); w.timestamp(m.joinedAt); w.string(m.addedBy)
        }
        w.array(stores.values.sorted { $0.id < $1.id }) { w, s in w.id(s.id); w.string(s.name); w.bool(s.isDeleted); w.array(s.order) { $0.id($1) } }
    }

    /// Reads a state back.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        try self.init(from: &r, passingOverHistory: false)
    }

    /// Reads a state back; `passingOverHistory` passes over the purchase
    /// ledger without reading it and lets the rest of the history go as it
    /// is read: ``PresentState``'s reader, whose views show none, so the
    /// ledger's pages of a mapped snapshot are never touched.
    init(from r: inout BinaryReader, passingOverHistory: Bool) throws(BinaryDecodingError) {
        self.init()
        let keepingHistory = !passingOverHistory
        household = try r.optional { r throws(BinaryDecodingError) in
            Household(id: try r.id(), name: try r.string(), currency: try r.string(), timeZone: try r.string())
        }
        let savedLocations = try r.array { r throws(BinaryDecodingError) in
            Location(id: try r.id(), name: try r.string(), position: try r.int(), color: try r.color(), isDeleted: try r.bool())
        }
        // Without the history, deleted locations are let go as they are read, as deleted items are below.
        locations.reserveCapacity(keepingHistory ? savedLocations.count : savedLocations.lazy.filter { !$0.isDeleted }.count)
        for l in savedLocations where keepingHistory || !l.isDeleted {
            locations[l.id] = l
            countLive(l.id)
            if !l.isDeleted { locationNames.claim(l.name, by: l.id) }
        }
        unknownLocationAlias = try r.optional { r throws(BinaryDecodingError) in try r.id() }
        let savedItems = try r.array { r throws(BinaryDecodingError) in
            let (id, name, location): (ItemID, String, LocationID) = (try r.id(), try r.string(), try r.id())
            let details = try ItemDetails(snapshot: &r)
            return Item(id: id, name: name, location: location, details: details, isAvailable: try r.bool(), isDeleted: try r.bool())
        }
        // Without the history, deleted items are let go as they are read (see `PresentState`).
        items.reserveCapacity(keepingHistory ? savedItems.count : savedItems.lazy.filter { !$0.isDeleted }.count)
        for i in savedItems where keepingHistory || !i.isDeleted {
            countLive(i.id, -1)
            items[i.id] = i
            countLive(i.id, 1)
            if !i.isDeleted {
                itemNames.claim(i.name, by: i.id)
                if let barcode = i.details.barcode { barcodes[Barcode.key(barcode)] = i.id }
            }
        }
        for l in try r.array({ r throws(BinaryDecodingError) in
            let (id, name): (ListID, String) = (try r.id(), try r.string())
            let priorityText = try r.string()
            guard let priority = Priority(rawValue: priorityText) else { throw BinaryDecodingError("priority \(priorityText)") }
            var list = ShoppingList(id: id, name: name, priority: priority, createdAt: try r.timestamp(), createdBy: try r.string())
            list.deletedAt = try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }
            list.deletedBy = try r.optional { r throws(BinaryDecodingError) in try r.string() }
            list.entries = try r.array { r throws(BinaryDecodingError) in
                ListEntry(item: try r.id(), quantity: Quantity(thousandths: try r.int()), addedSeq: try r.int(),
                          purchase: try r.optional { r throws(BinaryDecodingError) in try r.id() },
                          boughtSeq: try r.optional { r throws(BinaryDecodingError) in try r.int() },
                          assignee: try r.optional { r throws(BinaryDecodingError) in try r.string() })
            }
            return list
        }) {
            lists[l.id] = l
            if !l.isDeleted { listNames.claim(l.name, by: l.id) }
        }
        purgedLists = Set(try r.array { r throws(BinaryDecodingError) in try r.id() })
        if keepingHistory {
            purchases = try PurchaseLedger(from: &r)
        } else {
            try PurchaseLedger.skip(&r)
        }
        let savedTrips = try Self.trips(from: &r)
        func isEnded(_ trip: Trip) -> Bool { if case .ended = trip.phase { true } else { false } }
        trips.reserveCapacity(keepingHistory ? savedTrips.count : savedTrips.lazy.filter { !isEnded($0) }.count)
        for t in savedTrips where keepingHistory || !isEnded(t) { trips[t.id] = t }
        for t in savedTrips where !isEnded(t) { openTrips[t.shopper] = t.id }
        members = try r.array { r throws(BinaryDecodingError) in
            let name = try r.string(), roleText = try r.string()
            guard let role = Role(rawValue: roleText) else { throw BinaryDecodingError("role \(roleText)") }
            return Member(name: name, role: role, joinedAt: try r.timestamp(), addedBy: try r.string())
        }
        for s in try r.array({ r throws(BinaryDecodingError) in Store(id: try r.id(), name: try r.string(), isDeleted: try r.bool(),
                                                                     order: try r.array { r throws(BinaryDecodingError) in try r.id() }) }) {
            stores[s.id] = s
            if !s.isDeleted { storeNames.claim(s.name, by: s.id) }
        }
    }

    /// The trips of a saved state, in the order saved.
    private static func trips(from r: inout BinaryReader) throws(BinaryDecodingError) -> [Trip] {
        try r.array { r throws(BinaryDecodingError) in
            let (id, shopper, list, store, startedAt, active): (TripID, String, ListID?, StoreID?, Timestamp, Int) =
                (try r.id(), try r.string(), try r.optional { r throws(BinaryDecodingError) in try r.id() }, try r.optional { r throws(BinaryDecodingError) in try r.id() },
                 try r.timestamp(), try r.int())
            let phase: Trip.Phase
            var pausedAt: Timestamp?
            switch try r.int() {
            case 0: phase = .running(since: try r.timestamp())
            case 1: phase = .paused
            case 3: (phase, pausedAt) = (.paused, try r.timestamp())
            case 2: phase = .ended(at: try r.timestamp())
            case let other: throw BinaryDecodingError("trip phase \(other)")
            }
            return Trip(id: id, shopper: shopper, list: list, store: store, startedAt: startedAt, phase: phase, activeMilliseconds: Int64(active), pausedAt: pausedAt)
        }
    }
}
