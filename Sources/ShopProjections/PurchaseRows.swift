import ShopEvents

/// Where each purchase was bought and its `seq`, beside the state's
/// ``PurchaseLedger`` (which keeps what the rules need: id, item, list, time,
/// reverted) and by the ledger's positions: together they give the whole
/// ``Purchase``. The statistics projection keeps one (``PurchaseStatistics``),
/// and so does whatever else shows a
/// purchase's place or `seq` (a revert in `shop-replay history`). 8 bytes a purchase.
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

    /// By the ledger's position, in chunks of 8,192 (``chunkShift``), each
    /// allocated whole: growing never copies them all, nor holds twice their
    /// size for a moment. (Kept here rather than in a generic type of
    /// ShopEvents, whose calls from this module would not be specialised.)
    private(set) var chunks: [[Row]] = []
    /// How many purchases it holds: as many as the ledger it was folded beside.
    public private(set) var count = 0
    /// The `seq` of a row that does not fit ``Row/seq``, by position.
    var outsizedSeqs: [Int: Int] = [:]
    /// The places by handle, in the order first seen, and the handle of each.
    private(set) var places: [LocationID] = []
    private var handles: [LocationID: Int32] = [:]
    private static var chunkShift: Int { 13 }

    public init() {}

    /// The row at a position.
    func row(at position: Int) -> Row { chunks[position >> Self.chunkShift][position & ((1 << Self.chunkShift) - 1)] }

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
        if !fits { outsizedSeqs[count] = seq }
        let handle: Int32
        if let known = handles[location] {
            handle = known
        } else {
            handle = Int32(places.count)
            places.append(location)
            handles[location] = handle
        }
        if count & ((1 << Self.chunkShift) - 1) == 0 {
            chunks.append([])
            chunks[chunks.count - 1].reserveCapacity(1 << Self.chunkShift)
        }
        chunks[chunks.count - 1].append(Row(seq: fits ? UInt32(seq) : .max, location: handle))
        count += 1
    }

    /// The whole purchase at a position of `ledger`, the ledger these rows were folded beside.
    public func purchase(at position: Int, in ledger: PurchaseLedger) -> Purchase {
        let entry = ledger.purchase(at: position)
        return Purchase(id: entry.id, item: entry.item, list: entry.list, location: location(at: position),
                        effectiveTime: entry.effectiveTime, seq: seq(at: position), isReverted: entry.isReverted)
    }

    /// The whole purchase of an id `ledger` knows; nil for one it does not.
    public func purchase(_ id: PurchaseID, in ledger: PurchaseLedger) -> Purchase? {
        ledger.position(of: id).map { purchase(at: $0, in: ledger) }
    }

    /// Where the purchase at a position was bought.
    func location(at position: Int) -> LocationID { places[Int(row(at: position).location)] }

    /// The `seq` of the purchase at a position.
    func seq(at position: Int) -> Int {
        let row = row(at: position)
        return row.seq == .max ? outsizedSeqs[position] ?? Int(row.seq) : Int(row.seq)
    }

    package func encode(to w: inout BinaryWriter) {
        w.array(places) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * 8)
        for row in chunks.joined() { w.uint32(row.seq); w.uint32(UInt32(bitPattern: row.location)) }
        w.array(outsizedSeqs.sorted { $0.key < $1.key }) { w, entry in w.int(entry.key); w.int(entry.value) }
    }

    /// Reads rows back, checked; a mapped file's pages of them are then let go.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        let start = r.position
        defer { r.letGo(start..<r.position) }
        places = try r.array { r throws(BinaryDecodingError) -> LocationID in try r.id() }
        handles.reserveCapacity(places.count)
        for (handle, place) in places.enumerated() where handles.updateValue(Int32(handle), forKey: place) != nil {
            throw BinaryDecodingError("a place has two handles")
        }
        let count = try r.count(minimumSize: 8)
        let ids = places
        var chunks: [[Row]] = []
        var bad = false
        try r.block(count * 8) { raw in
            let chunk = 1 << Self.chunkShift
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
        (self.chunks, self.count) = (chunks, count)
        for (at, seq) in try r.array({ r throws(BinaryDecodingError) in (try r.int(), try r.int()) }) {
            guard at >= 0, at < count, row(at: at).seq == .max else { throw BinaryDecodingError("an outsized seq for purchase \(at), which has none") }
            outsizedSeqs[at] = seq
        }
    }

    /// Passes over rows in the snapshot encoding, reading only their sizes.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        let start = r.position
        defer { r.letGo(start..<r.position) }
        _ = try r.skip(try r.count(minimumSize: 16) * 16)   // the places' ids
        _ = try r.skip(try r.count(minimumSize: 8) * 8)
        _ = try r.skip(try r.count(minimumSize: 16) * 16)   // the outsized seqs
    }
}
