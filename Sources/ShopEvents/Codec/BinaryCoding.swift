import Foundation

/// A compact little-endian binary encoding for snapshots of state and views.
/// Not a public format: a snapshot is a cache that is checked and thrown away
/// whenever anything about it is doubtful.
package struct BinaryWriter {
    package var bytes: [UInt8] = []

    package init() {}

    package mutating func int(_ value: Int) { withUnsafeBytes(of: Int64(value).littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func uint32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func bool(_ value: Bool) { bytes.append(value ? 1 : 0) }
    package mutating func double(_ value: Double) { withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) } }
    package mutating func string(_ value: String) {
        int(value.utf8.count)
        bytes.append(contentsOf: value.utf8)
    }
    package mutating func uuid(_ value: UUID) { withUnsafeBytes(of: value.uuid) { bytes.append(contentsOf: $0) } }
    package mutating func id<Kind>(_ value: EntityID<Kind>) { uuid(value.uuid) }
    package mutating func timestamp(_ value: Timestamp) { int(Int(value.millisecondsSince1970)) }
    package mutating func digest(_ value: SHA256Digest) { for word in value.array { uint32(word) } }
    package mutating func color(_ value: Color) {
        double(value.red); double(value.green); double(value.blue); double(value.opacity)
    }

    package mutating func optional<T>(_ value: T?, _ write: (inout BinaryWriter, T) -> Void) {
        bool(value != nil)
        if let value { write(&self, value) }
    }

    package mutating func array<T>(_ values: [T], _ write: (inout BinaryWriter, T) -> Void) {
        int(values.count)
        for value in values { write(&self, value) }
    }
}

/// Why snapshot bytes could not be read back.
package struct BinaryDecodingError: Error, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

