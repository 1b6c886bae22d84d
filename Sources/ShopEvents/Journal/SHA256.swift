import CShopSHA

/// SHA-256 of FIPS 180-4, written here because the product has no dependencies.
/// Tested against the standard's example vectors. Nothing is allocated on
/// the heap: the partial block is kept inline, the padding is built on the
/// stack, and the rounds are unrolled eight at a time so that no register
/// shuffles between them.
///
/// ```swift
/// var hasher = SHA256()
/// hasher.update(Array("ab".utf8))
/// hasher.update(Array("c".utf8))
/// let digest = hasher.finalize()
/// ```
public struct SHA256: Sendable {
    typealias Words = (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)
    private static let initial: Words =
        (0x6a09_e667, 0xbb67_ae85, 0x3c6e_f372, 0xa54f_f53a, 0x510e_527f, 0x9b05_688c, 0x1f83_d9ab, 0x5be0_cd19)
    private var state: Words = SHA256.initial
    /// The bytes of an unfinished block, inline (64 bytes).
    private var block: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
    private var buffered = 0
    private var length: UInt64 = 0

    public init() {}

    /// The digest of `bytes` in one call.
    public static func hash<C: Collection>(_ bytes: C) -> SHA256Digest where C.Element == UInt8 {
        if let digest = bytes.withContiguousStorageIfAvailable({ hash(UnsafeRawBufferPointer($0)) }) { return digest }
        return Array(bytes).withUnsafeBytes { hash($0) }
    }

    /// The digest of the bytes in a raw buffer, without copying them (but the last partial block).
    public static func hash(_ buffer: UnsafeRawBufferPointer) -> SHA256Digest {
        hash(buffer, extensions: usesCPUExtensions)
    }

    /// Whether this CPU's SHA instructions do the work (x86-64 SHA-NI); else the portable Swift rounds.
    /// Read from the C target's feature word (as ``UUIDText/usesVectors``), not kept in a `static let`.
    package static var usesCPUExtensions: Bool { shopevents_features() & SHOPEVENTS_SHA_EXTENSIONS != 0 }

    /// With the CPU's instructions or without (tests check both against the NIST vectors).
    package static func hash(_ buffer: UnsafeRawBufferPointer, extensions: Bool) -> SHA256Digest {
        var h = initial
        let whole = buffer.count / 64
        if let base = buffer.baseAddress, whole > 0 { blocks(&h, base, whole, extensions: extensions) }
        finish(&h, rest: UnsafeRawBufferPointer(rebasing: buffer[(whole * 64)...]), totalLength: UInt64(buffer.count), extensions: extensions)
        return SHA256Digest(words: h)
    }

    /// The digests of two buffers, hashed side by side where the CPU's
    /// instructions do the work (their rounds interleaved: two take about
    /// two thirds of the time of one after the other), one after the other
    /// otherwise. Always the digests ``hash(_:)`` gives.
    package static func hash(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer,
                             extensions: Bool = usesCPUExtensions) -> (SHA256Digest, SHA256Digest) {
        guard extensions, let baseA = a.baseAddress, let baseB = b.baseAddress else {
            return (hash(a, extensions: extensions), hash(b, extensions: extensions))
        }
        var (ha, hb) = (initial, initial)
        withUnsafeMutablePointer(to: &ha) { wordsA in
            withUnsafeMutablePointer(to: &hb) { wordsB in
                wordsA.withMemoryRebound(to: UInt32.self, capacity: 8) { stateA in
                    wordsB.withMemoryRebound(to: UInt32.self, capacity: 8) { stateB in
                        shopevents_sha256_two(stateA, baseA.assumingMemoryBound(to: UInt8.self), a.count,
                                              stateB, baseB.assumingMemoryBound(to: UInt8.self), b.count)
                    }
                }
            }
        }
        return (SHA256Digest(words: ha), SHA256Digest(words: hb))
    }

    /// `count` 64-byte blocks into `h`.
    @inline(__always)
    private static func blocks(_ h: inout Words, _ data: UnsafeRawPointer, _ count: Int, extensions: Bool) {
        if extensions {
            withUnsafeMutablePointer(to: &h) { words in
                words.withMemoryRebound(to: UInt32.self, capacity: 8) { state in
                    shopevents_sha256_blocks(state, data.assumingMemoryBound(to: UInt8.self), count)
                }
            }
        } else {
            for index in 0..<count { compress(&h, data + index &* 64) }
        }
    }

    /// The last bytes (fewer than 64), the `0x80`, the zeros and the bit length: one or two blocks, on the stack.
    private static func finish(_ h: inout Words, rest: UnsafeRawBufferPointer, totalLength: UInt64, extensions: Bool = usesCPUExtensions) {
        withUnsafeTemporaryAllocation(byteCount: 128, alignment: 8) { tail in
            let base = tail.nonEmptyBase
            base.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
            if let source = rest.baseAddress, rest.count > 0 { base.copyMemory(from: source, byteCount: rest.count) }
            base.storeBytes(of: 0x80, toByteOffset: rest.count, as: UInt8.self)
            let blocks = rest.count < 56 ? 1 : 2
            base.storeBytes(of: (totalLength &* 8).bigEndian, toByteOffset: blocks * 64 - 8, as: UInt64.self)
            SHA256.blocks(&h, UnsafeRawPointer(base), blocks, extensions: extensions)
        }
    }

