import CShopSHA
import Foundation

// The text of an ``EntityID``: the codec's side of it.
extension EntityID {
    /// Parses a UUID written in any case; `nil` if the text is not a UUID.
    public init?(_ text: String) {
        guard let uuid = UUIDText.parse(Array(text.utf8)) else { return nil }
        self.init(uuid)
    }

    /// The id in the journal's spelling: upper-case UUID text.
    public var description: String { UUIDText.format(uuid) }
}

/// UUID text in the journal's spelling, without Foundation's allocations.
enum UUIDText {
    static func bytes(_ uuid: UUID) -> [UInt8] {
        withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }

    static func uuid(_ b: [UInt8]) -> UUID {
        UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    /// Appends the 36 upper-case characters of `uuid` to `out`.
    static func append(_ uuid: UUID, to out: inout [UInt8]) {
        out.appendBytes(36) { write(uuid, to: $0) }
    }

    /// Writes the 36 upper-case characters of `uuid` at `p`, four bytes at a time (``hex4(_:lettersFrom:)``).
    @inline(__always) static func write(_ uuid: UUID, to p: UnsafeMutablePointer<UInt8>) {
        withUnsafeBytes(of: uuid.uuid) { b in
            let raw = UnsafeMutableRawPointer(p)
            let dash = UInt8(ascii: "-"), upper = UInt8(ascii: "A")
            // 8-4-4-4-12: bytes 0-3, then 4-5 and 6-7, 8-9 and 10-11, then 12-15.
            func word(_ index: Int) -> UInt32 { UInt32(littleEndian: b.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)) }
            raw.storeBytes(of: hex4(word(0), lettersFrom: upper).littleEndian, as: UInt64.self)
            let second = hex4(word(1), lettersFrom: upper), third = hex4(word(2), lettersFrom: upper)
            p[8] = dash
            raw.storeBytes(of: UInt32(truncatingIfNeeded: second).littleEndian, toByteOffset: 9, as: UInt32.self)
            p[13] = dash
            raw.storeBytes(of: UInt32(truncatingIfNeeded: second >> 32).littleEndian, toByteOffset: 14, as: UInt32.self)
            p[18] = dash
            raw.storeBytes(of: UInt32(truncatingIfNeeded: third).littleEndian, toByteOffset: 19, as: UInt32.self)
            p[23] = dash
            raw.storeBytes(of: UInt32(truncatingIfNeeded: third >> 32).littleEndian, toByteOffset: 24, as: UInt32.self)
            raw.storeBytes(of: hex4(word(3), lettersFrom: upper).littleEndian, toByteOffset: 28, as: UInt64.self)
        }
    }

    /// The eight hex digits of four bytes, the first byte in the low bits of
    /// `word`, as the eight bytes of a number whose low byte is the first
    /// digit: each byte's two nibbles spread into bytes of their own, and all
    /// eight made digits at once (`lettersFrom`: 65 for upper case, 97 for lower).
    @inline(__always) static func hex4(_ word: UInt32, lettersFrom a: UInt8) -> UInt64 {
        var x = UInt64(word)
        x = (x | (x << 16)) & 0x0000_FFFF_0000_FFFF
        x = (x | (x << 8)) & 0x00FF_00FF_00FF_00FF
        let nibbles = ((x >> 4) & 0x000F_000F_000F_000F) | ((x & 0x000F_000F_000F_000F) << 8)
        // A nibble of 10 or more carries into bit 4 when 6 is added (never into the next byte).
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        return nibbles &+ 0x3030_3030_3030_3030 &+ letters &* UInt64(a &- UInt8(ascii: "0") &- 10)
    }

    static func format(_ uuid: UUID) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(36)
        append(uuid, to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) static func hexValue(_ c: UInt8) -> UInt8? {
        let digit = c &- 48
        if digit < 10 { return digit }
        let letter = (c | 0x20) &- 97
        return letter < 6 ? letter &+ 10 : nil
    }