package struct BinaryReader {
    /// The bytes read: an array's, or a file's mapped read-only.
    private final class Bytes {
        let base: UnsafeRawPointer
        let count: Int
        /// Whether the bytes are a file's, mapped.
        let isMapped: Bool
        private let release: () -> Void

        init(_ array: [UInt8]) {
            let copy = UnsafeMutableRawPointer.allocate(byteCount: max(array.count, 1), alignment: 16)
            array.withUnsafeBytes { if let source = $0.baseAddress { copy.copyMemory(from: source, byteCount: $0.count) } }
            (base, count, isMapped, release) = (UnsafeRawPointer(copy), array.count, false, { copy.deallocate() })
        }

        init(mapped base: UnsafeRawPointer, count: Int) {
            (self.base, self.count, isMapped, release) = (base, count, true, { _ = munmap(UnsafeMutableRawPointer(mutating: base), count) })
        }

        deinit { release() }
    }

    private let bytes: Bytes
    private var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: bytes.base, count: bytes.count) }
    package private(set) var position: Int
    /// Where reading ends: the bytes from here on are not this reader's.
    private let end: Int

    package init(_ bytes: [UInt8], at position: Int = 0, end: Int? = nil) {
        self.init(Bytes(bytes), at: position, end: end)
    }

    private init(_ bytes: Bytes, at position: Int, end: Int?) {
        self.bytes = bytes
        self.position = position
        self.end = min(end ?? bytes.count, bytes.count)
    }

    /// Reads the file open at `fd`, `size` bytes long, mapped read-only (no
    /// copy); `nil` if it cannot be mapped. The file must not be cut short
    /// while the reader lives: snapshots are replaced by rename, never rewritten in place.
    /// `populate` false maps the pages only as they are read (for a reader
    /// that reads little of the file).
    package static func mapping(_ fd: Int32, size: Int, populate: Bool = true) -> BinaryReader? {
        #if os(Linux)
        let flags = populate ? MAP_PRIVATE | MAP_POPULATE : MAP_PRIVATE   // every page at once: far fewer faults than page by page
        #else
        let flags = MAP_PRIVATE
        #endif
        guard size > 0, let base = mmap(nil, size, PROT_READ, flags, fd, 0), base != UnsafeMutableRawPointer(bitPattern: -1) else {
            return nil
        }
        return BinaryReader(Bytes(mapped: UnsafeRawPointer(base), count: size), at: 0, end: nil)
    }

    /// Lets go of the pages wholly inside `range` of a mapped file: bytes
    /// copied out or passed over, never read again (a page let go would be
    /// read back from the file if they were). Nothing for bytes in memory.
    package func letGo(_ range: Range<Int>) {
        guard bytes.isMapped, range.lowerBound >= 0, range.upperBound <= bytes.count else { return }
        let page = UInt(getpagesize())
        let start = UInt(bitPattern: bytes.base + range.lowerBound), end = UInt(bitPattern: bytes.base + range.upperBound)
        let first = (start + page - 1) / page * page, last = end / page * page
        guard last > first, let at = UnsafeMutableRawPointer(bitPattern: first) else { return }
        _ = madvise(at, Int(last - first), MADV_DONTNEED)
    }

    /// The same bytes, read from `position` up to `end`.
    package func slice(at position: Int, end: Int) -> BinaryReader { BinaryReader(bytes, at: position, end: end) }

    /// All the bytes, whoever reads them.
    package var all: UnsafeRawBufferPointer { raw }

    /// Where ``all`` starts: an address even when there are no bytes.
    package var start: UnsafeRawPointer { bytes.base }

    package var isAtEnd: Bool { position == end }

    private mutating func take(_ count: Int) throws(BinaryDecodingError) -> Int {
        guard count >= 0, count <= end - position else {
            throw BinaryDecodingError("the snapshot ends early (wanted \(count) bytes at \(position))")
        }
        defer { position += count }
        return position
    }

    /// A fixed-size value at the current position, read in place.
    private mutating func load<T: FixedWidthInteger>(_ type: T.Type) throws(BinaryDecodingError) -> T {
        let at = try take(MemoryLayout<T>.size)
        return T(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: T.self))
    }

    package mutating func int() throws(BinaryDecodingError) -> Int { Int(try load(Int64.self)) }

    /// Passes over the next `count` bytes, for records of fixed size read where
    /// they lie (in ``all``); where they start.
    package mutating func skip(_ count: Int) throws(BinaryDecodingError) -> Int { try take(count) }

    /// The next `count` bytes as they are, for records of fixed size read in one go.
    package mutating func block(_ count: Int, _ body: (UnsafeRawBufferPointer) -> Void) throws(BinaryDecodingError) {
        let start = try take(count)
        body(UnsafeRawBufferPointer(rebasing: raw[start..<(start + count)]))
    }

    package mutating func uint32() throws(BinaryDecodingError) -> UInt32 { try load(UInt32.self) }

    package mutating func bool() throws(BinaryDecodingError) -> Bool {
        switch raw[try take(1)] {
        case 0: return false
        case 1: return true
        case let other: throw BinaryDecodingError("byte \(other) is not a boolean")
        }
    }

    package mutating func double() throws(BinaryDecodingError) -> Double {
        Double(bitPattern: UInt64(bitPattern: Int64(try int())))
    }

    /// A count of things that follow, each at least `minimumSize` bytes: never more than the bytes left.
    package mutating func count(minimumSize: Int = 1) throws(BinaryDecodingError) -> Int {
        let n = try int()
        guard n >= 0, n <= (end - position) / max(minimumSize, 1) else {
            throw BinaryDecodingError("count \(n) at \(position) is impossible")
        }
        return n
    }

    package mutating func string() throws(BinaryDecodingError) -> String {
        let n = try count()
        let start = try take(n)
        let text = String(validating: UnsafeRawBufferPointer(rebasing: raw[start..<(start + n)]).bindMemory(to: UInt8.self), as: UTF8.self)
        guard let text else { throw BinaryDecodingError("a string is not valid UTF-8") }
        return text
    }

    package mutating func uuid() throws(BinaryDecodingError) -> UUID {
        let start = try take(16)
        return UUID(uuid: raw.loadUnaligned(fromByteOffset: start, as: uuid_t.self))
    }

    package mutating func id<Kind>() throws(BinaryDecodingError) -> EntityID<Kind> { EntityID(try uuid()) }
    package mutating func timestamp() throws(BinaryDecodingError) -> Timestamp { Timestamp(millisecondsSince1970: Int64(try int())) }
    package mutating func digest() throws(BinaryDecodingError) -> SHA256Digest {
        SHA256Digest(words: (try uint32(), try uint32(), try uint32(), try uint32(),
                             try uint32(), try uint32(), try uint32(), try uint32()))
    }
    package mutating func color() throws(BinaryDecodingError) -> Color {
        Color(red: try double(), green: try double(), blue: try double(), opacity: try double())
    }

    package mutating func optional<T>(_ read: (inout BinaryReader) throws(BinaryDecodingError) -> T) throws(BinaryDecodingError) -> T? {
        try bool() ? try read(&self) : nil
    }

    package mutating func array<T>(_ read: (inout BinaryReader) throws(BinaryDecodingError) -> T) throws(BinaryDecodingError) -> [T] {
        let n = try count()
        var values: [T] = []
        values.reserveCapacity(n)
        for _ in 0..<n { values.append(try read(&self)) }
        return values
    }
}

/// Records of one fixed size where they lie in a reader's bytes — a snapshot
/// mapped read-only, never changed while mapped — read field by field in
/// place. Holding it keeps the mapping.
package final class MappedRecords: @unchecked Sendable {
    // @unchecked: the bytes are never written while it lives.
    private let bytes: BinaryReader
    @usableFromInline let base: UnsafeRawPointer
    package let count: Int
    @usableFromInline let size: Int

    /// `count` records of `size` bytes from `offset` in `bytes` (which the caller has checked they fill).
    package init(_ bytes: BinaryReader, at offset: Int, count: Int, size: Int) {
        (self.bytes, base, self.count, self.size) = (bytes, bytes.start + offset, count, size)
    }

    /// The little-endian integer at byte `field` of record `index`.
    @inlinable package func load<T: FixedWidthInteger>(_ index: Int, _ field: Int = 0, as _: T.Type = T.self) -> T {
        T(littleEndian: base.loadUnaligned(fromByteOffset: index * size + field, as: T.self))
    }

    /// Record `index` (16 bytes) as an id.
    package func id<Kind>(_ index: Int) -> EntityID<Kind> {
        EntityID(UUID(uuid: base.loadUnaligned(fromByteOffset: index * size, as: uuid_t.self)))
    }

    /// Whether record `index` (16 bytes) is `id`, compared in place.
    package func holds<Kind>(_ id: EntityID<Kind>, at index: Int) -> Bool {
        let (a, b) = id.words
        return load(index, 0, as: UInt64.self) == UInt64(littleEndian: a) && load(index, 8, as: UInt64.self) == UInt64(littleEndian: b)
    }

    /// All the records' bytes, as they are.
    package var raw: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count * size) }
}
