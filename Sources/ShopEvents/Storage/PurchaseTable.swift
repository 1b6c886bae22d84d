import Foundation

/// Every purchase of a household, kept compactly: an index from purchase id to
/// a row, and rows of fixed size in chunks (no copy of the whole table as it
/// grows). In journal order; a purchase id is never reused.
///
/// A household that has kept years of history holds hundreds of thousands of
/// purchases; each costs about 50 bytes here (it was about 390 as a dictionary
/// of full purchase values): a row names its item, location and list by small
/// integer handles, and the index is an open-addressing table of positions
/// whose layout depends only on the ids. A snapshot stores rows, ids and index
/// as they are, and a table read from one uses them where they lie in the
/// mapped file: opening copies and hashes nothing, and only purchases added
/// (or reverted) since take memory of their own.
///
/// The journal and the views fold with it (the domain's ``ShopState/initial``
/// keeps a plain ``PurchaseList``):
///
/// ```swift
/// let state = ShopState.compact
/// print(state.purchases.storage is PurchaseTable, state.purchases.count)   // true 0
/// ```
public struct PurchaseTable: PurchaseStorage, Hashable {
    fileprivate struct Row: Hashable, Sendable {
        var time: Int64
        var seq: Int64
        var item: Int32
        var location: Int32
        /// -1 for a purchase off any list.
        var list: Int32
        var isReverted: Bool
    }

    /// A row added since the snapshot, in 24 bytes: the time shifted left one
    /// bit with the revert flag in the bit freed, `seq` in 32 bits. A row
    /// whose time or `seq` does not fit (a time beyond ±73 million years, a
    /// journal past four billion events) has `seq` `UInt32.max` and its two
    /// numbers in `outsized`, by position.
    fileprivate struct PackedRow: Hashable, Sendable {
        var timeAndFlag: Int64
        var seq: UInt32
        var item: Int32
        var location: Int32
        var list: Int32

        var isReverted: Bool {
            get { timeAndFlag & 1 == 1 }
            set { timeAndFlag = (timeAndFlag & ~1) | (newValue ? 1 : 0) }
        }
    }

    private static var chunkShift: Int { 12 }
    private static var chunkSize: Int { 1 << chunkShift }
    /// The purchase ids in journal order and the index that finds them.
    private var index = IDIndex<PurchaseKind>()
    /// The rows a snapshot held (positions `0..<stored.count`, ``rowSize`` bytes each), read in place.
    private var stored: MappedRecords?
    private static var rowSize: Int { 32 }
    /// Those of them reverted since the snapshot.
    private var storedReverts: Set<Int32> = []
    /// The rows added since.
    private var rows: [[PackedRow]] = []
    /// Time and `seq` of the rare row added since whose numbers do not fit ``PackedRow``, by position.
    private var outsized: [Int: (time: Int64, seq: Int64)] = [:]
    private var items = Handles<ItemKind>()
    private var locations = Handles<LocationKind>()
    private var lists = Handles<ListKind>()

    public init() {}

    /// How many purchases were ever recorded, reverted ones included.
    public var count: Int { index.count }

    private var storedCount: Int { stored?.count ?? 0 }

    public subscript(id: PurchaseID) -> Purchase? {
        guard let at = position(of: id) else { return nil }
        return purchase(at: at)
    }

    /// Every purchase, in journal order.
    public var values: LazyMapSequence<Range<Int>, Purchase> { (0..<count).lazy.map { purchase(at: $0) } }

    /// Where a purchase stands in journal order (0 for the first).
    public func position(of id: PurchaseID) -> Int? { index.position(of: id) }

    /// The purchase at a position in journal order.
    public func purchase(at position: Int) -> Purchase {
        let row = row(at: position)
        return Purchase(id: index[position], item: items.ids[Int(row.item)], list: row.list < 0 ? nil : lists.ids[Int(row.list)],
                        location: locations.ids[Int(row.location)], effectiveTime: Timestamp(millisecondsSince1970: row.time),
                        seq: Int(row.seq), isReverted: row.isReverted)
    }

    private func row(at position: Int) -> Row {
        if let stored, position < stored.count {
            var row = Row(time: stored.load(position, 0), seq: stored.load(position, 8), item: stored.load(position, 16),
                          location: stored.load(position, 20), list: stored.load(position, 24),
                          isReverted: stored.load(position, 28, as: UInt32.self) == 1)
            if !storedReverts.isEmpty, storedReverts.contains(Int32(position)) { row.isReverted = true }
            return row
        }
        let local = position - storedCount
        let packed = rows[local >> Self.chunkShift][local & (Self.chunkSize - 1)]
        var time = packed.timeAndFlag >> 1, seq = Int64(packed.seq)
        if packed.seq == .max, let whole = outsized[position] { (time, seq) = whole }
        return Row(time: time, seq: seq, item: packed.item, location: packed.location, list: packed.list, isReverted: packed.isReverted)
    }

