import CShopSHA
import Foundation

/// A SHA-256 digest: what links each journal line to the one before it.
///
/// ```swift
/// let digest = SHA256.hash(Array("abc".utf8))
/// print(digest)   // ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad
/// ```
public struct SHA256Digest: Hashable, Sendable, CustomStringConvertible {
    /// The eight 32-bit words of the digest, most significant first.
    public var words: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)

    /// 64 `0`s: the `prev` of the first line.
    public static let zero = SHA256Digest(words: (0, 0, 0, 0, 0, 0, 0, 0))

    public init(words: (UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32, UInt32)) { self.words = words }

    /// Parses 64 hex digits (lower case as written; upper case is accepted).
    public init?(hex: String) {
        guard let digest = SHA256Digest.parse(Array(hex.utf8)) else { return nil }
        self = digest
    }

    /// Lower-case hex, as the journal writes it.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        appendHex(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    public var hex: String { description }

    var array: [UInt32] { [words.0, words.1, words.2, words.3, words.4, words.5, words.6, words.7] }

    func appendHex(to out: inout [UInt8]) {
        out.appendBytes(64) { writeHex(to: $0) }
    }

    /// Writes the 64 lower-case hex digits at `p`.
    func writeHex(to p: UnsafeMutablePointer<UInt8>) {
        let raw = UnsafeMutableRawPointer(p), a = UInt8(ascii: "a")
        // Each word's digits, most significant first: its bytes in that order in the low bits first.
        withUnsafeBytes(of: words) { w in
            for i in 0..<8 {
                let word = w.load(fromByteOffset: i * 4, as: UInt32.self)
                raw.storeBytes(of: UUIDText.hex4(word.byteSwapped, lettersFrom: a).littleEndian, toByteOffset: i * 8, as: UInt64.self)
            }
        }
    }

    static func parse(_ text: [UInt8]) -> SHA256Digest? { text.withUnsafeBufferPointer { parse($0) } }

    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> SHA256Digest? {
        guard text.count == 64, let p = text.baseAddress else { return nil }
        if UUIDText.usesVectors {
            var digest = SHA256Digest.zero
            guard withUnsafeMutableBytes(of: &digest.words, { shopevents_parse_hex32(p, $0.nonEmptyBase.assumingMemoryBound(to: UInt8.self)) }) != 0
            else { return nil }
            // The bytes in text order; each word is big-endian.
            let w = digest.words
            digest.words = (UInt32(bigEndian: w.0), UInt32(bigEndian: w.1), UInt32(bigEndian: w.2), UInt32(bigEndian: w.3),
                            UInt32(bigEndian: w.4), UInt32(bigEndian: w.5), UInt32(bigEndian: w.6), UInt32(bigEndian: w.7))
            return digest
        }
        return parsePortably(p)
    }

    /// ``parse(_:)-(UnsafeBufferPointer<UInt8>)`` without the vector instructions: the 64 bytes at `p`.
    static func parsePortably(_ p: UnsafePointer<UInt8>) -> SHA256Digest? {
        guard let w0 = UUIDText.hex8(p), let w1 = UUIDText.hex8(p + 8), let w2 = UUIDText.hex8(p + 16), let w3 = UUIDText.hex8(p + 24),
              let w4 = UUIDText.hex8(p + 32), let w5 = UUIDText.hex8(p + 40), let w6 = UUIDText.hex8(p + 48), let w7 = UUIDText.hex8(p + 56)
        else { return nil }
        return SHA256Digest(words: (w0, w1, w2, w3, w4, w5, w6, w7))
    }

    public static func == (a: SHA256Digest, b: SHA256Digest) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
            && a.words.4 == b.words.4 && a.words.5 == b.words.5 && a.words.6 == b.words.6 && a.words.7 == b.words.7
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(words.0); hasher.combine(words.7) }
}
