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
    private let bytes: [UInt8]
    package private(set) var position: Int

    package init(_ bytes: [UInt8], at position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    package var isAtEnd: Bool { position == bytes.count }

    private mutating func take(_ count: Int) throws(BinaryDecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= bytes.count - position else {
            throw BinaryDecodingError("the snapshot ends early (wanted \(count) bytes at \(position))")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// A fixed-size value at the current position, read in place.
    private mutating func load<T: FixedWidthInteger>(_ type: T.Type) throws(BinaryDecodingError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= bytes.count - position else {
            throw BinaryDecodingError("the snapshot ends early (wanted \(size) bytes at \(position))")
        }
        defer { position += size }
        return T(littleEndian: bytes.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: position, as: T.self) })
    }

    package mutating func int() throws(BinaryDecodingError) -> Int { Int(try load(Int64.self)) }

    package mutating func uint32() throws(BinaryDecodingError) -> UInt32 { try load(UInt32.self) }

    package mutating func bool() throws(BinaryDecodingError) -> Bool {
        switch try take(1).first! {
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
        guard n >= 0, n <= (bytes.count - position) / max(minimumSize, 1) else {
            throw BinaryDecodingError("count \(n) at \(position) is impossible")
        }
        return n
    }

    package mutating func string() throws(BinaryDecodingError) -> String {
        let n = try count()
        let start = position
        _ = try take(n)
        let text = bytes.withUnsafeBufferPointer { String(validating: UnsafeBufferPointer(rebasing: $0[start..<(start + n)]), as: UTF8.self) }
        guard let text else { throw BinaryDecodingError("a string is not valid UTF-8") }
        return text
    }

    package mutating func uuid() throws(BinaryDecodingError) -> UUID {
        let start = position
        _ = try take(16)
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(fromByteOffset: start, as: uuid_t.self)) }
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
