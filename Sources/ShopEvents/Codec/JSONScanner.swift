import Foundation

/// A byte-level reader of one JSON text, strict to RFC 8259 and fast enough
/// that the journal's read path never goes through Foundation's decoders.
///
/// It reads values where the caller expects them; ``skipValue()`` checks
/// and passes over anything else. It never reads past its buffer.
struct JSONScanner {
    let base: UnsafePointer<UInt8>
    let count: Int
    var position = 0
    static let maxDepth = 64

    init(_ buffer: UnsafeRawBufferPointer) {
        if let start = buffer.baseAddress, buffer.count > 0 {
            base = start.assumingMemoryBound(to: UInt8.self)
            count = buffer.count
        } else {
            base = JSONScanner.empty
            count = 0
        }
    }

    nonisolated(unsafe) private static let empty: UnsafePointer<UInt8> = {
        let p = UnsafeMutablePointer<UInt8>.allocate(capacity: 1)
        p.initialize(to: 0)
        return UnsafePointer(p)
    }()

    /// A key as it stands in the text: its bytes between the quotes.
    struct Key {
        var start: Int
        var end: Int
        var escaped: Bool
    }

    func fail(_ reason: CodecError.Reason, _ detail: String) -> CodecError {
        CodecError(reason, detail, offset: position)
    }

    func fail(_ detail: String) -> CodecError { fail(.malformedJSON, detail) }

    @inline(__always) func peek() -> UInt8? { position < count ? base[position] : nil }

    @inline(__always) mutating func skipWhitespace() {
        while position < count {
            switch base[position] {
            case 0x20, 0x0A, 0x0D, 0x09: position += 1
            default: return
            }
        }
    }

    mutating func expect(_ byte: UInt8, _ what: String) throws(CodecError) {
        skipWhitespace()
        guard position < count, base[position] == byte else {
            throw fail("expected \(what)\(found())")
        }
        position += 1
    }

    func found() -> String {
        guard position < count else { return " but the text ended" }
        let c = base[position]
        return c >= 0x20 && c < 0x7F ? " but found '\(Character(Unicode.Scalar(c)))'" : " but found byte 0x\(String(c, radix: 16))"
    }

    /// After the whole value: only white space may follow.
    mutating func expectEnd() throws(CodecError) {
        skipWhitespace()
        if position < count { throw fail("expected the end of the text\(found())") }
    }

    // MARK: Objects

    mutating func beginObject() throws(CodecError) { try expect(UInt8(ascii: "{"), "'{'") }

    /// The next key of an object (after its colon), or `nil` at the closing brace.
    mutating func nextKey(first: inout Bool) throws(CodecError) -> Key? {
        skipWhitespace()
        if peek() == UInt8(ascii: "}") { position += 1; return nil }
        if !first { try expect(UInt8(ascii: ","), "',' or '}'"); skipWhitespace() }
        first = false
        let key = try readStringBytes()
        try expect(UInt8(ascii: ":"), "':'")
        skipWhitespace()
        return key
    }

    /// The fast path of ``nextKey(first:)`` for lines this project wrote: when
    /// the next key is exactly `name` (after a comma unless `first`, with no
    /// white space and no escapes, as the writer puts it), consumes it and its
    /// colon (and any white space after it, as ``nextKey(first:)`` does) and
    /// returns it; otherwise consumes nothing and returns `nil`.
    @inline(__always) mutating func takeKey(_ name: StaticString, first: Bool) -> Key? {
        let n = name.utf8CodeUnitCount
        var p = position
        guard count - p >= n + (first ? 3 : 4) else { return nil }
        if !first {
            guard base[p] == UInt8(ascii: ",") else { return nil }
            p += 1
        }
        guard base[p] == UInt8(ascii: "\""), base[p + n + 1] == UInt8(ascii: "\""), base[p + n + 2] == UInt8(ascii: ":"),
              memcmp(base + p + 1, name.utf8Start, n) == 0 else { return nil }
        position = p + n + 3
        skipWhitespace()
        return Key(start: p + 1, end: p + 1 + n, escaped: false)
    }

    func keyMatches(_ key: Key, _ name: StaticString) -> Bool {
        if key.escaped { return (try? decodeString(key)) == name.description }
        let length = key.end - key.start
        guard length == name.utf8CodeUnitCount else { return false }
        return memcmp(base + key.start, name.utf8Start, length) == 0
    }