    /// Eight hex digits (any case) at `p` as a 32-bit number, eight bytes at a
    /// time; `nil` if any of them is not a hex digit.
    @inline(__always) static func hex8(_ p: UnsafePointer<UInt8>) -> UInt32? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let x = UnsafeRawPointer(p).loadUnaligned(as: UInt64.self)
        guard x & highs == 0 else { return nil }
        let lower = x | (ones &* 0x20)
        // For bytes below 0x80, v + (0x80 − n) has its high bit set exactly when v ≥ n.
        @inline(__always) func atLeast(_ v: UInt64, _ n: UInt64) -> UInt64 { (v &+ ones &* (0x80 &- n)) & highs }
        let digits = atLeast(x, 0x30) & ~atLeast(x, 0x3A)
        let letters = atLeast(lower, 0x61) & ~atLeast(lower, 0x67)
        guard (digits | letters) & highs == highs else { return nil }
        let nibbles = (lower & (ones &* 0x0F)) &+ (letters >> 7) &* 9
        let pairs = ((nibbles & 0x000F_000F_000F_000F) << 4) | ((nibbles & 0x0F00_0F00_0F00_0F00) >> 8)
        return UInt32(truncatingIfNeeded: (pairs & 0xFF) << 24 | ((pairs >> 16) & 0xFF) << 16 | ((pairs >> 32) & 0xFF) << 8 | ((pairs >> 48) & 0xFF))
    }

    /// Parses `8-4-4-4-12` hex digits in any case.
    static func parse(_ text: ArraySlice<UInt8>) -> UUID? {
        text.withUnsafeBufferPointer { parse($0) }
    }

    static func parse(_ text: [UInt8]) -> UUID? {
        text.withUnsafeBufferPointer { parse($0) }
    }

    /// Whether this CPU parses hex with vector instructions (``parse(_:)-(UnsafeBufferPointer<UInt8>)``,
    /// ``SHA256Digest/parse(_:)``); the portable way otherwise.
    /// Read from the C target's feature word, not kept in a `static let`: on
    /// Linux each read of one is a call into the runtime, and ids are read six a line.
    package static var usesVectors: Bool { shopevents_features() & SHOPEVENTS_HEX_VECTORS != 0 }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36, let p = text.baseAddress else { return nil }
        if usesVectors {
            var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            guard withUnsafeMutableBytes(of: &raw, { shopevents_parse_uuid(p, $0.nonEmptyBase.assumingMemoryBound(to: UInt8.self)) }) != 0
            else { return nil }
            // The bytes taken as the id where a UUID is just those (it is, in Foundation: its one
            // stored property is `uuid`): Foundation's init(uuid:) takes the 16 bytes one argument
            // each, and was a tenth of the time of reading an id.
            return MemoryLayout<UUID>.size == MemoryLayout<uuid_t>.size ? unsafeBitCast(raw, to: UUID.self) : UUID(uuid: raw)
        }
        return parsePortably(p)
    }

    /// ``parse(_:)-(UnsafeBufferPointer<UInt8>)`` without the vector instructions: the 36 bytes at `p`.
    static func parsePortably(_ p: UnsafePointer<UInt8>) -> UUID? {
        guard p[8] == 0x2D, p[13] == 0x2D, p[18] == 0x2D, p[23] == 0x2D else { return nil }
        // 8 digits, then 4-4 and 4-4 joined through a copy without their dashes, then 8 and 4.
        var middle: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &middle) { m in
            let m = m.nonEmptyBase
            m.copyMemory(from: p + 9, byteCount: 4)
            m.advanced(by: 4).copyMemory(from: p + 14, byteCount: 4)
            m.advanced(by: 8).copyMemory(from: p + 19, byteCount: 4)
            m.advanced(by: 12).copyMemory(from: p + 24, byteCount: 4)
        }
        let parts = withUnsafeBytes(of: &middle) { m -> (UInt32?, UInt32?) in
            let q = m.nonEmptyBase.assumingMemoryBound(to: UInt8.self)
            return (hex8(q), hex8(q + 8))
        }
        guard let a = hex8(p), let b = parts.0, let c = parts.1, let d = hex8(p + 28) else { return nil }
        var raw = (a.bigEndian, b.bigEndian, c.bigEndian, d.bigEndian)
        return withUnsafeBytes(of: &raw) { UUID(uuid: $0.load(as: uuid_t.self)) }
    }
}
