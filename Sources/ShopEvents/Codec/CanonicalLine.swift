import Foundation

/// The read path's fast path: a line exactly as this project writes it — its
/// keys in the writer's order, no white space, no escapes in keys, ids and
/// times, an event of this version — read straight through, each key's
/// bytes compared in place with a name known where it is compiled, and the
/// `data` of the frequent types read straight into the event.
///
/// It never decides anything the general reader
/// (``EventLineCodec/decodeRecorded(_:newer:)``) would decide otherwise: at
/// the first byte that is not what the writer puts there, or any value the
/// general reader might refuse, it gives `nil` and the general reader reads
/// the line from its start (and reports any error, with its offset). So it
/// accepts a subset of the lines the general reader accepts, and gives the
/// same event for them: a test compares the two on random histories and on
/// lines changed byte by byte.
enum CanonicalLine {
    static func decode(_ line: UnsafeRawBufferPointer) -> RecordedEvent? {
        withUnsafeTemporaryAllocation(of: RecordedEvent.self, capacity: 1) { slot in
            // reason: a temporary allocation of capacity 1 has an address.
            let at = slot.baseAddress!
            return decode(line, into: at) ? at.move() : nil
        }
    }

    /// Reads the line's event into `slot` (uninitialised memory), and says
    /// whether it did: made where it is to stay (a chunk's array), the event is
    /// not copied on its way there.
    static func decode(_ line: UnsafeRawBufferPointer, into slot: UnsafeMutablePointer<RecordedEvent>) -> Bool {
        var s = JSONScanner(line)
        guard s.count > 0, s.base[0] == UInt8(ascii: "{") else { return false }
        s.position = 1
        guard s.takeKey("seq", first: true) != nil, let seq = s.plainInt(), seq >= 1,
              let id = s.id("id"),
              s.takeKey("type", first: false) != nil, let type = s.eventTypeName(),
              s.takeKey("v", first: false) != nil, let version = s.plainInt(), version >= 1, version <= type.currentVersion,
              s.takeKey("at", first: false) != nil, let at = s.readPlain(24, Timestamp.parse),
              s.takeKey("actor", first: false) != nil, let actor = s.plainString(utf8: Limits.actorLength)
        else { return false }
        var device: String?, commandEvents: Int?, correlation: UUID?
        guard s.optional("device", &device, { $0.plainString() }),
              let command = s.id("command"),
              s.optional("commandEvents", &commandEvents, { s in s.plainInt().flatMap { $0 >= 2 && $0 <= RecordedEvent.maxCommandEvents ? $0 : nil } }),
              s.optional("correlation", &correlation, { $0.uuid() }),
              s.takeKey("data", first: false) != nil
        else { return false }
        // Made in its place with no string, an event of one id and no hash, then given its own, moved
        // in field by field, the event read straight into its field: made whole and put there, the
        // record (122 bytes of event) was copied on its way, its strings retained, the original destroyed.
        slot.initialize(to: RecordedEvent(seq: seq, id: EventID(id), at: at, actor: "", command: CommandID(command),
                                          commandEvents: commandEvents, correlation: correlation.map(CorrelationID.init),
                                          event: .listDeleted(list: ListID(command)), prev: SHA256Digest.zero))
        slot.pointee.actor = consume actor
        if device != nil { slot.pointee.device = consume device }
        guard data(type, version: version, &s, into: &slot.pointee.event),
              s.takeKey("prev", first: false) != nil, let prev = s.readPlain(64, SHA256Digest.parse),
              s.position == s.count - 1, s.base[s.position] == UInt8(ascii: "}")
        else {
            slot.deinitialize(count: 1)
            return false
        }
        slot.pointee.prev = prev
        return true
    }

    /// Reads the `data` object of a line of `type` into `event`, and says
    /// whether it did: the frequent types read here key by key in the
    /// writer's order, the others by ``EventData``. Assigned where it is to
    /// stay, the event is not copied on its way (nor through an optional).
    private static func data(_ type: EventType, version: Int, _ s: inout JSONScanner, into event: inout Event) -> Bool {
        guard s.position < s.count, s.base[s.position] == UInt8(ascii: "{") else { return false }
        let start = s.position
        s.position += 1
        let read: Bool
        switch type {
        case .itemPurchased, .itemAddedToList, .listEntryQuantityChanged, .itemRemovedFromList, .boughtEntriesCleared, .listDeleted,
             .listRestored, .listPurged:
            read = entryData(type, version: version, &s, into: &event)
        case .itemRelocated, .itemAvailabilityChanged, .itemDeleted, .itemRenamed, .itemDetailsChanged, .itemCreated:
            read = itemData(type, version: version, &s, into: &event)
        case .purchaseReverted, .tripStarted, .tripPaused, .tripResumed, .tripEnded, .listReordered, .locationsReordered,
             .locationCreated, .locationRecolored, .listPriorityChanged, .locationDeleted, .locationRenamed:
            read = otherData(type, version: version, &s, into: &event)
        default:
            // The rare types (the household, new and renamed lists, members, stores) the general way.
            s.position = start
            guard let data = try? EventData(&s), let read = try? data.event(type, version: version) else { return false }
            event = read
            return true
        }
        guard read, s.position < s.count, s.base[s.position] == UInt8(ascii: "}") else { return false }
        s.position += 1
        return true
    }