    func keyText(_ key: Key) -> String {
        (try? decodeString(key)) ?? String(decoding: UnsafeBufferPointer(start: base + key.start, count: key.end - key.start), as: UTF8.self)
    }

    // MARK: Strings

    /// Reads a string and returns where its bytes are; checks escapes and UTF-8.
    mutating func readStringBytes() throws(CodecError) -> Key {
        skipWhitespace()
        guard peek() == UInt8(ascii: "\"") else { throw fail("expected a string\(found())") }
        position += 1
        let start = position
        var escaped = false
        var ascii = true
        while true {
            // Eight plain ASCII bytes at a time: no quote, backslash, control or non-ASCII byte among them.
            while count - position >= 8 {
                let word = UnsafeRawPointer(base + position).loadUnaligned(as: UInt64.self)
                let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
                let quote = word ^ (ones &* 0x22), backslash = word ^ (ones &* 0x5C)
                let special = ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word) | word
                if special & highs != 0 { break }
                position += 8
            }
            guard position < count else { break }
            let c = base[position]
            if c == UInt8(ascii: "\"") {
                let key = Key(start: start, end: position, escaped: escaped)
                if !ascii, !escaped {
                    guard String(validating: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self) != nil else {
                        position = start
                        throw fail("a string is not valid UTF-8")
                    }
                }
                position += 1
                if escaped { _ = try decodeString(key) }
                return key
            }
            if c == UInt8(ascii: "\\") {
                escaped = true
                position += 2
                continue
            }
            if c < 0x20 { throw fail("a control character (byte 0x\(String(c, radix: 16))) must be escaped inside a string") }
            if c >= 0x80 { ascii = false }
            position += 1
        }
        position = count
        throw fail("a string is not closed")
    }

    /// The text of a plain (unescaped) string, without checking UTF-8 again.
    func plainString(_ key: Key) -> String {
        String(decoding: UnsafeBufferPointer(start: base + key.start, count: key.end - key.start), as: UTF8.self)
    }

    mutating func readString() throws(CodecError) -> String {
        let key = try readStringBytes()
        return key.escaped ? try decodeString(key) : plainString(key)
    }

    /// The text of a string whose bytes were found by ``readStringBytes()``.
    func decodeString(_ key: Key) throws(CodecError) -> String {
        let raw = UnsafeBufferPointer(start: base + key.start, count: key.end - key.start)
        if !key.escaped {
            guard let text = String(validating: raw, as: UTF8.self) else {
                throw CodecError(.malformedJSON, "a string is not valid UTF-8", offset: key.start)
            }
            return text
        }
        var out: [UInt8] = []
        out.reserveCapacity(raw.count)
        var i = 0
        func bad(_ detail: String) -> CodecError { CodecError(.malformedJSON, detail, offset: key.start + i) }
        func hex4(_ at: Int) throws(CodecError) -> UInt32 {
            guard at + 4 <= raw.count else { throw bad("a \\u escape needs four hex digits") }
            var v: UInt32 = 0
            for j in at..<(at + 4) {
                guard let d = UUIDText.hexValue(raw[j]) else { throw bad("a \\u escape needs four hex digits") }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < raw.count {
            let c = raw[i]
            guard c == UInt8(ascii: "\\") else { out.append(c); i += 1; continue }
            guard i + 1 < raw.count else { throw bad("a string ends inside an escape") }
            switch raw[i + 1] {
            case UInt8(ascii: "\""): out.append(0x22)
            case UInt8(ascii: "\\"): out.append(0x5C)
            case UInt8(ascii: "/"): out.append(0x2F)
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4(i + 2)
                i += 6
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < raw.count, raw[i] == UInt8(ascii: "\\"), raw[i + 1] == UInt8(ascii: "u") else {
                        throw bad("a high surrogate \\u escape must be followed by a low surrogate")
                    }
                    let low = try hex4(i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else { throw bad("a high surrogate is followed by \\u\(String(low, radix: 16)), not a low surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    i += 6
                } else if (0xDC00...0xDFFF).contains(scalar) {
                    throw bad("a low surrogate \\u escape stands alone")
                }
                guard let u = Unicode.Scalar(scalar) else { throw bad("\\u escape is not a Unicode scalar") }
                out.append(contentsOf: String(u).utf8)   // a scalar's UTF-8, four bytes at most: no allocation
                continue
            default:
                throw bad("unknown escape \\\(Character(Unicode.Scalar(raw[i + 1])))")
            }
            i += 2
        }
        guard let text = String(validating: out, as: UTF8.self) else {
            throw CodecError(.malformedJSON, "a string is not valid UTF-8", offset: key.start)
        }
        return text
    }

    // MARK: Numbers and literals

    /// A quantity (docs/COMMANDS.md, "Values"): a plain JSON number with no sign and no
    /// exponent and at most three fraction digits (`2`, `1.5`, `0.125`).
    /// `wholeOnly`: version 1's, a plain integer.
    mutating func readQuantity(wholeOnly: Bool = false) throws(CodecError) -> Quantity {
        if wholeOnly { return Quantity(try readInt()) }
        skipWhitespace()
        let start = position
        func digit() -> Int? {
            guard let c = peek(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") else { return nil }
            return Int(c &- UInt8(ascii: "0"))
        }
        var negative = false
        if peek() == UInt8(ascii: "-") { negative = true; position += 1 }
        guard let first = digit() else {
            position = start
            throw fail(.invalidQuantity, "expected a quantity, a plain number such as 2 or 1.5\(found())")
        }
        var whole = 0, digits = 0
        while let d = digit() {
            guard digits < 15 else { position = start; throw fail(.invalidQuantity, "a quantity has at most 15 whole digits") }
            whole = whole * 10 + d
            digits += 1
            position += 1
        }
        if first == 0, digits > 1 { position = start; throw fail("a number has a leading zero") }
        var thousandths = whole * 1000
        if peek() == UInt8(ascii: ".") {
            position += 1
            var scale = 100, fractionDigits = 0
            while let d = digit() {
                guard fractionDigits < 3 else { position = start; throw fail(.invalidQuantity, "a quantity has at most three fraction digits") }
                thousandths += d * scale
                scale /= 10
                fractionDigits += 1
                position += 1
            }
            guard fractionDigits > 0 else { position = start; throw fail("a number's \".\" is followed by a digit") }
        }
        if let c = peek(), c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            position = start
            throw fail(.invalidQuantity, "a quantity is a plain number (no exponent)")
        }
        return Quantity(thousandths: negative ? -thousandths : thousandths)
    }

    /// A plain JSON integer: optional minus, digits, no leading zero, no fraction or exponent.
    mutating func readInt() throws(CodecError) -> Int {
        skipWhitespace()
        let start = position
        var negative = false
        if peek() == UInt8(ascii: "-") { negative = true; position += 1 }
        guard let first = peek(), first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") else {
            position = start
            throw fail(.invalidField, "expected an integer\(found())")
        }
        var value = 0
        var digits = 0
        while let c = peek(), c >= UInt8(ascii: "0"), c <= UInt8(ascii: "9") {
            let d = Int(c &- UInt8(ascii: "0"))
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = negative ? m.subtractingReportingOverflow(d) : m.addingReportingOverflow(d)
            if o1 || o2 { position = start; throw fail(.invalidField, "an integer does not fit in 64 bits") }
            value = s
            digits += 1
            position += 1
        }
        if first == UInt8(ascii: "0"), digits > 1 { position = start; throw fail("a number has a leading zero") }
        if let c = peek(), c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E") {
            position = start
            throw fail(.invalidField, "expected a plain integer (no fraction, no exponent)")
        }
        return value
    }

    /// Any JSON number, as a Double.
    mutating func readDouble() throws(CodecError) -> Double {
        skipWhitespace()
        let start = position
        try skipNumber()
        let text = String(decoding: UnsafeBufferPointer(start: base + start, count: position - start), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            position = start
            throw fail(.invalidField, "number \(text) is out of range")
        }
        return value
    }

    mutating func skipNumber() throws(CodecError) {
        let start = position
        if peek() == UInt8(ascii: "-") { position += 1 }
        func isDigit(_ c: UInt8?) -> Bool { c.map { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } ?? false }
        guard isDigit(peek()) else { position = start; throw fail(.invalidField, "expected a number\(found())") }
        if peek() == UInt8(ascii: "0") {
            position += 1
            if isDigit(peek()) { throw fail("a number has a leading zero") }
        } else {
            while isDigit(peek()) { position += 1 }
        }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard isDigit(peek()) else { throw fail("a fraction needs digits") }
            while isDigit(peek()) { position += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard isDigit(peek()) else { throw fail("an exponent needs digits") }
            while isDigit(peek()) { position += 1 }
        }
    }

    mutating func readLiteral(_ word: StaticString) -> Bool {
        let n = word.utf8CodeUnitCount
        guard count - position >= n, memcmp(base + position, word.utf8Start, n) == 0 else { return false }
        position += n
        return true
    }

    mutating func readBool() throws(CodecError) -> Bool {
        skipWhitespace()
        if readLiteral("true") { return true }
        if readLiteral("false") { return false }
        throw fail(.invalidField, "expected true or false\(found())")
    }

    /// Consumes `null` if it is next.
    mutating func readNull() -> Bool {
        skipWhitespace()
        return readLiteral("null")
    }

    // MARK: Any value

    /// Checks and passes over one value of any type.
    mutating func skipValue(depth: Int = 0) throws(CodecError) {
        guard depth < JSONScanner.maxDepth else { throw fail("nesting is deeper than \(JSONScanner.maxDepth) levels") }
        skipWhitespace()
        guard let c = peek() else { throw fail("expected a value but the text ended") }
        switch c {
        case UInt8(ascii: "\""): _ = try readStringBytes()
        case UInt8(ascii: "{"):
            position += 1
            var first = true
            while try nextKey(first: &first) != nil { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            position += 1
            var first = true
            while try nextElement(first: &first) { try skipValue(depth: depth + 1) }
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try readBool()
        case UInt8(ascii: "n"):
            guard readNull() else { throw fail("expected a value\(found())") }
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try skipNumber()
        default: throw fail("expected a value\(found())")
        }
    }

    /// In an array after its `[`: whether another element follows (positioned at it).
    mutating func nextElement(first: inout Bool) throws(CodecError) -> Bool {
        skipWhitespace()
        if peek() == UInt8(ascii: "]") { position += 1; return false }
        if !first { try expect(UInt8(ascii: ","), "',' or ']'") }
        first = false
        skipWhitespace()
        return true
    }

    // MARK: Domain values

    /// A string of exactly `length` characters at the position, read where it
    /// lies by `parse` — which must accept only characters that need no
    /// escaping (digits, letters, `-`, `:`, `.`), so that the quote after them
    /// ends the string. `nil`, the position unchanged, for anything else: the
    /// caller then reads the string the general way.
    @inline(__always)
    mutating func readPlain<T>(_ length: Int, _ parse: (UnsafeBufferPointer<UInt8>) -> T?) -> T? {
        guard count - position >= length + 2, base[position] == UInt8(ascii: "\""), base[position + length + 1] == UInt8(ascii: "\""),
              let value = parse(UnsafeBufferPointer(start: base + position + 1, count: length)) else { return nil }
        position += length + 2
        return value
    }

    mutating func readUUID(_ field: String) throws(CodecError) -> UUID {
        if let uuid = readPlain(36, UUIDText.parse) { return uuid }
        let start = position
        let key = try readStringBytes()
        if !key.escaped, let uuid = UUIDText.parse(UnsafeBufferPointer(start: base + key.start, count: key.end - key.start)) {
            return uuid
        }
        if key.escaped, let uuid = UUIDText.parse(Array(try decodeString(key).utf8)) { return uuid }
        position = start
        throw fail(.invalidField, "\(field) is not a UUID")
    }

    mutating func readTimestamp(_ field: String) throws(CodecError) -> Timestamp {
        if let t = readPlain(24, Timestamp.parse) { return t }
        let start = position
        let key = try readStringBytes()
        if !key.escaped, let t = Timestamp.parse(UnsafeBufferPointer(start: base + key.start, count: key.end - key.start)) {
            return t
        }
        position = start
        throw fail(.invalidField, "\(field) is not a time of the form YYYY-MM-DDTHH:MM:SS.mmmZ")
    }
}
