import ShopEvents

/// The statistics projection's quantity, price and buyer of each purchase, by position. Those a
/// snapshot held are read where they lie in its mapped bytes (24-byte records:
/// quantity, price, whether there is one, buyer); those added since are kept
/// in chunks of 12-byte ``Packed`` records.
struct AmountTable: Hashable, Sendable {
    typealias Amount = PurchaseStatistics.Amount
    /// The amounts of a snapshot, 24 bytes each as ``encode(to:)`` writes them, where they lie.
    private var stored: MappedRecords?
    /// The amounts added since, 12 bytes each (``Packed``), in chunks:
    /// growing never copies them all, nor holds twice their size for a moment.
    private var added: [[Packed]] = []
    private var addedCount = 0
    /// The rare amount whose numbers do not fit ``Packed`` (beyond the rules'
    /// limits, as a journal written by hand may hold): kept whole, in order.
    private var outsized: [Amount] = []
    private static var chunkShift: Int { 13 }

    /// An amount in 12 bytes: the rules' limits (quantity ≤ 9,999,000 thousandths, price ≤
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
