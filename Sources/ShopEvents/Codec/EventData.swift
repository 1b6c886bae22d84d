import Foundation

/// The `data` object of a journal line, read in one pass: each key is
/// recognised by its bytes and its value read straight into its field, with
/// no intermediate objects. Unknown keys are checked and skipped; a key that
/// appears twice is refused.
struct EventData {
    enum Field: UInt32 {
        case household, name, currency, timeZone, location, position, color, order, item, category, notes, unitPrice
        case photo, available, list, priority, quantity, purchase, purchasedAt, trip, member, role, positions, unknownAlias
        case unit, barcode, store
        var bit: UInt32 { 1 << rawValue }
    }

    var seen: UInt32 = 0
    /// Where the object starts, for errors about a missing key.
    var start = 0
    var household: UUID?, location: UUID?, item: UUID?, list: UUID?, purchase: UUID?, trip: UUID?, store: UUID?
    var name: String?, currency: String?, timeZone: String?, category: String?, notes: String?, photo: String?
    var unit: String?, barcode: String?
    var position: Int?, unitPrice: Int?
    var quantity: Quantity?
    /// Where the quantity's value starts, for a version-1 quantity that is not whole.
    var quantityOffset = 0
    /// Whether the quantity was written as an integer (version 1's form: `2`, not `2.0`).
    var quantityIsInteger = true
    var available: Bool?
    var priority: Priority?
    var member: String?
    var role: Role?
    var color: Color?
    var order: [UUID]?
    var positions: [Int]?
    var unknownAlias: UUID?
    var purchasedAt: Timestamp?

    /// Which field a key names, from its bytes: compared with the declared
    /// keys of its length only (``keysByLength``), their first byte first.
    static func field(_ s: JSONScanner, _ key: JSONScanner.Key) -> Field? {
        if key.escaped {
            let text = s.keyText(key)
            return keysByLength.joined().first { String(decoding: $0.bytes, as: UTF8.self) == text }?.field
        }
        let n = key.end - key.start
        guard n < keysByLength.count else { return nil }
        let p = s.base + key.start
        for entry in keysByLength[n] where entry.bytes[0] == p[0] {
            let same = entry.bytes.withUnsafeBufferPointer { bytes in bytes.baseAddress.map { memcmp($0, p, n) == 0 } ?? false }
            if same { return entry.field }
        }
        return nil
    }

    /// Reads the object at the scanner's position and leaves the scanner after it.
    init(_ s: inout JSONScanner) throws(CodecError) {
        s.skipWhitespace()
        start = s.position
        guard s.peek() == UInt8(ascii: "{") else { throw s.fail(.invalidField, "data must be an object\(s.found())") }
        try s.beginObject()
        var first = true
        while let key = try s.nextKey(first: &first) {
            guard let field = Self.field(s, key) else {
                try s.skipValue(depth: 1)
                continue
            }
            guard seen & field.bit == 0 else {
                throw CodecError(.malformedJSON, "key \"\(s.keyText(key))\" appears twice", offset: key.start)
            }
            seen |= field.bit
            if s.readNull() { continue }   // null: the same as absent
            switch field {
            case .household: household = try s.readUUID("household")
            case .location: location = try s.readUUID("location")
            case .item: item = try s.readUUID("item")
            case .list: list = try s.readUUID("list")
            case .purchase: purchase = try s.readUUID("purchase")
            case .trip: trip = try s.readUUID("trip")
            case .store: store = try s.readUUID("store")
            case .name: name = try Self.string(&s, "name")
            case .currency: currency = try Self.string(&s, "currency")
            case .timeZone: timeZone = try Self.string(&s, "timeZone")
            case .category: category = try Self.string(&s, "category")
            case .notes: notes = try Self.string(&s, "notes")
            case .photo: photo = try Self.string(&s, "photo")
            case .unit: unit = try Self.string(&s, "unit")
            case .barcode: barcode = try Self.string(&s, "barcode")
            case .position: position = try s.readInt()
            case .quantity:
                s.skipWhitespace()
                quantityOffset = s.position
                quantity = try s.readQuantity()
                quantityIsInteger = !UnsafeBufferPointer(start: s.base + quantityOffset, count: s.position - quantityOffset).contains(UInt8(ascii: "."))
            case .unitPrice: unitPrice = try s.readInt()
            case .available: available = try s.readBool()
            case .priority:
                let at = s.position
                let text = try Self.string(&s, "priority")
                guard let value = Priority(rawValue: text) else {
                    throw CodecError(.invalidField, "priority \"\(text)\" is not low, normal or high", offset: at)
                }
                priority = value
            case .color:
                var fields = try DataFields(&s, depth: 2)
                color = Color(red: try fields.double("red"), green: try fields.double("green"),
                              blue: try fields.double("blue"), opacity: try fields.double("opacity"))
            case .order:
                try s.expect(UInt8(ascii: "["), "order to be an array of ids")
                var ids: [UUID] = []
                var firstElement = true
                while try s.nextElement(first: &firstElement) { ids.append(try s.readUUID("order")) }
                order = ids
            case .positions:
                try s.expect(UInt8(ascii: "["), "positions to be an array of whole numbers")
                var numbers: [Int] = []
                var firstElement = true
                while try s.nextElement(first: &firstElement) { numbers.append(try s.readInt()) }
                positions = numbers
            case .unknownAlias: unknownAlias = try s.readUUID("unknownAlias")
            case .purchasedAt: purchasedAt = try s.readTimestamp("purchasedAt")
            case .member: member = try Self.string(&s, "member")
            case .role:
                let at = s.position
                let text = try Self.string(&s, "role")
                guard let value = Role(rawValue: text) else {
                    throw CodecError(.invalidField, "role \"\(text)\" is not owner, member or viewer", offset: at)
                }
                role = value
            }
        }
    }

