import Foundation

/// A JSON document with its object keys in order: what view output and
/// ShoppingList17 archives are made of. Parsed by the same strict byte-level
/// reader as journal lines; written compactly or indented.
///
/// ```swift
/// let value: JSONValue = .object([("view", "lists"), ("asOf", 42)])
/// print(value.text())                       // {"view":"lists","asOf":42}
/// let back = try JSONValue.parse(Array(value.text().utf8))
/// ```
public enum JSONValue: Hashable, Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByNilLiteral {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    /// Keys in the order they were written.
    case object([(String, JSONValue)])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(nilLiteral: ()) { self = .null }

    /// `.string(text)`, or `.null` for `nil`.
    public static func optional(_ text: String?) -> JSONValue { text.map(JSONValue.string) ?? .null }
    public static func optional(_ number: Int?) -> JSONValue { number.map(JSONValue.int) ?? .null }
    /// A quantity as a JSON number: a whole one as an integer (`2`, as
    /// before decimals), another as its decimal (`1.5`). Kept as a `Double`
    /// only to be written: a quantity has at most three fraction digits and
    /// any total of them far fewer than 15 significant digits, so the
    /// shortest text of that `Double` is the decimal itself.
    public static func quantity(_ quantity: Quantity) -> JSONValue {
        quantity.whole.map(JSONValue.int) ?? .double(Double(quantity.thousandths) / 1000)
    }

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case let .bool(b): hasher.combine(b)
        case let .int(i): hasher.combine(i)
        case let .double(d): hasher.combine(d)
        case let .string(s): hasher.combine(s)
        case let .array(a): hasher.combine(a)
        case let .object(o): for (k, v) in o { hasher.combine(k); hasher.combine(v) }
        }
    }

    /// The value of `key` in an object, `nil` otherwise.
    public subscript(key: String) -> JSONValue? {
        guard case let .object(pairs) = self else { return nil }
        return pairs.first { $0.0 == key }?.1
    }

    public var stringValue: String? { if case let .string(s) = self { s } else { nil } }
    public var intValue: Int? { if case let .int(i) = self { i } else { nil } }
    public var boolValue: Bool? { if case let .bool(b) = self { b } else { nil } }
    public var arrayValue: [JSONValue]? { if case let .array(a) = self { a } else { nil } }
    /// A number as a Double, whether written as an integer or not.
    public var doubleValue: Double? {
        switch self {
        case let .double(d): return d
        case let .int(i): return Double(i)
        default: return nil
        }
    }

    // MARK: Parsing

    /// Parses one JSON text; errors carry the byte offset.
    public static func parse(_ bytes: [UInt8]) throws(CodecError) -> JSONValue {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                var scanner = JSONScanner(raw)
                let value = try parseValue(&scanner, depth: 0)
                try scanner.expectEnd()
                return value
            }
        }.get()
    }

    static func parseValue(_ s: inout JSONScanner, depth: Int) throws(CodecError) -> JSONValue {
        guard depth < JSONScanner.maxDepth else { throw s.fail("nesting is deeper than \(JSONScanner.maxDepth) levels") }
        s.skipWhitespace()
        guard let c = s.peek() else { throw s.fail("expected a value but the text ended") }
        switch c {
        case UInt8(ascii: "\""): return .string(try s.readString())
        case UInt8(ascii: "{"):
            try s.beginObject()
            var pairs: [(String, JSONValue)] = []
            var first = true
            while let key = try s.nextKey(first: &first) {
                pairs.append((try s.decodeString(key), try parseValue(&s, depth: depth + 1)))
            }
            return .object(pairs)
        case UInt8(ascii: "["):
            s.position += 1
            var elements: [JSONValue] = []
            var first = true
            while try s.nextElement(first: &first) { elements.append(try parseValue(&s, depth: depth + 1)) }
            return .array(elements)
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool(try s.readBool())
        case UInt8(ascii: "n"):
            guard s.readNull() else { throw s.fail("expected a value\(s.found())") }
            return .null
        default:
            let start = s.position
            try s.skipNumber()
            let isInteger = !UnsafeBufferPointer(start: s.base + start, count: s.position - start)
                .contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
            s.position = start
            if isInteger, let integer = try? s.readInt() { return .int(integer) }
            s.position = start
            return .double(try s.readDouble())
        }
    }

    // MARK: Writing

    /// Compact JSON, or indented by two spaces with `pretty`.
    public func text(pretty: Bool = false) -> String { String(decoding: utf8(pretty: pretty), as: UTF8.self) }

    /// ``text(pretty:)`` as UTF-8 bytes, without the copy a `String` makes,
    /// and `terminator` after it: for writing a large value out.
    public func utf8(pretty: Bool = false, terminator: UInt8? = nil) -> [UInt8] {
        var writer = JSONWriter()
        write(to: &writer, indent: pretty ? 0 : nil)
        if let terminator { writer.append(terminator) }
        return writer.takeBytes()
    }

    /// Indented by two spaces as if it stood `level` deep inside other
    /// values (its first line not indented): the pieces of a large value
    /// written one by one come out exactly as ``text(pretty:)`` of the whole.
    public func text(indentedAt level: Int) -> String {
        var writer = JSONWriter()
        write(to: &writer, indent: level)
        return String(decoding: writer.takeBytes(), as: UTF8.self)
    }

    /// ``text(indentedAt:)``'s bytes appended to `bytes`.
    public func write(to bytes: inout [UInt8], indentedAt level: Int) {
        // Written apart and appended: writing on at the end of `bytes` would make the writer's spare room
        // (which it keeps initialised) anew at each call, as long as all that came before.
        var writer = JSONWriter()
        write(to: &writer, indent: level)
        writer.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// ``utf8(pretty:terminator:)`` handed to `sink` in pieces of about
    /// `piece` bytes (cut between array elements) as they are written: a
    /// large value goes out without its whole text ever in memory, and the
    /// pieces joined are exactly ``utf8(pretty:terminator:)``.
    ///
    /// ```swift
    /// var out: [UInt8] = []
    /// JSONValue.array([1, 2, 3]).write(pretty: true, inPiecesOf: 4) { out += $0 }
    /// ```
    public func write(pretty: Bool = false, terminator: UInt8? = nil, inPiecesOf piece: Int = 1 << 16, to sink: ([UInt8]) -> Void) {
        var writer = JSONWriter()
        withoutActuallyEscaping(sink) { sink in
            write(to: &writer, indent: pretty ? 0 : nil) { w in
                guard w.count >= piece else { return }
                sink(w.bytes)
                w.removeAll()
            }
        }
        if let terminator { writer.append(terminator) }
        if !writer.isEmpty { sink(writer.takeBytes()) }
    }

    /// Writes the value; `spill`, if given, is called between array elements
    /// to hand out what is written so far.
    func write(to w: inout JSONWriter, indent: Int?, spill: ((inout JSONWriter) -> Void)? = nil) {
        func newline(_ level: Int) {
            guard indent != nil else { return }
            w.append(0x0A)
            w.spaces(level * 2)
        }
        let level = indent ?? 0
        switch self {
        case .null: w.null()
        case let .bool(b): w.bool(b)
        case let .int(i): w.int(i)
        case let .double(d): d.isFinite ? w.double(d) : w.null()
        case let .string(s): w.string(s)
        case let .array(elements):
            w.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { w.append(UInt8(ascii: ",")) }
                newline(level + 1)
                element.write(to: &w, indent: indent.map { _ in level + 1 }, spill: spill)
                spill?(&w)
            }
            if !elements.isEmpty { newline(level) }
            w.append(UInt8(ascii: "]"))
        case let .object(pairs):
            w.append(UInt8(ascii: "{"))
            for (index, (key, value)) in pairs.enumerated() {
                if index > 0 { w.append(UInt8(ascii: ",")) }
                newline(level + 1)
                w.string(key)
                w.append(UInt8(ascii: ":"))
                if indent != nil { w.append(UInt8(ascii: " ")) }
                value.write(to: &w, indent: indent.map { _ in level + 1 }, spill: spill)
            }
            if !pairs.isEmpty { newline(level) }
            w.append(UInt8(ascii: "}"))
        }
    }
}