    /// ``data(_:version:_:into:)``'s fields for the list entries' and purchases' types, the most frequent.
    @inline(__always)
    private static func entryData(_ type: EventType, version: Int, _ s: inout JSONScanner, into event: inout Event) -> Bool {
        switch type {
        case .itemPurchased:
            var list: UUID?, unitPrice: Int?, purchasedAt: Timestamp?, store: UUID?
            guard let purchase = s.id("purchase", first: true), let item = s.id("item"), s.optional("list", &list, { $0.uuid() }),
                  let quantity = s.quantity("quantity", version: version), s.optional("unitPrice", &unitPrice, { $0.plainInt() }),
                  let location = s.id("location"), s.optional("purchasedAt", &purchasedAt, { $0.readPlain(24, Timestamp.parse) }),
                  version >= 2 || s.position >= s.count || s.base[s.position] == UInt8(ascii: "}"),   // version 1 has no store
                  s.optional("store", &store, { $0.uuid() })
            else { return false }
            event = .itemPurchased(purchase: PurchaseID(purchase), item: ItemID(item), list: list.map { ListID($0) }, quantity: quantity,
                                   unitPrice: unitPrice, location: LocationID(location), purchasedAt: purchasedAt, store: store.map { StoreID($0) })
        case .itemAddedToList, .listEntryQuantityChanged:
            guard let list = s.id("list", first: true), let item = s.id("item"), let quantity = s.quantity("quantity", version: version) else { return false }
            event = type == .itemAddedToList
                ? .itemAddedToList(list: ListID(list), item: ItemID(item), quantity: quantity)
                : .listEntryQuantityChanged(list: ListID(list), item: ItemID(item), quantity: quantity)
        case .itemRemovedFromList:
            guard let list = s.id("list", first: true), let item = s.id("item") else { return false }
            event = .itemRemovedFromList(list: ListID(list), item: ItemID(item))
        case .boughtEntriesCleared, .listDeleted, .listRestored, .listPurged:
            guard let list = s.id("list", first: true) else { return false }
            switch type {
            case .boughtEntriesCleared: event = .boughtEntriesCleared(list: ListID(list))
            case .listDeleted: event = .listDeleted(list: ListID(list))
            case .listRestored: event = .listRestored(list: ListID(list))
            default: event = .listPurged(list: ListID(list))
            }
        default: return false
        }
        return true
    }

    /// ``data(_:version:_:into:)``'s fields for the items' types.
    @inline(__always)
    private static func itemData(_ type: EventType, version: Int, _ s: inout JSONScanner, into event: inout Event) -> Bool {
        switch type {
        case .itemRelocated:
            guard let item = s.id("item", first: true), let location = s.id("location") else { return false }
            event = .itemRelocated(item: ItemID(item), location: LocationID(location))
        case .itemAvailabilityChanged:
            guard let item = s.id("item", first: true), s.takeKey("available", first: false) != nil else { return false }
            let available: Bool
            if s.readLiteral("true") { available = true } else if s.readLiteral("false") { available = false } else { return false }
            event = .itemAvailabilityChanged(item: ItemID(item), available: available)
        case .itemDeleted:
            guard let item = s.id("item", first: true) else { return false }
            event = .itemDeleted(item: ItemID(item))
        case .itemRenamed:
            guard let item = s.id("item", first: true), let name = s.string("name") else { return false }
            event = .itemRenamed(item: ItemID(item), name: name)
        case .itemDetailsChanged, .itemCreated:
            guard let item = s.id("item", first: true) else { return false }
            var name = "", location: UUID?
            if type == .itemCreated {
                guard let text = s.string("name"), let place = s.id("location") else { return false }
                name = text
                location = place
            }
            guard let details = s.details(version: version) else { return false }
            if let location {
                event = .itemCreated(item: ItemID(item), name: name, location: LocationID(location), details: details)
            } else {
                event = .itemDetailsChanged(item: ItemID(item), details: details)
            }
        default: return false
        }
        return true
    }

