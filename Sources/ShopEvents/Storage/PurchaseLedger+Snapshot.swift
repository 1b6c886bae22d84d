import Foundation

// The purchase ledger in the snapshot encoding: its arrays as they are, each
// read back with one copy (no id hashed again), every handle, slot and bit
// checked first.

extension PurchaseLedger {
    private static var rowSize: Int { 16 }

    /// Whether a ``Row`` lies in memory as it is stored (little-endian, fields
    /// in order, no padding), so that rows are copied in one go.
    private static let layoutAsStored: Bool = {
        #if _endian(little)
        MemoryLayout<Row>.stride == rowSize && MemoryLayout<Row>.offset(of: \Row.item) == 8 && MemoryLayout<Row>.offset(of: \Row.list) == 12
            && MemoryLayout<PurchaseID>.stride == 16
        #else
        false
        #endif
    }()

    /// The handles' ids, the rows, the ids, the index's buckets and the reverted bits.
    package func encode(to w: inout BinaryWriter) {
        w.array(items.ids) { $0.id($1) }
        w.array(lists.ids) { $0.id($1) }
        w.int(count)
        w.bytes.reserveCapacity(w.bytes.count + count * (Self.rowSize + 16) + slots.count * 4 + reverted.count * 8 + 16)
        for row in rows.chunks.joined() {
            w.int(Int(row.time)); w.uint32(UInt32(bitPattern: row.item)); w.uint32(UInt32(bitPattern: row.list))
        }
        for id in ids.chunks.joined() { w.id(id) }
        w.int(slots.count)
        for slot in slots { w.uint32(UInt32(bitPattern: slot)) }
        for word in reverted { w.int(Int(Int64(bitPattern: word))) }
    }

    /// Reads a ledger back: one copy of each array, checked; a mapped file's
    /// pages of it are then let go (``BinaryReader/letGo(_:)``).
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        self.init()
        let start = r.position
        defer { r.letGo(start..<r.position) }
        try readHandles(&r)
        let count = try r.count(minimumSize: Self.rowSize + 16)
        rows = try Self.copyChunked(&r, count: count, size: Self.rowSize) { raw, at in
            func load<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T { T(littleEndian: raw.loadUnaligned(fromByteOffset: at + offset, as: T.self)) }
            return Row(time: load(0, Int64.self), item: load(8, Int32.self), list: load(12, Int32.self))
        }
        let (itemCount, listCount) = (Int32(items.ids.count), Int32(lists.ids.count))
        for (at, row) in rows.chunks.joined().enumerated() where !(row.item >= 0 && row.item < itemCount && row.list >= -1 && row.list < listCount) {
            throw BinaryDecodingError("purchase row \(at) names a handle that does not exist")
        }
        ids = try Self.copyChunked(&r, count: count, size: 16) { raw, at in
            PurchaseID(UUID(uuid: raw.loadUnaligned(fromByteOffset: at, as: uuid_t.self)))
        }
        try readSlots(&r)
        reverted = try Self.copy(&r, count: (count + 63) / 64, size: 8) { raw, at in
            UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self))
        }
        if count & 63 != 0, let last = reverted.last, last >> UInt64(count & 63) != 0 {
            throw BinaryDecodingError("a reverted bit past the last purchase")
        }
    }

    private mutating func readHandles(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        func ids<Kind>(_ r: inout BinaryReader) throws(BinaryDecodingError) -> Handles<Kind> {
            let ids = try r.array { r throws(BinaryDecodingError) -> EntityID<Kind> in try r.id() }
            guard let handles = Handles(unique: ids) else { throw BinaryDecodingError("an id has two handles") }
            return handles
        }
        items = try ids(&r)
        lists = try ids(&r)
    }

    /// The index's buckets: as many as ``capacity(for:)`` gives, each empty or
    /// a position, every position in exactly one.
    private mutating func readSlots(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        let capacity = try r.count(minimumSize: 4)
        guard capacity == Self.capacity(for: count) else {
            throw BinaryDecodingError("an index of \(count) purchases has \(Self.capacity(for: count)) buckets, not \(capacity)")
        }
        slots = try Self.copy(&r, count: capacity, size: 4) { raw, at in
            Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self))
        }
        var seen = [Bool](repeating: false, count: count), filled = 0
        for slot in slots where slot != -1 {
            guard slot >= 0, Int(slot) < count, !seen[Int(slot)] else { throw BinaryDecodingError("a bucket names purchase \(slot) of \(count), or again") }
            seen[Int(slot)] = true
            filled += 1
        }
        guard filled == count else { throw BinaryDecodingError("the index holds \(filled) purchases, not \(count)") }
    }

    /// `count` records of `size` bytes from `r`, in one array.
    private static func copy<T>(_ r: inout BinaryReader, count: Int, size: Int,
                                _ one: (UnsafeRawBufferPointer, Int) -> T) throws(BinaryDecodingError) -> [T] {
        var values: [T] = []
        try r.block(count * size) { raw in values = copy(raw, count: count, size: size, one) }
        return values
    }

    /// `count` records of `size` bytes from `r`, in chunks as ``ChunkedArray`` holds them.
    private static func copyChunked<T>(_ r: inout BinaryReader, count: Int, size: Int,
                                       _ one: (UnsafeRawBufferPointer, Int) -> T) throws(BinaryDecodingError) -> ChunkedArray<T> {
        var chunks: [[T]] = []
        try r.block(count * size) { raw in
            let chunk = ChunkedArray<T>.chunkSize
            chunks.reserveCapacity((count + chunk - 1) / chunk)
            for first in stride(from: 0, to: count, by: chunk) {
                let n = min(chunk, count - first)
                var values = copy(UnsafeRawBufferPointer(rebasing: raw[(first * size)..<((first + n) * size)]), count: n, size: size, one)
                values.reserveCapacity(chunk)   // the last chunk grows in place, as appending fills it
                chunks.append(values)
            }
        }
        return ChunkedArray(chunks: chunks)
    }

    /// `count` records of `size` bytes: copied as they are where the element
    /// lies in memory as stored, else one by one.
    private static func copy<T>(_ raw: UnsafeRawBufferPointer, count: Int, size: Int, _ one: (UnsafeRawBufferPointer, Int) -> T) -> [T] {
        guard layoutAsStored, MemoryLayout<T>.stride == size else { return (0..<count).map { one(raw, $0 * size) } }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0 { UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw) }
            initialized = count
        }
    }

    /// Passes over a ledger in the snapshot encoding, reading only its sizes.
    package static func skip(_ r: inout BinaryReader) throws(BinaryDecodingError) {
        let start = r.position
        defer { r.letGo(start..<r.position) }
        for _ in 0..<2 { _ = try r.skip(try r.count(minimumSize: 16) * 16) }   // the handles' ids
        let count = try r.count(minimumSize: rowSize + 16)
        _ = try r.skip(count * rowSize)
        _ = try r.skip(count * 16)
        _ = try r.skip(try r.count(minimumSize: 4) * 4)
        _ = try r.skip((count + 63) / 64 * 8)
    }
}
