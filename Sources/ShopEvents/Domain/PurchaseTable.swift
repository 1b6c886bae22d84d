import Foundation

/// Every purchase of a household, kept compactly: an index from purchase id to
/// a row, and rows of fixed size in chunks (no copy of the whole table as it
/// grows). In journal order; a purchase id is never reused.
///
/// A household that has kept years of history holds hundreds of thousands of
/// purchases; each costs about 60 bytes here (it was about 390 as a dictionary
/// of full purchase values): a row names its item, location and list by small
/// integer handles, and the index is an open-addressing table of positions
/// whose layout depends only on the ids, so a snapshot stores it as it is and
/// reads it back without hashing anything.
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct PurchaseTable: Hashable, Sendable {
    private struct Row: Hashable, Sendable {
        var time: Int64
        var seq: Int64
        var item: Int32
        var location: Int32
        /// -1 for a purchase off any list.
        var list: Int32
        var isReverted: Bool
    }

    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }
    /// Positions in journal order by bucket; -1 where a bucket is empty. A
    /// power of two long, at most three quarters full.
    private var slots: [Int32] = []
    private var ids: [[PurchaseID]] = []
    private var rows: [[Row]] = []
    private var items = Handles<ItemKind>()
    private var locations = Handles<LocationKind>()
    private var lists = Handles<ListKind>()
    /// How many purchases were ever recorded, reverted ones included.
    public private(set) var count = 0

    public init() {}

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = position(of: id) else { return nil }
        return purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> { (0..<count).lazy.map { purchase(at: $0) } }

    /// Where a purchase stands in journal order (0 for the first).
    package func position(of id: PurchaseID) -> Int? {
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var bucket = Self.bucket(of: id, mask: mask)
        while true {
            let at = Int(slots[bucket])
            if at < 0 { return nil }
            if ids[at >> Self.chunkShift][at & (Self.chunkSize - 1)] == id { return at }
            bucket = (bucket + 1) & mask
        }
    }

    /// The purchase at a position in journal order.
    package func purchase(at position: Int) -> Purchase {
        let (chunk, slot) = (position >> Self.chunkShift, position & (Self.chunkSize - 1))
        let row = rows[chunk][slot]
        return Purchase(id: ids[chunk][slot], item: items.ids[Int(row.item)], list: row.list < 0 ? nil : lists.ids[Int(row.list)],
                        location: locations.ids[Int(row.location)], effectiveTime: Timestamp(millisecondsSince1970: row.time),
                        seq: Int(row.seq), isReverted: row.isReverted)
    }

    /// Makes room for `count` purchases in all, so that adding them does not grow the index step by step.
    mutating func reserveCapacity(_ count: Int) {
        if count * 4 > slots.count * 3 { rehash(capacity: Self.capacity(for: count)) }
    }

    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    mutating func insert(_ purchase: Purchase) {
        guard position(of: purchase.id) == nil else { return }
        precondition(count < Int(Int32.max), "more purchases than a table holds")
        reserveCapacity(count + 1)
        if count & (Self.chunkSize - 1) == 0 {
            ids.append([])
            ids[ids.count - 1].reserveCapacity(Self.chunkSize)
            rows.append([])
            rows[rows.count - 1].reserveCapacity(Self.chunkSize)
        }
        place(purchase.id, at: Int32(count))
        ids[ids.count - 1].append(purchase.id)
        rows[rows.count - 1].append(Row(time: purchase.effectiveTime.millisecondsSince1970, seq: Int64(purchase.seq),
                                        item: items.handle(purchase.item), location: locations.handle(purchase.location),
                                        list: purchase.list.map { lists.handle($0) } ?? -1, isReverted: purchase.isReverted))
        count += 1
    }

    mutating func markReverted(_ id: PurchaseID) {
        guard let at = position(of: id) else { return }
        rows[at >> Self.chunkShift][at & (Self.chunkSize - 1)].isReverted = true
    }

    public static func == (a: PurchaseTable, b: PurchaseTable) -> Bool {
        guard a.count == b.count, a.ids == b.ids else { return false }
        if a.items.ids == b.items.ids, a.locations.ids == b.locations.ids, a.lists.ids == b.lists.ids { return a.rows == b.rows }
        return a.values.elementsEqual(b.values)
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(ids) }

    // MARK: The index

    private static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        return capacity
    }

    /// A fixed function of the id's bytes (not the process's seeded hash), so
    /// the index is the same in every process and can be stored.
    private static func bucket(of id: PurchaseID, mask: Int) -> Int {
        let (a, b) = id.words
        var h = UInt64(littleEndian: a) ^ (UInt64(littleEndian: b) &* 0x9E37_79B9_7F4A_7C15)
        h ^= h >> 31
        h = h &* 0xBF58_476D_1CE4_E5B9
        h ^= h >> 29
        return Int(truncatingIfNeeded: h) & mask
    }

    private mutating func place(_ id: PurchaseID, at position: Int32) {
        let mask = slots.count - 1
        var bucket = Self.bucket(of: id, mask: mask)
        while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
        slots[bucket] = position
    }

    private mutating func rehash(capacity: Int) {
        slots = [Int32](repeating: -1, count: capacity)
        for position in 0..<count { place(ids[position >> Self.chunkShift][position & (Self.chunkSize - 1)], at: Int32(position)) }
    }

    /// Ids of one kind in the order first seen, and the handle of each.
    private struct Handles<Kind: EntityKind>: Hashable, Sendable {
        var ids: [EntityID<Kind>] = []
        var handles: [EntityID<Kind>: Int32] = [:]

        mutating func handle(_ id: EntityID<Kind>) -> Int32 {
            if let known = handles[id] { return known }
            let new = Int32(ids.count)
            ids.append(id)
            handles[id] = new
            return new
        }

        init() {}

        init(_ ids: [EntityID<Kind>]) throws(BinaryDecodingError) {
            self.ids = ids
            handles.reserveCapacity(ids.count)
            for (handle, id) in ids.enumerated() where handles.updateValue(Int32(handle), forKey: id) != nil {
                throw BinaryDecodingError("id \(id) has two handles")
            }
        }
    }
}

