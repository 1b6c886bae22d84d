/// Appends compact JSON to a byte buffer: the journal's write path.
///
/// Strings are written as raw UTF-8 with only `"`, `\` and control characters
/// escaped, so any Unicode round-trips byte for byte.
struct JSONWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    mutating func beginObject() { bytes.append(UInt8(ascii: "{")) }
    mutating func endObject() { bytes.append(UInt8(ascii: "}")) }

    /// Writes `"name":`, with the comma before it unless it is the object's first key.
    mutating func key(_ name: StaticString) {
        let comma = bytes.last != UInt8(ascii: "{") ? 1 : 0, n = name.utf8CodeUnitCount
        bytes.appendBytes(comma + n + 3) { p in
            if comma == 1 { p[0] = UInt8(ascii: ",") }
            p[comma] = UInt8(ascii: "\"")
            (p + comma + 1).update(from: name.utf8Start, count: n)
            p[comma + n + 1] = UInt8(ascii: "\"")
            p[comma + n + 2] = UInt8(ascii: ":")
        }
    }

    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                guard c < 0x20 || c == UInt8(ascii: "\"") || c == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch c {
                case UInt8(ascii: "\""): bytes.append(UInt8(ascii: "\""))
                case UInt8(ascii: "\\"): bytes.append(UInt8(ascii: "\\"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                              hexDigit(c >> 4, lettersFrom: UInt8(ascii: "a")), hexDigit(c & 0xF, lettersFrom: UInt8(ascii: "a"))])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    mutating func int(_ value: Int) {
        if value == 0 { bytes.append(UInt8(ascii: "0")); return }
        var magnitude = value.magnitude
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
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
        withUnsafeBytes(of: &digits) { d in
            bytes.appendBytes(n) { p in
                for i in 0..<n { p[i] = d[n - 1 - i] }
            }
        }
    }

    /// Shortest text that reads back as the same Double; callers pass finite values.
    mutating func double(_ value: Double) {
        precondition(value.isFinite, "JSON has no infinity or NaN")
        bytes.append(contentsOf: value.description.utf8)
    }

    mutating func bool(_ value: Bool) { bytes.append(contentsOf: value ? Array("true".utf8) : Array("false".utf8)) }
    mutating func null() { bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")]) }

    mutating func id<Kind>(_ value: EntityID<Kind>) {
        bytes.appendBytes(38) { p in
            p[0] = UInt8(ascii: "\"")
            UUIDText.write(value.uuid, to: p + 1)
            p[37] = UInt8(ascii: "\"")
        }
    }

    mutating func ids<Kind>(_ values: [EntityID<Kind>]) {
        bytes.append(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            id(value)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    mutating func timestamp(_ value: Timestamp) {
        bytes.appendBytes(26) { p in
            p[0] = UInt8(ascii: "\"")
            value.write(to: p + 1)
            p[25] = UInt8(ascii: "\"")
        }
    }

    mutating func digest(_ value: SHA256Digest) {
        bytes.appendBytes(66) { p in
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
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: count) { buffer in
            fill(buffer.baseAddress!)
            append(contentsOf: UnsafeBufferPointer(buffer))
        }
    }
}

/// The hex digit of a nibble (0…15), upper case for `lettersFrom` 65 (`A`), lower case for 97 (`a`).
@inline(__always) func hexDigit(_ nibble: UInt8, lettersFrom a: UInt8) -> UInt8 {
    nibble < 10 ? UInt8(ascii: "0") &+ nibble : a &+ (nibble &- 10)
}
