/// Appends compact JSON to a byte buffer: the journal's write path.
///
/// Strings are written as raw UTF-8 with only `"`, `\` and control characters
/// escaped, so any Unicode round-trips byte for byte.
///
/// The bytes are written in place: `storage` is initialised to its whole
/// length, the text being its first `count` bytes, so each value is written
/// through a pointer into the spare room after them (one check of room and
/// uniqueness a value). Appending to an array instead went through a
/// temporary buffer and `append(contentsOf:)` for each value, which was a
/// fifth of encoding a journal line.
package struct JSONWriter {
    private var storage: [UInt8]
    /// How many bytes are written.
    package private(set) var count = 0

    package init(capacity: Int = 256) { storage = [UInt8](repeating: 0, count: capacity) }

    /// The bytes written (a copy, unless the room is full).
    package var bytes: [UInt8] { count == storage.count ? storage : Array(storage[..<count]) }

    var isEmpty: Bool { count == 0 }

    /// The bytes written, without a copy; the writer is left empty.
    package mutating func takeBytes() -> [UInt8] {
        storage.removeLast(storage.count - count)
        var taken: [UInt8] = []
        swap(&taken, &storage)
        count = 0
        return taken
    }

    /// Forgets what is written, keeping the room.
    package mutating func removeAll() { count = 0 }

    /// The bytes written, from `offset` on.
    package func withUnsafeBytes<R>(from offset: Int = 0, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[offset..<count])) }
    }

    /// Writes `n` bytes that `fill` puts through a pointer.
    @inline(__always)
    mutating func write(_ n: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        guard n > 0 else { return }   // an empty storage has no address
        let at = count
        if at + n > storage.count { grow(to: at + n) }
        storage.withUnsafeMutableBufferPointer { fill($0.nonEmptyBase + at) }
        count = at + n
    }

    @inline(never)
    private mutating func grow(to needed: Int) {
        storage.append(contentsOf: repeatElement(0, count: Swift.max(needed, storage.count * 2, 64) - storage.count))
    }

    package mutating func append(_ byte: UInt8) { write(1) { $0[0] = byte } }

    package mutating func append(contentsOf raw: UnsafeBufferPointer<UInt8>) {
        guard let base = raw.baseAddress, raw.count > 0 else { return }
        write(raw.count) { $0.update(from: base, count: raw.count) }
    }

    package mutating func append(contentsOf bytes: [UInt8]) { bytes.withUnsafeBufferPointer { append(contentsOf: $0) } }

    /// `count` spaces (an indent).
    package mutating func spaces(_ count: Int) { write(count) { $0.update(repeating: UInt8(ascii: " "), count: count) } }

    /// A key of an object written as ``JSONValue/text(pretty:)`` writes it,
    /// the object standing `level` deep: the comma unless it is the object's
    /// `first` key, a newline, two spaces a level, `"name": `.
    package mutating func prettyKey(_ name: StaticString, level: Int, first: Bool = false) {
        let comma = first ? 0 : 1, n = name.utf8CodeUnitCount, indent = 2 * (level + 1)
        write(comma + 1 + indent + n + 4) { p in
            if comma == 1 { p[0] = UInt8(ascii: ",") }
            p[comma] = 0x0A
            (p + comma + 1).update(repeating: UInt8(ascii: " "), count: indent)
            let at = comma + 1 + indent
            p[at] = UInt8(ascii: "\"")
            (p + at + 1).update(from: name.utf8Start, count: n)
            p[at + n + 1] = UInt8(ascii: "\"")
            p[at + n + 2] = UInt8(ascii: ":")
            p[at + n + 3] = UInt8(ascii: " ")
        }
    }

    mutating func beginObject() { append(UInt8(ascii: "{")) }
    mutating func endObject() { append(UInt8(ascii: "}")) }

    /// Writes `"name":`, with the comma before it unless it is the object's first key.
    mutating func key(_ name: StaticString) {
        let comma = count == 0 || storage[count - 1] != UInt8(ascii: "{") ? 1 : 0, n = name.utf8CodeUnitCount
        write(comma + n + 3) { p in
            if comma == 1 { p[0] = UInt8(ascii: ",") }
            p[comma] = UInt8(ascii: "\"")
            (p + comma + 1).update(from: name.utf8Start, count: n)
            p[comma + n + 1] = UInt8(ascii: "\"")
            p[comma + n + 2] = UInt8(ascii: ":")
        }
    }

    package mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            // Most text needs no escape: then it goes in with its quotes in one write.
            guard utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else {
                write(utf8.count + 2) { p in
                    p[0] = UInt8(ascii: "\"")
                    if let base = utf8.baseAddress { (p + 1).update(from: base, count: utf8.count) }
                    p[utf8.count + 1] = UInt8(ascii: "\"")
                }
                return
            }
            append(UInt8(ascii: "\""))
            var runStart = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""): append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): append(UInt8(ascii: "\\"))
                case 0x0A: append(UInt8(ascii: "n"))
                case 0x0D: append(UInt8(ascii: "r"))
                case 0x09: append(UInt8(ascii: "t"))
                case 0x08: append(UInt8(ascii: "b"))
                case 0x0C: append(UInt8(ascii: "f"))
                default:
                    append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                        hexDigit(c >> 4, lettersFrom: UInt8(ascii: "a")), hexDigit(c & 0xF, lettersFrom: UInt8(ascii: "a"))])
                }
            }
            append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
            append(UInt8(ascii: "\""))
        }
    }

    package mutating func int(_ value: Int) {
        if value == 0 { append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { append(UInt8(ascii: "-")) }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let n = withUnsafeMutableBytes(of: &digits) { d -> Int in
            var n = 0
            while magnitude > 0 {
                d[n] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                n += 1
            }
            return n
        }
        Swift.withUnsafeBytes(of: &digits) { d in
            write(n) { p in
                for i in 0..<n { p[i] = d[n - 1 - i] }
            }
        }
    }

    /// A quantity as a plain JSON number: `2`, `1.5`, `0.125` (no trailing zeros).
    package mutating func quantity(_ value: Quantity) {
        let magnitude = value.thousandths.magnitude, fraction = Int(magnitude % 1000)
        if value.thousandths < 0 { append(UInt8(ascii: "-")) }
        int(Int(magnitude / 1000))
        guard fraction != 0 else { return }
        let digits = fraction % 10 != 0 ? 3 : fraction % 100 != 0 ? 2 : 1
        write(digits + 1) { p in
            p[0] = UInt8(ascii: ".")
            var rest = fraction
            for i in 0..<digits {
                p[1 + i] = UInt8(ascii: "0") + UInt8(rest / 100)
                rest = rest % 100 * 10
            }
        }
    }

    /// Shortest text that reads back as the same Double; callers pass finite values.
    package mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON has no infinity or NaN")
        var text = value.description
        text.withUTF8 { append(contentsOf: $0) }
    }

    mutating func bool(_ value: Bool) { literal(value ? "true" : "false") }
    package mutating func null() { literal("null") }

    private mutating func literal(_ text: StaticString) {
        write(text.utf8CodeUnitCount) { $0.update(from: text.utf8Start, count: text.utf8CodeUnitCount) }
    }

    package mutating func id<Kind>(_ value: EntityID<Kind>) {
        write(38) { p in
            p[0] = UInt8(ascii: "\"")
            UUIDText.write(value.uuid, to: p + 1)
            p[37] = UInt8(ascii: "\"")
        }
    }

    mutating func ids<Kind>(_ values: [EntityID<Kind>]) {
        append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { append(UInt8(ascii: ",")) }
            id(value)
        }
        append(UInt8(ascii: "]"))
    }

    package mutating func timestamp(_ value: Timestamp) {
        write(26) { p in
            p[0] = UInt8(ascii: "\"")
            value.write(to: p + 1)
            p[25] = UInt8(ascii: "\"")
        }
    }

    mutating func digest(_ value: SHA256Digest) {
        write(66) { p in
            p[0] = UInt8(ascii: "\"")
            value.writeHex(to: p + 1)
            p[65] = UInt8(ascii: "\"")
        }
    }

    mutating func color(_ value: Color) {
        beginObject()
        key("red"); double(value.red)
        key("green"); double(value.green)
        key("blue"); double(value.blue)
        key("opacity"); double(value.opacity)
        endObject()
    }
}

extension Array where Element == UInt8 {
    /// Appends `count` bytes that `fill` writes through a pointer: one check
    /// of capacity and uniqueness for them all, where appending them one by
    /// one costs one each.
    @inline(__always)
    mutating func appendBytes(_ count: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Void) {
        guard count > 0 else { return }   // an empty allocation has no address
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            fill(buffer.nonEmptyBase)
            append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }
}

/// The hex digit of a nibble (0…15), upper case for `lettersFrom` 65 (`A`), lower case for 97 (`a`).
@inline(__always) func hexDigit(_ nibble: UInt8, lettersFrom a: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") &+ nibble : a &+ (nibble &- 10)
}