// MARK: The snapshot encoding

extension PurchaseTable {
    private static var rowSize: Int { 32 }

    /// The table as it is: the handles' ids, then the rows and ids as fixed-size
    /// records, then the index's buckets; reading it back hashes nothing.
    package func encode(to w: inout BinaryWriter) {
        w.array(items.ids) { $0.id($1) }
        w.array(locations.ids) { $0.id($1) }
        w.array(lists.ids) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * (Self.rowSize + 16) + slots.count * 4 + 8)
        for chunk in rows {
            for row in chunk {
                w.int(Int(row.time)); w.int(Int(row.seq))
                w.uint32(UInt32(bitPattern: row.item)); w.uint32(UInt32(bitPattern: row.location)); w.uint32(UInt32(bitPattern: row.list))
                w.uint32(row.isReverted ? 1 : 0)
            }
        }
        for chunk in ids { for id in chunk { w.id(id) } }
        w.int(slots.count)
        for slot in slots { w.uint32(UInt32(bitPattern: slot)) }
    }

    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        items = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        locations = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        lists = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        count = try r.count(minimumSize: Self.rowSize + 16)
        let (itemCount, locationCount, listCount) = (Int32(items.ids.count), Int32(locations.ids.count), Int32(lists.ids.count))
        var bad: String?
        try r.block(count * Self.rowSize) { raw in
            var offset = 0
            for start in stride(from: 0, to: count, by: Self.chunkSize) {
                var chunk: [Row] = []
                chunk.reserveCapacity(Self.chunkSize)
                for _ in start..<min(start + Self.chunkSize, count) {
                    func load<T: FixedWidthInteger>(_ at: Int, _: T.Type) -> T { T(littleEndian: raw.loadUnaligned(fromByteOffset: offset + at, as: T.self)) }
                    let row = Row(time: load(0, Int64.self), seq: load(8, Int64.self), item: load(16, Int32.self),
                                  location: load(20, Int32.self), list: load(24, Int32.self), isReverted: load(28, UInt32.self) == 1)
                    if !(0..<itemCount).contains(row.item) || !(0..<locationCount).contains(row.location)
                        || !(-1..<listCount).contains(row.list) || load(28, UInt32.self) > 1 {
                        bad = bad ?? "purchase row \(chunk.count + start) names a handle or flag that does not exist"
                    }
                    chunk.append(row)
                    offset += Self.rowSize
                }
                rows.append(chunk)
            }
        }
        if let bad { throw BinaryDecodingError(bad) }
        try r.block(count * 16) { raw in
            for start in stride(from: 0, to: count, by: Self.chunkSize) {
                var chunk: [PurchaseID] = []
                chunk.reserveCapacity(Self.chunkSize)
                for at in start..<min(start + Self.chunkSize, count) {
                    chunk.append(PurchaseID(UUID(uuid: raw.loadUnaligned(fromByteOffset: at * 16, as: uuid_t.self))))
                }
                ids.append(chunk)
            }
        }
        let capacity = try r.count(minimumSize: 4)
        guard capacity == 0 ? count == 0 : capacity >= 16 && capacity & (capacity - 1) == 0 && count * 4 <= capacity * 3 else {
            throw BinaryDecodingError("an index of \(capacity) buckets cannot hold \(count) purchases")
        }
        var filled = 0
        try r.block(capacity * 4) { raw in
            slots = [Int32](unsafeUninitializedCapacity: capacity) { buffer, initialized in
                for bucket in 0..<capacity {
                    let at = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: bucket * 4, as: Int32.self))
                    buffer[bucket] = at
                    if at >= 0 { filled += 1 }
                    if at >= Int32(count) { bad = bad ?? "bucket \(bucket) names purchase \(at) of \(count)" }
                }
                initialized = capacity
            }
        }
        if let bad { throw BinaryDecodingError(bad) }
        guard filled == count else { throw BinaryDecodingError("the index holds \(filled) purchases, not \(count)") }
    }
}
