/// The keys of one JSON object, read once, then fetched by name and type.
/// Used for an event's `data` and a command's `data`.
struct DataFields {
    private var scanner: JSONScanner
    private var keys: [JSONScanner.Key] = []
    private var values: [Int] = []
    private var used: UInt64 = 0
    /// Where the object starts in its text, for errors about a missing key.
    let start: Int

    /// Reads the object at the scanner's position and leaves the scanner after it.
    init(_ outer: inout JSONScanner, depth: Int = 1) throws(CodecError) {
        outer.skipWhitespace()
        start = outer.position
        guard outer.peek() == UInt8(ascii: "{") else { throw outer.fail(.invalidField, "data must be an object\(outer.found())") }
        try outer.beginObject()
        var first = true
        while let key = try outer.nextKey(first: &first) {
            for other in keys where outer.keyText(other) == outer.keyText(key) {
                throw CodecError(.malformedJSON, "key \"\(outer.keyText(key))\" appears twice", offset: key.start)
            }
            keys.append(key)
            values.append(outer.position)
            try outer.skipValue(depth: depth)
        }
        scanner = outer
    }

    /// A scanner at the value of `name`, or `nil` if the key is absent or `null`.
    private mutating func value(_ name: StaticString) -> JSONScanner? {
        for index in keys.indices where scanner.keyMatches(keys[index], name) {
            if index < 64 { used |= 1 << UInt64(index) }
            var at = scanner
            at.position = values[index]
            return at.readNull() ? nil : at
        }
        return nil
    }

    private func missing(_ name: StaticString) -> CodecError {
        CodecError(.missingField, "data has no \"\(name)\"", offset: start)
    }

    mutating func id<Kind>(_ name: StaticString) throws(CodecError) -> EntityID<Kind> {
        guard let id: EntityID<Kind> = try optionalID(name) else { throw missing(name) }
        return id
    }

    mutating func optionalID<Kind>(_ name: StaticString) throws(CodecError) -> EntityID<Kind>? {
        guard var at = value(name) else { return nil }
        at.skipWhitespace()
        guard at.peek() == UInt8(ascii: "\"") else { throw at.fail(.invalidField, "\(name) must be an id (a UUID string)\(at.found())") }
        return EntityID(try at.readUUID(name.description))
    }

    mutating func optionalInts(_ name: StaticString) throws(CodecError) -> [Int]? {
        guard var at = value(name) else { return nil }
        try at.expect(UInt8(ascii: "["), "\(name) to be an array of whole numbers")
        var result: [Int] = []
        var first = true
        while try at.nextElement(first: &first) { result.append(try at.readInt()) }
        return result
    }

    mutating func ids<Kind>(_ name: StaticString) throws(CodecError) -> [EntityID<Kind>] {
        guard var at = value(name) else { throw missing(name) }
        try at.expect(UInt8(ascii: "["), "\(name) to be an array of ids")
        var result: [EntityID<Kind>] = []
        var first = true
        while try at.nextElement(first: &first) { result.append(EntityID(try at.readUUID(name.description))) }
        return result
    }

    mutating func string(_ name: StaticString) throws(CodecError) -> String {
        guard let text = try optionalString(name) else { throw missing(name) }
        return text
    }

    mutating func optionalString(_ name: StaticString) throws(CodecError) -> String? {
        guard var at = value(name) else { return nil }
        guard at.peek() == UInt8(ascii: "\"") else { throw at.fail(.invalidField, "\(name) must be a string\(at.found())") }
        return try at.readString()
    }

    mutating func int(_ name: StaticString) throws(CodecError) -> Int {
        guard let number = try optionalInt(name) else { throw missing(name) }
        return number
    }

    mutating func optionalInt(_ name: StaticString) throws(CodecError) -> Int? {
        guard var at = value(name) else { return nil }
        return try at.readInt()
    }

    mutating func quantity(_ name: StaticString) throws(CodecError) -> Quantity {
        guard let quantity = try optionalQuantity(name) else { throw missing(name) }
        return quantity
    }

    mutating func optionalQuantity(_ name: StaticString) throws(CodecError) -> Quantity? {
        guard var at = value(name) else { return nil }
        return try at.readQuantity()
    }

    mutating func bool(_ name: StaticString) throws(CodecError) -> Bool {
        guard var at = value(name) else { throw missing(name) }
        return try at.readBool()
    }

    mutating func role(_ name: StaticString) throws(CodecError) -> Role {
        guard var at = value(name) else { throw missing(name) }
        let start = at.position
        guard at.peek() == UInt8(ascii: "\"") else { throw at.fail(.invalidField, "\(name) must be a string\(at.found())") }
        let text = try at.readString()
        guard let role = Role(rawValue: text) else {
            throw CodecError(.invalidField, "\(name) \"\(text)\" is not owner, member or viewer", offset: start)
        }
        return role
    }

    mutating func priority(_ name: StaticString) throws(CodecError) -> Priority {
        guard let priority = try optionalPriority(name) else { throw missing(name) }
        return priority
    }

    mutating func optionalPriority(_ name: StaticString) throws(CodecError) -> Priority? {
        guard var at = value(name) else { return nil }
        let start = at.position
        let text = try at.readString()
        guard let priority = Priority(rawValue: text) else {
            throw CodecError(.invalidField, "\(name) \"\(text)\" is not low, normal or high", offset: start)
        }
        return priority
    }

