import ShopEvents

/// Where each purchase was bought and its `seq`, beside the state's
/// ``PurchaseLedger`` (which keeps what the rules need: id, item, list, time,
/// reverted) and by the ledger's positions: together they give the whole
/// ``Purchase``. The statistics keep one (``PurchaseHistory``), and so does
/// whatever shows a purchase's place or `seq` (a revert in `shop-replay
/// history`). 8 bytes a purchase.
///
/// ```swift
/// var state = ShopState.initial
/// var rows = PurchaseRows()
/// for recorded in events {
///     rows.apply(recorded, before: state)
///     state.apply(recorded)
/// }
/// if let bought = rows.purchase(purchase, in: state.purchases) { print(bought.location, bought.seq) }
/// ```
public struct PurchaseRows: Hashable, Sendable {
    /// A `seq` outside `0..<UInt32.max` (a journal past four billion events)
    /// is `UInt32.max` here and kept in ``outsizedSeqs``.
    struct Row: Hashable, Sendable {
        var seq: UInt32
        var location: Int32
    }

    /// By the ledger's position.
    var rows = ChunkedArray<Row>()
    /// The `seq` of a row that does not fit ``Row/seq``, by position.
    var outsizedSeqs: [Int: Int] = [:]
    var locations = PurchaseLedger.Handles<LocationKind>()

    public init() {}

    /// How many purchases it holds: as many as the ledger it was folded beside.
    public var count: Int { rows.count }

    /// Folds `recorded` in; `state` is the household just before it. Only
    /// the first purchase of an id is kept, as the ledger keeps it.
    public mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        guard case let .itemPurchased(purchase, _, _, _, _, location, _, _) = recorded.event,
              state.purchases.position(of: purchase) == nil else { return }   // no other event adds a purchase
        append(seq: recorded.seq, location: location)
    }

    /// Adds the row of the purchase the ledger adds next.
    mutating func append(seq: Int, location: LocationID) {
        let fits = seq >= 0 && seq < Int(UInt32.max)
        if !fits { outsizedSeqs[rows.count] = seq }
        rows.append(Row(seq: fits ? UInt32(seq) : .max, location: locations.handle(location)))
    }

    /// The whole purchase at a position of `ledger`, the ledger these rows were folded beside.
    public func purchase(at position: Int, in ledger: PurchaseLedger) -> Purchase {
        let entry = ledger.purchase(at: position), row = rows[position]
        return Purchase(id: entry.id, item: entry.item, list: entry.list, location: locations.ids[Int(row.location)],
                        effectiveTime: entry.effectiveTime, seq: seq(at: position), isReverted: entry.isReverted)
    }

    /// The whole purchase of an id `ledger` knows; nil for one it does not.
    public func purchase(_ id: PurchaseID, in ledger: PurchaseLedger) -> Purchase? {
        ledger.position(of: id).map { purchase(at: $0, in: ledger) }
    }

    /// Where the purchase at a position was bought.
    func location(at position: Int) -> LocationID { locations.ids[Int(rows[position].location)] }

    /// The `seq` of the purchase at a position.
    func seq(at position: Int) -> Int {
        let row = rows[position]
        return row.seq == .max ? outsizedSeqs[position] ?? Int(row.seq) : Int(row.seq)
    }

    package func encode(to w: inout BinaryWriter) {
        w.array(locations.ids) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * 8)
        for row in rows.chunks.joined() { w.uint32(row.seq); w.uint32(UInt32(bitPattern: row.location)) }
        w.array(outsizedSeqs.sorted { $0.key < $1.key }) { w, entry in w.int(entry.key); w.int(entry.value) }
    }

    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        let ids = try r.array { r throws(BinaryDecodingError) -> LocationID in try r.id() }
        guard let locations = PurchaseLedger.Handles(unique: ids) else { throw BinaryDecodingError("a place has two handles") }
        self.locations = locations
        let count = try r.count(minimumSize: 8)
        var chunks: [[Row]] = []
        var bad = false
        try r.block(count * 8) { raw in
            let chunk = ChunkedArray<Row>.chunkSize
            for first in stride(from: 0, to: count, by: chunk) {
                var values: [Row] = []
                values.reserveCapacity(chunk)   // the last chunk grows in place, as appending fills it
                for at in first..<min(count, first + chunk) {
                    let row = Row(seq: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: at * 8, as: UInt32.self)),
                                  location: Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at * 8 + 4, as: Int32.self)))
                    bad = bad || row.location < 0 || Int(row.location) >= ids.count
                    values.append(row)
                }
                chunks.append(values)
            }
        }
        if bad { throw BinaryDecodingError("a purchase row names a place that does not exist") }
        rows = ChunkedArray(chunks: chunks)
        for (at, seq) in try r.array({ r throws(BinaryDecodingError) in (try r.int(), try r.int()) }) {
            guard at >= 0, at < count, rows[at].seq == .max else { throw BinaryDecodingError("an outsized seq for purchase \(at), which has none") }
            outsizedSeqs[at] = seq
        }
    }

    /// Passes over rows in the snapshot encoding, reading only their sizes.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        _ = try r.skip(try r.count(minimumSize: 16) * 16)   // the places' ids
        _ = try r.skip(try r.count(minimumSize: 8) * 8)
        _ = try r.skip(try r.count(minimumSize: 16) * 16)   // the outsized seqs
    }
}