    /// ``data(_:version:_:into:)``'s fields for purchases reverted, trips, orders, places and priorities.
    @inline(__always)
    private static func otherData(_ type: EventType, version: Int, _ s: inout JSONScanner, into event: inout Event) -> Bool {
        switch type {
        case .purchaseReverted:
            guard let purchase = s.id("purchase", first: true) else { return false }
            event = .purchaseReverted(purchase: PurchaseID(purchase))
        case .tripStarted:
            var list: UUID?, store: UUID?
            guard let trip = s.id("trip", first: true), s.optional("list", &list, { $0.uuid() }),
                  version >= 2 || s.position >= s.count || s.base[s.position] == UInt8(ascii: "}"),   // version 1 has no store
                  s.optional("store", &store, { $0.uuid() }) else { return false }
            event = .tripStarted(trip: TripID(trip), list: list.map { ListID($0) }, store: store.map { StoreID($0) })
        case .tripPaused, .tripResumed, .tripEnded:
            guard let trip = s.id("trip", first: true) else { return false }
            switch type {
            case .tripPaused: event = .tripPaused(trip: TripID(trip))
            case .tripResumed: event = .tripResumed(trip: TripID(trip))
            default: event = .tripEnded(trip: TripID(trip))
            }
        case .listReordered:
            // A list's whole order, tens of ids a line: a fiftieth of the lines and, read the general way, a tenth of the reading.
            guard let list = s.id("list", first: true), s.takeKey("order", first: false) != nil, let order: [ItemID] = s.ids() else { return false }
            event = .listReordered(list: ListID(list), order: order)
        case .locationsReordered:
            guard s.takeKey("order", first: true) != nil, let order: [LocationID] = s.ids() else { return false }
            event = .locationsReordered(order: order)
        case .locationCreated:
            guard let location = s.id("location", first: true), let name = s.string("name"), let position = s.int("position"),
                  s.takeKey("color", first: false) != nil, let color = s.color() else { return false }
            event = .locationCreated(location: LocationID(location), name: name, position: position, color: color)
        case .locationRecolored:
            guard let location = s.id("location", first: true), s.takeKey("color", first: false) != nil, let color = s.color() else { return false }
            event = .locationRecolored(location: LocationID(location), color: color)
        case .listPriorityChanged:
            guard let list = s.id("list", first: true), let text = s.string("priority"), let priority = Priority(rawValue: text) else { return false }
            event = .listPriorityChanged(list: ListID(list), priority: priority)
        case .locationDeleted:
            guard let location = s.id("location", first: true) else { return false }
            event = .locationDeleted(location: LocationID(location))
        case .locationRenamed:
            guard let location = s.id("location", first: true), let name = s.string("name") else { return false }
            event = .locationRenamed(location: LocationID(location), name: name)
        default: return false
        }
        return true
    }
}

private extension JSONScanner {
    /// A non-negative integer as the writer puts it (digits, no sign, no
    /// leading zero, at most 18 of them); `nil` for anything else.
    @inline(__always) mutating func plainInt() -> Int? {
        var p = position
        guard p < count else { return nil }
        let first = base[p] &- UInt8(ascii: "0")
        guard first <= 9 else { return nil }
        var value = Int(first)
        p += 1
        if first == 0 {
            guard p < count, base[p] &- UInt8(ascii: "0") > 9 else { return nil }
            position = p
            return 0
        }
        while p < count {
            let d = base[p] &- UInt8(ascii: "0")
            if d > 9 { break }
            guard p - position < 18 else { return nil }
            value = value &* 10 &+ Int(d)
            p += 1
        }
        position = p
        return value
    }

    /// A string with no escapes, its UTF-8 checked, whose byte count is in `utf8`.
    @inline(__always) mutating func plainString(utf8 bytes: ClosedRange<Int> = 0...Int.max) -> String? {
        guard position < count, base[position] == UInt8(ascii: "\""), let key = try? readStringBytes(), !key.escaped,
              bytes.contains(key.end - key.start) else { return nil }
        return plainString(key)
    }

    /// The event type named by a plain string.
    @inline(__always) mutating func eventTypeName() -> EventType? {
        guard position < count, base[position] == UInt8(ascii: "\""),
              let end = memchr(base + position + 1, 0x22, count - position - 1) else { return nil }
        let start = position + 1, length = UnsafePointer<UInt8>(end.assumingMemoryBound(to: UInt8.self)) - (base + start)
        guard let type = EventType.named(UnsafeBufferPointer(start: base + start, count: length)) else { return nil }
        position = start + length + 1
        return type
    }

    @inline(__always) mutating func uuid() -> UUID? { readPlain(36, UUIDText.parse) }