    mutating func optionalTimestamp(_ name: StaticString) throws(CodecError) -> Timestamp? {
        guard var at = value(name) else { return nil }
        return try at.readTimestamp(name.description)
    }

    mutating func color(_ name: StaticString) throws(CodecError) -> Color {
        guard let color = try optionalColor(name) else { throw missing(name) }
        return color
    }

    mutating func optionalColor(_ name: StaticString) throws(CodecError) -> Color? {
        guard var at = value(name) else { return nil }
        var parts = try DataFields(&at, depth: 2)
        let color = Color(red: try parts.double("red"), green: try parts.double("green"),
                          blue: try parts.double("blue"), opacity: try parts.double("opacity"))
        return color
    }

    mutating func double(_ name: StaticString) throws(CodecError) -> Double {
        guard var at = value(name) else { throw missing(name) }
        return try at.readDouble()
    }

    mutating func details() throws(CodecError) -> ItemDetails {
        ItemDetails(category: try optionalString("category"), notes: try optionalString("notes"),
                    unitPrice: try optionalInt("unitPrice"), photo: try optionalString("photo"), quantity: try optionalQuantity("quantity"),
                    unit: try optionalString("unit"), barcode: try optionalString("barcode"))
    }

    /// A `ChangeItemDetails`' fields as a merge patch: a key left out keeps, `null` clears.
    mutating func detailsPatch() throws(CodecError) -> ItemDetailsPatch {
        ItemDetailsPatch(category: try patch("category") { d throws(CodecError) in try d.optionalString("category") },
                         notes: try patch("notes") { d throws(CodecError) in try d.optionalString("notes") },
                         unitPrice: try patch("unitPrice") { d throws(CodecError) in try d.optionalInt("unitPrice") },
                         photo: try patch("photo") { d throws(CodecError) in try d.optionalString("photo") },
                         quantity: try patch("quantity") { d throws(CodecError) in try d.optionalQuantity("quantity") },
                         unit: try patch("unit") { d throws(CodecError) in try d.optionalString("unit") },
                         barcode: try patch("barcode") { d throws(CodecError) in try d.optionalString("barcode") })
    }

    /// ``FieldPatch/keep`` if the key is absent, ``FieldPatch/clear`` if it is `null`, else the value `read` reads.
    private mutating func patch<Value>(_ name: StaticString,
                                       _ read: (inout DataFields) throws(CodecError) -> Value?) throws(CodecError) -> FieldPatch<Value> {
        guard keys.contains(where: { scanner.keyMatches($0, name) }) else { return .keep }
        return try read(&self).map(FieldPatch.set) ?? .clear
    }

    /// For strict readers (commands): every key must have been fetched.
    func requireAllUsed(_ what: String) throws(CodecError) {
        for index in keys.indices where index >= 64 || used & (1 << UInt64(index)) == 0 {
            throw CodecError(.unknownField, "\(what) has no field \"\(scanner.keyText(keys[index]))\"", offset: keys[index].start)
        }
    }
}

extension JSONWriter {
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>) { key(name); id(value) }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: String) { key(name); string(value) }
    mutating func field(_ name: StaticString, _ value: String?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Int) { key(name); int(value) }
    mutating func field(_ name: StaticString, _ value: Int?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Bool) { key(name); bool(value) }
    mutating func field(_ name: StaticString, _ value: Quantity) { key(name); quantity(value) }
    mutating func field(_ name: StaticString, _ value: Quantity?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Timestamp?) { if let value { key(name); timestamp(value) } }
    mutating func field(_ name: StaticString, _ value: Priority?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Priority) { key(name); string(value.rawValue) }
    mutating func field(_ name: StaticString, _ value: Role) { key(name); string(value.rawValue) }
    mutating func field(_ name: StaticString, _ value: Color?) { if let value { field(name, value) } }
    mutating func field(_ name: StaticString, _ value: Color) { key(name); color(value) }
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>]) { key(name); ids(value) }
    mutating func field(_ name: StaticString, _ value: [Int]?) {
        guard let value else { return }
        key(name)
        append(UInt8(ascii: "["))
        for (index, number) in value.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            int(number)
        }
        append(UInt8(ascii: "]"))
    }

    /// A merge patch: a kept field left out, a cleared one `null`.
    mutating func detailsPatch(_ patch: ItemDetailsPatch) {
        func field<Value>(_ name: StaticString, _ change: FieldPatch<Value>, _ write: (inout JSONWriter, Value) -> Void) {
            switch change {
            case .keep: return
            case .clear: key(name); null()
            case let .set(value): key(name); write(&self, value)
            }
        }
        field("category", patch.category) { $0.string($1) }
        field("notes", patch.notes) { $0.string($1) }
        field("unitPrice", patch.unitPrice) { $0.int($1) }
        field("photo", patch.photo) { $0.string($1) }
        field("quantity", patch.quantity) { $0.quantity($1) }
        field("unit", patch.unit) { $0.string($1) }
        field("barcode", patch.barcode) { $0.string($1) }
    }
}

/// The journal's writer reads an event's fields as it writes them.
extension JSONWriter: EventFieldVisitor {}
