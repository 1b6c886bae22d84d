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
    /// Where reading ends: the bytes from here on are not this reader's.
    private let end: Int

    package init(_ bytes: [UInt8], at position: Int = 0, end: Int? = nil) {
        self.bytes = bytes
        self.position = position
        self.end = min(end ?? bytes.count, bytes.count)
    }

    package var isAtEnd: Bool { position == end }

    private mutating func take(_ count: Int) throws(BinaryDecodingError) -> ArraySlice<UInt8> {
        guard count >= 0, count <= end - position else {
            throw BinaryDecodingError("the snapshot ends early (wanted \(count) bytes at \(position))")
        }
        defer { position += count }
        return bytes[position..<(position + count)]
    }

    /// A fixed-size value at the current position, read in place.
    private mutating func load<T: FixedWidthInteger>(_ type: T.Type) throws(BinaryDecodingError) -> T {
        let size = MemoryLayout<T>.size
        guard size <= end - position else {
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
        guard n >= 0, n <= (end - position) / max(minimumSize, 1) else {
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

/// A snapshot file: a magic word, the body, and a SHA-256 of everything
/// before it, so that a truncated or damaged file is recognised as such.
package enum SnapshotFile {
    package enum Problem: Error, Equatable {
        case unreadable, notASnapshot, damaged
    }

    /// Reads the file whole (one buffer, no copies) and checks its magic and
    /// checksum; the reader stands after the magic and ends before the checksum.
    package static func read(_ path: String, magic: [UInt8]) -> Result<BinaryReader, Problem> {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable) }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable) }
        let size = Int(info.st_size)
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, size - done, off_t(done)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return .failure(.unreadable) }
            done += n
        }
        guard size >= magic.count + 4 + 32, bytes.starts(with: magic) else { return .failure(.notASnapshot) }
        var trailer = BinaryReader(bytes, at: size - 32)
        let computed = bytes.withUnsafeBytes { SHA256.hash(UnsafeRawBufferPointer(rebasing: $0[0..<(size - 32)])) }
        guard let recorded = try? trailer.digest(), recorded == computed else { return .failure(.damaged) }
        return .success(BinaryReader(bytes, at: magic.count, end: size - 32))
    }

    /// Writes `bytes` to `path` atomically: a temporary file, `fsync`, rename.
    package static func write(_ bytes: [UInt8], to path: String) throws(JournalError) {
        let temporary = path + ".tmp-\(getpid())"
        let fd = Posix.open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw JournalError.io("create", temporary) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Foundation.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else {
                let error = JournalError.io("write", temporary)
                _ = Posix.close(fd); unlink(temporary)
                throw error
            }
            done += n
        }
        guard Journal.fullSync(fd) else {
            let error = JournalError.io("fsync", temporary)
            _ = Posix.close(fd); unlink(temporary)
            throw error
        }
        _ = Posix.close(fd)
        guard rename(temporary, path) == 0 else {
            let error = JournalError.io("rename to \(path)", temporary)
            unlink(temporary)
            throw error
        }
    }
}