    static func string(_ s: inout JSONScanner, _ name: StaticString) throws(CodecError) -> String {
        guard s.peek() == UInt8(ascii: "\"") else { throw s.fail(.invalidField, "\(name) must be a string\(s.found())") }
        return try s.readString()
    }

    func missing(_ name: StaticString) -> CodecError { CodecError(.missingField, "data has no \"\(name)\"", offset: start) }

    func need<T>(_ value: T?, _ name: StaticString) throws(CodecError) -> T {
        guard let value else { throw missing(name) }
        return value
    }

    func id<Kind>(_ value: UUID?, _ name: StaticString) throws(CodecError) -> EntityID<Kind> { EntityID(try need(value, name)) }

    /// Version 2's details (version 1's have no unit and no barcode: see ``detailsV1``).
    var details: ItemDetails {
        ItemDetails(category: category, notes: notes, unitPrice: unitPrice, photo: photo, quantity: quantity, unit: unit, barcode: barcode)
    }

    /// A version-1 quantity: a whole number.
    func whole(_ quantity: Quantity) throws(CodecError) -> Int {
        guard quantityIsInteger, let whole = quantity.whole else {
            throw CodecError(.invalidField, "quantity \(quantity): version 1 has whole quantities only", offset: quantityOffset)
        }
        return whole
    }

    var detailsV1: EventV1.Details {
        get throws(CodecError) {
            EventV1.Details(category: category, notes: notes, unitPrice: unitPrice, photo: photo, quantity: try quantity.map { q throws(CodecError) in try whole(q) })
        }
    }

    /// The event of `type` at `version` (at most its current one) from these
    /// fields, an older version's upgraded; a required field that is absent is an error.
    func event(_ type: EventType, version: Int) throws(CodecError) -> Event {
        guard version < type.currentVersion else { return try event(type) }
        switch type {
        case .itemCreated:
            return EventV1.ItemCreated(item: try id(item, "item"), name: try need(name, "name"), location: try id(location, "location"),
                                       details: try detailsV1).upgraded()
        case .itemDetailsChanged:
            return EventV1.ItemDetailsChanged(item: try id(item, "item"), details: try detailsV1).upgraded()
        case .itemAddedToList:
            return EventV1.ItemAddedToList(list: try id(list, "list"), item: try id(item, "item"), quantity: try whole(try need(quantity, "quantity"))).upgraded()
        case .listEntryQuantityChanged:
            return EventV1.ListEntryQuantityChanged(list: try id(list, "list"), item: try id(item, "item"),
                                                    quantity: try whole(try need(quantity, "quantity"))).upgraded()
        case .itemPurchased:
            return EventV1.ItemPurchased(purchase: try id(purchase, "purchase"), item: try id(item, "item"), list: list.map(ListID.init),
                                         quantity: try whole(try need(quantity, "quantity")), unitPrice: unitPrice,
                                         location: try id(location, "location"), purchasedAt: purchasedAt).upgraded()
        case .tripStarted:
            return EventV1.TripStarted(trip: try id(trip, "trip"), list: list.map(ListID.init)).upgraded()
        default:
            return try event(type)
        }
    }
}

extension EventData.Field: CaseIterable {
    /// The field of a declared key: each case is named as its key.
    init?(key: String) {
        guard let field = Self.allCases.first(where: { "\($0)" == key }) else { return nil }
        self = field
    }
}

extension EventData {
    /// A declared key and the field that holds its value.
    struct KeyEntry {
        var field: Field
        var bytes: [UInt8]
    }

    /// Every key the events' declarations name (``EventDeclaration/allKeys``), by its length in bytes.
    static let keysByLength: [[KeyEntry]] = {
        let entries = EventDeclaration.allKeys.map { key in
            guard let field = Field(key: key) else {
                preconditionFailure("EventData has no field for the declared key \"\(key)\": add a case to EventData.Field and read it in init")
            }
            return KeyEntry(field: field, bytes: Array(key.utf8))
        }
        var table = Array(repeating: [KeyEntry](), count: (entries.map(\.bytes.count).max() ?? 0) + 1)
        for entry in entries { table[entry.bytes.count].append(entry) }
        return table
    }()
}

extension EventType {
    /// The type named by the bytes of a string, without making a String.
    static func named(_ bytes: UnsafeBufferPointer<UInt8>) -> EventType? {
        guard let start = bytes.baseAddress, bytes.count < byLength.count else { return nil }
        for (type, name) in byLength[bytes.count] {
            let same = name.withUnsafeBufferPointer { name in name.baseAddress.map { memcmp($0, start, bytes.count) == 0 } ?? false }
            if same { return type }
        }
        return nil
    }

    /// The types' names by their length in bytes (at most nine share one), so that a name is compared with those of its length only.
    static let byLength: [[(EventType, [UInt8])]] = {
        let names = EventType.allCases.map { ($0, Array($0.rawValue.utf8)) }
        var table = Array(repeating: [(EventType, [UInt8])](), count: (names.map(\.1.count).max() ?? 0) + 1)
        for (type, name) in names { table[name.count].append((type, name)) }
        return table
    }()
}
