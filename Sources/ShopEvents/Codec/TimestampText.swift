import Foundation

// The journal's time format, `YYYY-MM-DDTHH:MM:SS.mmmZ`, written and read
// without Foundation's formatters: the codec's side of ``Timestamp``.
extension Timestamp {
    /// Parses the journal format exactly; `nil` for anything else.
    public init?(_ text: String) {
        guard let t = Array(text.utf8).withUnsafeBufferPointer({ Timestamp.parse($0) }) else { return nil }
        self = t
    }

    /// The journal format: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public var description: String {
        var out: [UInt8] = []
        out.reserveCapacity(24)
        append(to: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// Appends the 24 bytes of the journal format.
    func append(to out: inout [UInt8]) {
        out.appendBytes(24) { write(to: $0) }
    }

    /// Writes the 24 characters of `YYYY-MM-DDTHH:MM:SS.mmmZ` at `p`.
    func write(to p: UnsafeMutablePointer<UInt8>) {
        let ms = millisecondsSince1970
        var days = ms / 86_400_000
        var rest = ms % 86_400_000
        if rest < 0 { rest += 86_400_000; days -= 1 }
        let (y, m, d) = Timestamp.civil(fromDays: days)
        var o = 0
        func digits(_ value: Int64, _ count: Int, then separator: UInt8) {
            var v = value
            for i in stride(from: count - 1, through: 0, by: -1) {
                p[o + i] = UInt8(ascii: "0") + UInt8(v % 10)
                v /= 10
            }
            p[o + count] = separator
            o += count + 1
        }
        digits(y, 4, then: UInt8(ascii: "-"))
        digits(m, 2, then: UInt8(ascii: "-"))
        digits(d, 2, then: UInt8(ascii: "T"))
        digits(rest / 3_600_000, 2, then: UInt8(ascii: ":"))
        digits(rest / 60_000 % 60, 2, then: UInt8(ascii: ":"))
        digits(rest / 1000 % 60, 2, then: UInt8(ascii: "."))
        digits(rest % 1000, 3, then: UInt8(ascii: "Z"))
    }

    /// Parses exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, eight bytes at a time: the
    /// separators compared as one masked word each, the digits checked and
    /// turned into numbers in the word (a line holds one or two of these).
    static func parse(_ t: UnsafeBufferPointer<UInt8>) -> Timestamp? {
        guard t.count == 24, let p = t.baseAddress else { return nil }
        let raw = UnsafeRawPointer(p)
        // Little-endian: byte i of a word is its bits 8i…8i+7.
        let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))                     // YYYY-MM-
        let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))  // DDTHH:MM
        let w2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) // :SS.mmmZ
        guard w0 & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,   // '-' at 4 and 7
              w1 & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000,   // 'T' at 10, ':' at 13
              w2 & 0xFF00_0000_FF00_00FF == 0x5A00_0000_2E00_003A,   // ':' at 16, '.' at 19, 'Z' at 23
              let d0 = digits(w0, separators: 0xFF00_00FF_0000_0000),
              let d1 = digits(w1, separators: 0x0000_FF00_00FF_0000),
              let d2 = digits(w2, separators: 0xFF00_0000_FF00_00FF)
        else { return nil }
        @inline(__always) func at(_ word: UInt64, _ i: UInt64) -> Int64 { Int64(truncatingIfNeeded: (word >> (8 * i)) & 0xFF) }
        let year = ((at(d0, 0) * 10 + at(d0, 1)) * 10 + at(d0, 2)) * 10 + at(d0, 3)
        let month = at(d0, 5) * 10 + at(d0, 6), day = at(d1, 0) * 10 + at(d1, 1)
        let hour = at(d1, 3) * 10 + at(d1, 4), minute = at(d1, 6) * 10 + at(d1, 7)
        let second = at(d2, 1) * 10 + at(d2, 2), milli = (at(d2, 4) * 10 + at(d2, 5)) * 10 + at(d2, 6)
        guard (1...12).contains(month), day >= 1, day <= daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let ms = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + milli
        return Timestamp(millisecondsSince1970: ms)
    }

    /// The word's bytes less `'0'` where `separators` has no byte, if each of
    /// them is an ASCII digit; the separators' bytes are zero.
    @inline(__always) private static func digits(_ word: UInt64, separators: UInt64) -> UInt64? {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let x = (word & ~separators) | ((ones &* 0x30) & separators)   // a separator counts as the digit 0
        guard x & highs == 0 else { return nil }
        // For bytes below 0x80, v + (0x80 − n) has its high bit set exactly when v ≥ n.
        let atLeastZero = (x &+ ones &* (0x80 - 0x30)) & highs, atLeastColon = (x &+ ones &* (0x80 - 0x3A)) & highs
        guard atLeastZero & ~atLeastColon == highs else { return nil }
        return x &- ones &* 0x30
    }
}