    /// Adds a purchase; one whose id is known already replaces nothing (ids are never reused).
    public mutating func insert(_ purchase: Purchase) {
        let (inserted, at) = index.insert(purchase.id)
        guard inserted else { return }
        let local = at - storedCount
        if local & (Self.chunkSize - 1) == 0 {
            rows.append([])
            rows[rows.count - 1].reserveCapacity(Self.chunkSize)
        }
        let time = purchase.effectiveTime.millisecondsSince1970
        var packed = PackedRow(timeAndFlag: time &<< 1, seq: UInt32(truncatingIfNeeded: purchase.seq),
                               item: items.handle(purchase.item), location: locations.handle(purchase.location),
                               list: purchase.list.map { lists.handle($0) } ?? -1)
        if packed.timeAndFlag >> 1 != time || purchase.seq < 0 || purchase.seq >= Int(UInt32.max) {
            (packed.timeAndFlag, packed.seq) = (0, .max)
            outsized[at] = (time, Int64(purchase.seq))
        }
        packed.isReverted = purchase.isReverted
        rows[rows.count - 1].append(packed)
    }

    public mutating func markReverted(_ id: PurchaseID) {
        guard let at = position(of: id) else { return }
        if at < storedCount {
            storedReverts.insert(Int32(at))
        } else {
            let local = at - storedCount
            rows[local >> Self.chunkShift][local & (Self.chunkSize - 1)].isReverted = true
        }
    }

    public func emptied() -> any PurchaseStorage { PurchaseTable() }

    public func quicklyEquals(_ other: any PurchaseStorage) -> Bool? {
        (other as? PurchaseTable).map { $0 == self }
    }

    public static func == (a: PurchaseTable, b: PurchaseTable) -> Bool {
        guard a.count == b.count else { return false }
        if a.stored === b.stored, a.storedReverts == b.storedReverts, a.index == b.index,
           a.items.ids == b.items.ids, a.locations.ids == b.locations.ids, a.lists.ids == b.lists.ids {
            return a.rows == b.rows && a.outsized.count == b.outsized.count
                && a.outsized.allSatisfy { entry in b.outsized[entry.key].map { $0 == entry.value } ?? false }
        }
        return a.values.elementsEqual(b.values)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        if count > 0 { hasher.combine(index[count - 1]) }
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

extension ShopState {
    /// The state before the first event, keeping its purchases in a ``PurchaseTable``.
    public static var compact: ShopState { .initial(keepingPurchasesIn: PurchaseTable()) }
}

// MARK: The snapshot encoding

extension PurchaseTable {
    /// The table as a fresh fold would hold it: the handles' ids, then the
    /// rows as fixed-size records, then the ids and their index
    /// (``IDIndex/encode(to:)``).
    package func encode(to w: inout BinaryWriter) {
        w.array(items.ids) { $0.id($1) }
        w.array(locations.ids) { $0.id($1) }
        w.array(lists.ids) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * Self.rowSize)
        for position in 0..<count {
            let row = row(at: position)
            w.int(Int(row.time)); w.int(Int(row.seq))
            w.uint32(UInt32(bitPattern: row.item)); w.uint32(UInt32(bitPattern: row.location)); w.uint32(UInt32(bitPattern: row.list))
            w.uint32(row.isReverted ? 1 : 0)
        }
        index.encode(to: &w)
    }

    /// Reads a table back, using its rows, ids and index where they lie in
    /// `r`'s bytes; every handle, flag and bucket is checked first.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        items = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        locations = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        lists = try Handles(try r.array { r throws(BinaryDecodingError) in try r.id() })
        let count = try r.count(minimumSize: Self.rowSize + 16)
        let rowsAt = try r.skip(count * Self.rowSize)
        let raw = r.all
        func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T { T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self)) }
        let (itemCount, locationCount, listCount) = (Int32(items.ids.count), Int32(locations.ids.count), Int32(lists.ids.count))
        for at in 0..<count {
            let o = rowsAt + at * Self.rowSize
            let (item, location, list, flag) = (load(o + 16, Int32.self), load(o + 20, Int32.self), load(o + 24, Int32.self), load(o + 28, UInt32.self))
            guard item >= 0, item < itemCount, location >= 0, location < locationCount, list >= -1, list < listCount, flag <= 1 else {
                throw BinaryDecodingError("purchase row \(at) names a handle or flag that does not exist")
            }
        }
        index = try IDIndex(from: &r)
        guard index.count == count else { throw BinaryDecodingError("\(index.count) purchase ids for \(count) rows") }
        if count > 0 { stored = MappedRecords(r, at: rowsAt, count: count, size: Self.rowSize) }
    }

    /// Passes over a table in the snapshot encoding, reading only its sizes.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        for _ in 0..<3 { _ = try r.skip(try r.count(minimumSize: 16) * 16) }   // the handles' ids
        let count = try r.count(minimumSize: rowSize + 16)
        _ = try r.skip(count * rowSize)
        let ids = try IDIndex<PurchaseKind>.skip(&r)
        guard ids == count else { throw BinaryDecodingError("\(ids) purchase ids for \(count) rows") }
    }
}
