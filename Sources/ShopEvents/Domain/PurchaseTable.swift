import Foundation

/// Every purchase of a household, kept compactly: an index from purchase id to
/// a row, and rows of fixed size in chunks (no copy of the whole table as it
/// grows). In journal order; a purchase id is never reused.
///
/// A household that has kept years of history holds hundreds of thousands of
/// purchases; each costs about 60 bytes here (it was about 390 as a dictionary
/// of full purchase values): a row names its item, location and list by small
/// integer handles, and the index is an open-addressing table of positions
/// whose layout depends only on the ids. A snapshot stores rows, ids and index
/// as they are, and a table read from one uses them where they lie in the
/// mapped file: opening copies and hashes nothing, and only purchases added
/// (or reverted) since take memory of their own.
///
/// ```swift
/// let state = ShopState.initial
/// if let bought = state.purchases[PurchaseID()], !bought.isReverted { print(bought.effectiveTime) }
/// print(state.purchases.count, state.purchases.values.filter(\.isReverted).count)
/// ```
public struct PurchaseTable: Hashable, Sendable {
    fileprivate struct Row: Hashable, Sendable {
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
    /// The purchases a snapshot held (positions `0..<stored.count`), read in place.
    private var stored: Stored?
    /// Those of them reverted since the snapshot.
    private var storedReverts: Set<Int32> = []
    /// The index of the purchases added since: positions by bucket, -1 where a
    /// bucket is empty; a power of two long, at most three quarters full.
    private var slots: [Int32] = []
    private var ids: [[PurchaseID]] = []
    private var rows: [[Row]] = []
    private var items = Handles<ItemKind>()
    private var locations = Handles<LocationKind>()
    private var lists = Handles<ListKind>()
    /// How many purchases were ever recorded, reverted ones included.
    public private(set) var count = 0

    public init() {}

    private var storedCount: Int { stored?.count ?? 0 }

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = position(of: id) else { return nil }
        return purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> { (0..<count).lazy.map { purchase(at: $0) } }

    /// Where a purchase stands in journal order (0 for the first).
    package func position(of id: PurchaseID) -> Int? {
        if let stored, let at = stored.position(of: id) { return at }
        guard !slots.isEmpty else { return nil }
        let mask = slots.count - 1
        var bucket = Self.bucket(of: id, mask: mask)
        while true {
            let at = Int(slots[bucket])
            if at < 0 { return nil }
            if ownID(at) == id { return at }
            bucket = (bucket + 1) & mask
        }
    }

    /// The purchase at a position in journal order.
    package func purchase(at position: Int) -> Purchase {
        let (id, row) = entry(at: position)
        return Purchase(id: id, item: items.ids[Int(row.item)], list: row.list < 0 ? nil : lists.ids[Int(row.list)],
                        location: locations.ids[Int(row.location)], effectiveTime: Timestamp(millisecondsSince1970: row.time),
                        seq: Int(row.seq), isReverted: row.isReverted)
    }

    private func entry(at position: Int) -> (PurchaseID, Row) {
        if let stored, position < stored.count {
            var row = stored.row(position)
            if !storedReverts.isEmpty, storedReverts.contains(Int32(position)) { row.isReverted = true }
            return (stored.id(position), row)
        }
        let local = position - storedCount
        return (ids[local >> Self.chunkShift][local & (Self.chunkSize - 1)], rows[local >> Self.chunkShift][local & (Self.chunkSize - 1)])
    }

    private func ownID(_ position: Int) -> PurchaseID {
        let local = position - storedCount
        return ids[local >> Self.chunkShift][local & (Self.chunkSize - 1)]
    }

    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    mutating func insert(_ purchase: Purchase) {
        guard position(of: purchase.id) == nil else { return }
        precondition(count < Int(Int32.max), "more purchases than a table holds")
        let local = count - storedCount
        if (local + 1) * 4 > slots.count * 3 { rehash(capacity: Self.capacity(for: local + 1)) }
        if local & (Self.chunkSize - 1) == 0 {
            ids.append([])
            ids[ids.count - 1].reserveCapacity(Self.chunkSize)
            rows.append([])
            rows[rows.count - 1].reserveCapacity(Self.chunkSize)
        }
        Self.place(purchase.id, at: Int32(count), in: &slots)
        ids[ids.count - 1].append(purchase.id)
        rows[rows.count - 1].append(Row(time: purchase.effectiveTime.millisecondsSince1970, seq: Int64(purchase.seq),
                                        item: items.handle(purchase.item), location: locations.handle(purchase.location),
                                        list: purchase.list.map { lists.handle($0) } ?? -1, isReverted: purchase.isReverted))
        count += 1
    }

    mutating func markReverted(_ id: PurchaseID) {
        guard let at = position(of: id) else { return }
        if at < storedCount {
            storedReverts.insert(Int32(at))
        } else {
            let local = at - storedCount
            rows[local >> Self.chunkShift][local & (Self.chunkSize - 1)].isReverted = true
        }
    }

    public static func == (a: PurchaseTable, b: PurchaseTable) -> Bool {
        guard a.count == b.count else { return false }
        if a.stored === b.stored, a.storedReverts == b.storedReverts, a.ids == b.ids,
           a.items.ids == b.items.ids, a.locations.ids == b.locations.ids, a.lists.ids == b.lists.ids {
            return a.rows == b.rows
        }
        return a.values.elementsEqual(b.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if count > 0 { hasher.combine(entry(at: count - 1).0) }
    }

    // MARK: The index

    private static func capacity(for count: Int) -> Int {
        var capacity = 16
        while capacity * 3 < count * 4 { capacity <<= 1 }
        return capacity
    }

    /// ``EntityID/fixedHash``, not the process's seeded hash: the index is the
    /// same in every process and can be stored.
    fileprivate static func bucket(of id: PurchaseID, mask: Int) -> Int { id.fixedHash & mask }

    private static func place(_ id: PurchaseID, at position: Int32, in slots: inout [Int32]) {
        let mask = slots.count - 1
        var bucket = bucket(of: id, mask: mask)
        while slots[bucket] >= 0 { bucket = (bucket + 1) & mask }
        slots[bucket] = position
    }

    private mutating func rehash(capacity: Int) {
        var new = [Int32](repeating: -1, count: capacity)
        for position in storedCount..<count { Self.place(ownID(position), at: Int32(position), in: &new) }
        slots = new
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

/// The purchases of a snapshot where they lie in its bytes (mapped read-only,
/// never changed while mapped): fixed-size rows, ids and the index's buckets.
private final class Stored: @unchecked Sendable {
    static let rowSize = 32
    private let bytes: BinaryReader   // keeps the mapping
    private let base: UnsafeRawPointer
    let count: Int
    private let rows: Int, ids: Int, slots: Int, mask: Int

    init(_ bytes: BinaryReader, count: Int, rows: Int, ids: Int, slots: Int, capacity: Int) {
        self.bytes = bytes
        base = bytes.all.baseAddress!
        (self.count, self.rows, self.ids, self.slots, mask) = (count, rows, ids, slots, capacity - 1)
    }

    private func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T { T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self)) }

    func row(_ at: Int) -> PurchaseTable.Row {
        let o = rows + at * Self.rowSize
        return PurchaseTable.Row(time: load(o, Int64.self), seq: load(o + 8, Int64.self), item: load(o + 16, Int32.self),
                                 location: load(o + 20, Int32.self), list: load(o + 24, Int32.self), isReverted: load(o + 28, UInt32.self) == 1)
    }

    func id(_ at: Int) -> PurchaseID { PurchaseID(UUID(uuid: base.loadUnaligned(fromByteOffset: ids + at * 16, as: uuid_t.self))) }

    func slot(_ bucket: Int) -> Int32 { load(slots + bucket * 4, Int32.self) }

    var capacity: Int { mask + 1 }

    func position(of id: PurchaseID) -> Int? {
        let (a, b) = id.words
        var bucket = PurchaseTable.bucket(of: id, mask: mask)
        while true {
            let at = Int(slot(bucket))
            if at < 0 { return nil }
            let o = ids + at * 16
            if base.loadUnaligned(fromByteOffset: o, as: UInt64.self) == a, base.loadUnaligned(fromByteOffset: o + 8, as: UInt64.self) == b { return at }
            bucket = (bucket + 1) & mask
        }
    }
}

extension PurchaseTable {
    /// The table as a fresh fold would hold it: the handles' ids, then the rows
    /// and ids as fixed-size records, then the index's buckets for them all.
    package func encode(to w: inout BinaryWriter) {
        w.array(items.ids) { $0.id($1) }
        w.array(locations.ids) { $0.id($1) }
        w.array(lists.ids) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * (Stored.rowSize + 16) + Self.capacity(for: count) * 4 + 8)
        for position in 0..<count {
            let row = entry(at: position).1
            w.int(Int(row.time)); w.int(Int(row.seq))
            w.uint32(UInt32(bitPattern: row.item)); w.uint32(UInt32(bitPattern: row.location)); w.uint32(UInt32(bitPattern: row.list))
            w.uint32(row.isReverted ? 1 : 0)
        }
        for position in 0..<count { w.id(entry(at: position).0) }
        // A fold grows the index to capacity(for: count) and places positions in order: the same layout.
        if let stored, stored.count == count, stored.capacity == Self.capacity(for: count) {
            w.int(stored.capacity)
            for bucket in 0..<stored.capacity { w.uint32(UInt32(bitPattern: stored.slot(bucket))) }
        } else if count > 0 {
            var all = [Int32](repeating: -1, count: Self.capacity(for: count))
            for position in 0..<count { Self.place(entry(at: position).0, at: Int32(position), in: &all) }
            w.int(all.count)
            for slot in all { w.uint32(UInt32(bitPattern: slot)) }
        } else {
            w.int(0)
        }
    }

    /// Reads a table back, using its rows, ids and index where they lie in
    /// `r`'s bytes; every handle, flag and bucket is checked first.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        items = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        locations = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        lists = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        count = try r.count(minimumSize: Stored.rowSize + 16)
        let rowsAt = try r.skip(count * Stored.rowSize), idsAt = try r.skip(count * 16)
        let capacity = try r.count(minimumSize: 4)
        guard capacity == 0 ? count == 0 : capacity >= 16 && capacity & (capacity - 1) == 0 && count * 4 <= capacity * 3 else {
            throw BinaryDecodingError("an index of \(capacity) buckets cannot hold \(count) purchases")
        }
        let slotsAt = try r.skip(capacity * 4)
        guard count > 0 else { return }
        let raw = r.all
        func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T { T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        let (itemCount, locationCount, listCount) = (Int32(items.ids.count), Int32(locations.ids.count), Int32(lists.ids.count))
        for at in 0..<count {
            let o = rowsAt + at * Stored.rowSize
            let (item, location, list, flag) = (load(o + 16, Int32.self), load(o + 20, Int32.self), load(o + 24, Int32.self), load(o + 28, UInt32.self))
            guard item >= 0, item < itemCount, location >= 0, location < locationCount, list >= -1, list < listCount, flag <= 1 else {
                throw BinaryDecodingError("purchase row \(at) names a handle or flag that does not exist")
            }
        }
        var filled = 0
        for bucket in 0..<capacity {
            let at = load(slotsAt + bucket * 4, Int32.self)
            guard at < Int32(count) else { throw BinaryDecodingError("bucket \(bucket) names purchase \(at) of \(count)") }
            if at >= 0 { filled += 1 }
        }
        guard filled == count else { throw BinaryDecodingError("the index holds \(filled) purchases, not \(count)") }
        stored = Stored(r, count: count, rows: rowsAt, ids: idsAt, slots: slotsAt, capacity: capacity)
    }
}
