// An item's details in the snapshot encoding: written through the same
// field list as the journal's (``ItemDetailsVisitor``), each an optional in
// the declared order, and read back in that order.

extension BinaryWriter: ItemDetailsVisitor {
    mutating func field(_ name: StaticString, _ value: String?) { optional(value) { $0.string($1) } }
    mutating func field(_ name: StaticString, _ value: Int?) { optional(value) { $0.int($1) } }
    mutating func field(_ name: StaticString, _ value: Quantity?) { optional(value) { $0.int($1.thousandths) } }
}

extension ItemDetails {
    /// The details ``ItemDetailsVisitor/details(_:)`` wrote to a snapshot; a
    /// test holds the two to each other (a field one writes and the other does
    /// not read fails every state's round trip).
    init(snapshot r: inout BinaryReader) throws(BinaryDecodingError) {
        self.init(category: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                  notes: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                  unitPrice: try r.optional { r throws(BinaryDecodingError) in try r.int() },
                  photo: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                  quantity: try r.optional { r throws(BinaryDecodingError) in Quantity(thousandths: try r.int()) },
                  unit: try r.optional { r throws(BinaryDecodingError) in try r.string() },
                  barcode: try r.optional { r throws(BinaryDecodingError) in try r.string() })
    }
}
