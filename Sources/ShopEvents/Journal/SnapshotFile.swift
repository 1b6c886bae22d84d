import Foundation

/// A snapshot file: a magic word, the body, and a checksum of everything
/// before it, so that a truncated or damaged file is recognised as such.
///
/// The checksum is a 64-bit hash of the xxHash kind (four lanes of multiply
/// and rotate over 32-byte stripes), not SHA-256: a snapshot is a cache that
/// anyone who can write it can also rewrite whole, so a cryptographic hash
/// would prove nothing more, and this one runs at memory speed (a snapshot
/// of a 1,000,000-event journal is tens of megabytes, read on every open).
package enum SnapshotFile {
    package enum Problem: Error, Equatable {
        case unreadable, notASnapshot, damaged
    }

    /// Maps the file read-only (no copy) and checks its magic and
    /// checksum; the reader stands after the magic and ends before the checksum.
    /// `resident` false is for a reader that will read only part of the file:
    /// the pages are mapped as they are read and let go once checksummed (on
    /// Linux), so that the parts never read again take no memory.
    package static func read(_ path: String, magic: [UInt8], resident: Bool = true) -> Result<BinaryReader, Problem> {
        let fd = Posix.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return .failure(.unreadable) }
        defer { _ = Posix.close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable) }
        let size = Int(info.st_size)
        guard size >= magic.count + 4 + 8, let whole = BinaryReader.mapping(fd, size: size, populate: resident) else {
            return .failure(size < magic.count + 4 + 8 ? .notASnapshot : .unreadable)
        }
        let bytes = whole.all
        guard bytes.starts(with: magic) else { return .failure(.notASnapshot) }
        let recorded = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: size - 8, as: UInt64.self))
        let body = UnsafeRawBufferPointer(rebasing: bytes[0..<(size - 8)])
        let sum = resident ? checksum(body) : checksum(body) { done in
            #if os(Linux)
            // Unchanged pages of a private mapping: read again from the file if they are needed after all.
            _ = madvise(UnsafeMutableRawPointer(mutating: whole.start), done & ~(Int(getpagesize()) - 1), MADV_DONTNEED)
            #endif
        }
        guard recorded == sum else { return .failure(.damaged) }
        return .success(whole.slice(at: magic.count, end: size - 8))
    }

    /// The checksum of `raw`; `behind`, if given, is told every 4 MiB how many
    /// bytes from the start are done with.
    package static func checksum(_ raw: UnsafeRawBufferPointer, behind: ((Int) -> Void)? = nil) -> UInt64 {
        let count = raw.count
        let (p1, p2, p3, p4, p5): (UInt64, UInt64, UInt64, UInt64, UInt64) =
            (0x9E37_79B1_85EB_CA87, 0xC2B2_AE3D_27D4_EB4F, 0x1656_67B1_9E37_79F9, 0x85EB_CA77_C2B2_AE63, 0x27D4_EB2F_1656_67C5)
        func round(_ acc: UInt64, _ word: UInt64) -> UInt64 { ((acc &+ word &* p2) <<< 31) &* p1 }
        func merge(_ acc: UInt64, _ lane: UInt64) -> UInt64 { (acc ^ round(0, lane)) &* p1 &+ p4 }
        do {
            func word(_ at: Int) -> UInt64 { UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: UInt64.self)) }
            var at = 0
            var h: UInt64
            if count >= 32 {
                var (v1, v2, v3, v4) = (p1 &+ p2, p2, UInt64(0), 0 &- p1)
                while at + 32 <= count {
                    v1 = round(v1, word(at)); v2 = round(v2, word(at + 8)); v3 = round(v3, word(at + 16)); v4 = round(v4, word(at + 24))
                    at += 32
                    if at & ((1 << 22) - 1) == 0, let behind { behind(at) }
                }
                h = (v1 <<< 1) &+ (v2 <<< 7) &+ (v3 <<< 12) &+ (v4 <<< 18)
                h = merge(merge(merge(merge(h, v1), v2), v3), v4)
            } else {
                h = p5
            }
            h &+= UInt64(count)
            while at + 8 <= count {
                h = ((h ^ round(0, word(at))) <<< 27) &* p1 &+ p4
                at += 8
            }
            while at < count {
                h = ((h ^ UInt64(raw[at]) &* p5) <<< 11) &* p1
                at += 1
            }
            h ^= h >> 33; h &*= p2; h ^= h >> 29; h &*= p3; h ^= h >> 32
            return h
        }
    }

    /// Writes `body` and its checksum to `path` atomically (``Journal/writeAtomically(_:to:)``).
    package static func write(_ body: consuming [UInt8], to path: String) throws(JournalError) {
        let sum = body.withUnsafeBytes { checksum($0) }
        var bytes = body
        withUnsafeBytes(of: sum.littleEndian) { bytes.append(contentsOf: $0) }
        try DurableFile.writeAtomically(bytes, to: path)
    }
}

infix operator <<< : BitwiseShiftPrecedence

private func <<< (value: UInt64, by: UInt64) -> UInt64 { (value << by) | (value >> (64 - by)) }