    public mutating func update<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        if let done = bytes.withContiguousStorageIfAvailable({ update(UnsafeRawBufferPointer($0)) }) {
            return done
        }
        Array(bytes).withUnsafeBytes { update($0) }
    }

    public mutating func update(_ buffer: UnsafeRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        length &+= UInt64(buffer.count)
        var offset = 0
        var h = state
        if buffered > 0 {
            let take = min(64 - buffered, buffer.count)
            let filled = buffered
            withUnsafeMutableBytes(of: &block) { $0.nonEmptyBase.advanced(by: filled).copyMemory(from: base, byteCount: take) }
            buffered += take
            offset = take
            if buffered == 64 {
                withUnsafeBytes(of: block) { SHA256.blocks(&h, $0.nonEmptyBase, 1, extensions: SHA256.usesCPUExtensions) }
                buffered = 0
            }
        }
        let whole = (buffer.count - offset) / 64
        if whole > 0 {
            SHA256.blocks(&h, base + offset, whole, extensions: SHA256.usesCPUExtensions)
            offset += whole * 64
        }
        if offset < buffer.count {
            let rest = buffer.count - offset
            withUnsafeMutableBytes(of: &block) { $0.nonEmptyBase.copyMemory(from: base + offset, byteCount: rest) }
            buffered = rest
        }
        state = h
    }

    public mutating func finalize() -> SHA256Digest {
        var h = state
        let count = buffered
        withUnsafeBytes(of: block) { raw in
            SHA256.finish(&h, rest: UnsafeRawBufferPointer(rebasing: raw[..<count]), totalLength: length)
        }
        state = h
        buffered = 0
        return SHA256Digest(words: h)
    }

    private static let k: [UInt32] = [
        0x428a_2f98, 0x7137_4491, 0xb5c0_fbcf, 0xe9b5_dba5, 0x3956_c25b, 0x59f1_11f1, 0x923f_82a4, 0xab1c_5ed5,
        0xd807_aa98, 0x1283_5b01, 0x2431_85be, 0x550c_7dc3, 0x72be_5d74, 0x80de_b1fe, 0x9bdc_06a7, 0xc19b_f174,
        0xe49b_69c1, 0xefbe_4786, 0x0fc1_9dc6, 0x240c_a1cc, 0x2de9_2c6f, 0x4a74_84aa, 0x5cb0_a9dc, 0x76f9_88da,
        0x983e_5152, 0xa831_c66d, 0xb003_27c8, 0xbf59_7fc7, 0xc6e0_0bf3, 0xd5a7_9147, 0x06ca_6351, 0x1429_2967,
        0x27b7_0a85, 0x2e1b_2138, 0x4d2c_6dfc, 0x5338_0d13, 0x650a_7354, 0x766a_0abb, 0x81c2_c92e, 0x9272_2c85,
        0xa2bf_e8a1, 0xa81a_664b, 0xc24b_8b70, 0xc76c_51a3, 0xd192_e819, 0xd699_0624, 0xf40e_3585, 0x106a_a070,
        0x19a4_c116, 0x1e37_6c08, 0x2748_774c, 0x34b0_bcb5, 0x391c_0cb3, 0x4ed8_aa4a, 0x5b9c_ca4f, 0x682e_6ff3,
        0x748f_82ee, 0x78a5_636f, 0x84c8_7814, 0x8cc7_0208, 0x90be_fffa, 0xa450_6ceb, 0xbef9_a3f7, 0xc671_78f2,
    ]

    @inline(__always) private static func rotr(_ x: UInt32, _ n: UInt32) -> UInt32 { (x >> n) | (x << (32 &- n)) }

    /// One round: `d` and `h` change; the caller renames the eight registers instead of moving them.
    @inline(__always)
    private static func round(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: inout UInt32,
                              _ e: UInt32, _ f: UInt32, _ g: UInt32, _ h: inout UInt32, _ kw: UInt32) {
        let t1 = h &+ (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) &+ (g ^ (e & (f ^ g))) &+ kw
        let t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) &+ ((a & b) | (c & (a | b)))
        d = d &+ t1
        h = t1 &+ t2
    }

    /// One 64-byte block into `h`: the message schedule on the stack, then 64 rounds, eight at a time.
    static func compress(_ h: inout Words, _ block: UnsafeRawPointer) {
        withUnsafeTemporaryAllocation(of: UInt32.self, capacity: 64) { w in
            let w = w.nonEmptyBase
            for i in 0..<16 {
                w[i] = UInt32(bigEndian: block.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
            }
            for i in 16..<64 {
                let x = w[i &- 15], y = w[i &- 2]
                let s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >> 3)
                let s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >> 10)
                w[i] = w[i &- 16] &+ s0 &+ w[i &- 7] &+ s1
            }
            var (a, b, c, d, e, f, g, hh) = h
            k.withUnsafeBufferPointer { kb in
                let k = kb.nonEmptyBase
                var i = 0
                while i < 64 {
                    round(a, b, c, &d, e, f, g, &hh, k[i] &+ w[i])
                    round(hh, a, b, &c, d, e, f, &g, k[i &+ 1] &+ w[i &+ 1])
                    round(g, hh, a, &b, c, d, e, &f, k[i &+ 2] &+ w[i &+ 2])
                    round(f, g, hh, &a, b, c, d, &e, k[i &+ 3] &+ w[i &+ 3])
                    round(e, f, g, &hh, a, b, c, &d, k[i &+ 4] &+ w[i &+ 4])
                    round(d, e, f, &g, hh, a, b, &c, k[i &+ 5] &+ w[i &+ 5])
                    round(c, d, e, &f, g, hh, a, &b, k[i &+ 6] &+ w[i &+ 6])
                    round(b, c, d, &e, f, g, hh, &a, k[i &+ 7] &+ w[i &+ 7])
                    i &+= 8
                }
            }
            h = (h.0 &+ a, h.1 &+ b, h.2 &+ c, h.3 &+ d, h.4 &+ e, h.5 &+ f, h.6 &+ g, h.7 &+ hh)
        }
    }
}