    /// A colour as the writer puts it: its four parts in order, each a JSON
    /// number read as the general reader reads it.
    mutating func color() -> Color? {
        guard position < count, base[position] == UInt8(ascii: "{") else { return nil }
        position += 1
        guard takeKey("red", first: true) != nil, let red = try? readDouble(), takeKey("green", first: false) != nil, let green = try? readDouble(),
              takeKey("blue", first: false) != nil, let blue = try? readDouble(),
              takeKey("opacity", first: false) != nil, let opacity = try? readDouble(),
              position < count, base[position] == UInt8(ascii: "}")
        else { return nil }
        position += 1
        return Color(red: red, green: green, blue: blue, opacity: opacity)
    }

    /// An array of ids as the writer puts it: `[`, ids apart by `,` alone, `]`.
    mutating func ids<Kind>() -> [EntityID<Kind>]? {
        guard position < count, base[position] == UInt8(ascii: "[") else { return nil }
        position += 1
        var ids: [EntityID<Kind>] = []
        // At least 39 bytes an id with its quotes and comma: room for all there can be, made once.
        ids.reserveCapacity((count - position) / 39)
        if position < count, base[position] == UInt8(ascii: "]") {
            position += 1
            return ids
        }
        while true {
            guard let id = uuid(), position < count else { return nil }
            ids.append(EntityID(id))
            let next = base[position]
            position += 1
            if next == UInt8(ascii: "]") { return ids }
            guard next == UInt8(ascii: ",") else { return nil }
        }
    }

    @inline(__always) mutating func id(_ name: StaticString, first: Bool = false) -> UUID? {
        guard takeKey(name, first: first) != nil else { return nil }
        return uuid()
    }

    @inline(__always) mutating func string(_ name: StaticString) -> String? {
        guard takeKey(name, first: false) != nil else { return nil }
        return plainString()
    }

    /// A field the writer leaves out when it has no value: `true` if it is
    /// not there, or is there and `read` reads it (into `value`); `false` if
    /// it is there and cannot be read so.
    @inline(__always) mutating func optional<T>(_ name: StaticString, _ value: inout T?, _ read: (inout JSONScanner) -> T?) -> Bool {
        guard takeKey(name, first: false) != nil else { return true }
        value = read(&self)
        return value != nil
    }

    /// A quantity as the writer of `version` puts it: version 1 a plain
    /// integer; version 2 also `1.5`, `0.125` (one to three fraction digits,
    /// the last not 0).
    @inline(__always) mutating func quantity(_ name: StaticString, version: Int) -> Quantity? {
        guard takeKey(name, first: false) != nil else { return nil }
        return plainQuantity(version: version)
    }

    /// A whole number read as the plain integer it is (as fast as version 1's
    /// reader), a fraction by ``fraction(after:version:)``.
    @inline(__always) mutating func plainQuantity(version: Int) -> Quantity? {
        guard let whole = plainInt(), whole < 1_000_000_000_000_000 else { return nil }   // 15 digits, as the general reader
        guard position < count, base[position] == UInt8(ascii: ".") else { return Quantity(thousandths: whole &* 1000) }
        return fraction(after: whole, version: version)
    }

    /// The fraction digits after `whole` and its `.`; version 1 has none.
    @inline(never) mutating func fraction(after whole: Int, version: Int) -> Quantity? {
        guard version >= 2 else { return nil }
        var p = position + 1, fraction = 0, scale = 100
        while p < count, p - position <= 3 {
            let d = base[p] &- UInt8(ascii: "0")
            if d > 9 { break }
            fraction += Int(d) * scale
            scale /= 10
            p += 1
        }
        // One to three digits, the last not 0, and no fourth.
        guard p > position + 1, base[p - 1] != UInt8(ascii: "0"), p >= count || base[p] &- UInt8(ascii: "0") > 9 else { return nil }
        position = p
        return Quantity(thousandths: whole * 1000 + fraction)
    }

    @inline(__always) mutating func int(_ name: StaticString) -> Int? {
        guard takeKey(name, first: false) != nil else { return nil }
        return plainInt()
    }

    /// An item's details as the writer puts them: each optional, in its order.
    mutating func details(version: Int) -> ItemDetails? {
        var details = ItemDetails()
        guard optional("category", &details.category, { $0.plainString() }), optional("notes", &details.notes, { $0.plainString() }),
              optional("unitPrice", &details.unitPrice, { $0.plainInt() }), optional("photo", &details.photo, { $0.plainString() }),
              optional("quantity", &details.quantity, { $0.plainQuantity(version: version) })
        else { return nil }
        // Version 2's unit and barcode (a version-1 line with such keys: the general reader, which skips them).
        guard version >= 2 else { return details }
        var unit: String?, barcode: String?
        guard optional("unit", &unit, { $0.plainString() }), optional("barcode", &barcode, { $0.plainString() }) else { return nil }
        if unit != nil || barcode != nil { details.unit = unit; details.barcode = barcode }
        return details
    }
}
