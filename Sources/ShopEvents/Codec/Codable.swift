import Foundation

// Codable, for apps that carry events and commands over their own HTTP API
// and servers that decode them with JSONDecoder. Every type encodes to the
// JSON the journal and `shop-replay apply` use — the same keys with the same
// values: the encoding goes through this package's own codec (one definition
// of the format), and ``JSONValue`` carries it into and out of any Encoder or
// Decoder. (Foundation's JSONEncoder on Linux does not keep the order of keys;
// for a journal line's exact bytes, use `EventLineCodec.encode`.)
//
// ```swift
// let data = try JSONEncoder().encode(recorded)               // the journal line's JSON
// let back = try JSONDecoder().decode(RecordedEvent.self, from: data)
// let request = try JSONDecoder().decode(CommandEnvelope.self, from: body)   // an apply line
// ```

/// A key of a JSON object, whatever its text.
struct JSONKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension JSONValue: Codable {
    /// Object keys keep their order: values are written into the containers
    /// themselves (Foundation's encoder keeps the order of direct writes).
    public func encode(to encoder: any Encoder) throws {
        switch self {
        case let .object(pairs):
            var container = encoder.container(keyedBy: JSONKey.self)
            for (key, value) in pairs { try value.write(into: &container, key: JSONKey(key)) }
        case let .array(values):
            var container = encoder.unkeyedContainer()
            for value in values { try value.write(into: &container) }
        case .null: var container = encoder.singleValueContainer(); try container.encodeNil()
        case let .bool(value): var container = encoder.singleValueContainer(); try container.encode(value)
        case let .int(value): var container = encoder.singleValueContainer(); try container.encode(value)
        case let .double(value): var container = encoder.singleValueContainer(); try container.encode(value)
        case let .string(value): var container = encoder.singleValueContainer(); try container.encode(value)
        }
    }

    private func write(into container: inout KeyedEncodingContainer<JSONKey>, key: JSONKey) throws {
        switch self {
        case .null: try container.encodeNil(forKey: key)
        case let .bool(value): try container.encode(value, forKey: key)
        case let .int(value): try container.encode(value, forKey: key)
        case let .double(value): try container.encode(value, forKey: key)
        case let .string(value): try container.encode(value, forKey: key)
        case let .array(values):
            var nested = container.nestedUnkeyedContainer(forKey: key)
            for value in values { try value.write(into: &nested) }
        case let .object(pairs):
            var nested = container.nestedContainer(keyedBy: JSONKey.self, forKey: key)
            for (name, value) in pairs { try value.write(into: &nested, key: JSONKey(name)) }
        }
    }

    private func write(into container: inout UnkeyedEncodingContainer) throws {
        switch self {
        case .null: try container.encodeNil()
        case let .bool(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .string(value): try container.encode(value)
        case let .array(values):
            var nested = container.nestedUnkeyedContainer()
            for value in values { try value.write(into: &nested) }
        case let .object(pairs):
            var nested = container.nestedContainer(keyedBy: JSONKey.self)
            for (name, value) in pairs { try value.write(into: &nested, key: JSONKey(name)) }
        }
    }

    public init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: JSONKey.self) {
            self = .object(try object.allKeys.map { ($0.stringValue, try object.decode(JSONValue.self, forKey: $0)) })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd { values.append(try array.decode(JSONValue.self)) }
            self = .array(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() { self = .null }
        else if let value = try? single.decode(Bool.self) { self = .bool(value) }
        else if let value = try? single.decode(Int.self) { self = .int(value) }
        else if let value = try? single.decode(Double.self) { self = .double(value) }
        else { self = .string(try single.decode(String.self)) }
    }
}

/// Encodes a value through its JSON bytes from this package's codec.
private func encodeJSON(_ bytes: [UInt8], to encoder: any Encoder) throws {
    try JSONValue.parse(bytes).encode(to: encoder)
}

/// The bytes of whatever JSON a decoder holds, for this package's codec.
private func decodeJSON<T>(_ decoder: any Decoder, _ parse: ([UInt8]) throws(CodecError) -> T) throws -> T {
    let value = try JSONValue(from: decoder)
    do {
        return try parse(Array(value.text().utf8))
    } catch {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "\(error.code): \(error.message)"))
    }
}

extension RecordedEvent: Codable {
    /// The journal line (`seq`, `id`, `type`, `v`, `at`, …, `data`, `prev`).
    public func encode(to encoder: any Encoder) throws { try encodeJSON(EventLineCodec.encode(self), to: encoder) }
    public init(from decoder: any Decoder) throws { self = try decodeJSON(decoder) { bytes throws(CodecError) in try EventLineCodec.decode(bytes) } }
}

extension CommandEnvelope: Codable {
    /// The command as `shop-replay apply` reads it: `{"type", "id"?, "actor"?, …, "data"}`.
    public func encode(to encoder: any Encoder) throws { try encodeJSON(CommandCodec.encode(self), to: encoder) }
    public init(from decoder: any Decoder) throws {
        self = try decodeJSON(decoder) { bytes throws(CodecError) in try CommandCodec.decode(bytes, ids: .random) }
    }
}

extension Command: Codable {
    /// `{"type": "AddItemToList", "data": {…}}`; ids of created things are always written.
    public func encode(to encoder: any Encoder) throws { try CommandEnvelope(self).encode(to: encoder) }
    public init(from decoder: any Decoder) throws { self = try CommandEnvelope(from: decoder).command }
}

extension Event: Codable {
    /// `{"type": "ItemPurchased", "v": 1, "data": {…}}`: the event's part of a journal line.
    public func encode(to encoder: any Encoder) throws {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", typeName)
        w.field("v", kind.currentVersion)
        w.key("data"); EventLineCodec.writeData(self, to: &w)
        w.endObject()
        try encodeJSON(w.takeBytes(), to: encoder)
    }

    public init(from decoder: any Decoder) throws {
        self = try decodeJSON(decoder) { bytes throws(CodecError) in try EventLineCodec.decodeEvent(bytes) }
    }
}

/// A value the journal writes as one string: an id, a time, a hash.
private func encodeText(_ text: String, to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(text)
}

private func decodeText<T>(_ decoder: any Decoder, _ what: String, _ parse: (String) -> T?) throws -> T {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let value = parse(text) else { throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not \(what)") }
    return value
}

extension EntityID: Codable {
    /// The UUID in upper case, as the journal writes it; any case is read.
    public func encode(to encoder: any Encoder) throws { try encodeText(description, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try decodeText(decoder, "a UUID") { EntityID($0) } }
}

extension Timestamp: Codable {
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public func encode(to encoder: any Encoder) throws { try encodeText(description, to: encoder) }
    public init(from decoder: any Decoder) throws {
        self = try decodeText(decoder, "a journal time such as 2026-03-01T18:00:00.000Z") { Timestamp($0) }
    }
}

extension SHA256Digest: Codable {
    /// 64 lowercase hex digits.
    public func encode(to encoder: any Encoder) throws { try encodeText(hex, to: encoder) }
    public init(from decoder: any Decoder) throws { self = try decodeText(decoder, "64 hex digits") { SHA256Digest(hex: $0) } }
}

extension JournalHead: Codable {
    private enum Keys: String, CodingKey { case seq, hash }

    /// `{"seq": N, "hash": HEX}`, as `verify --json` prints it.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(seq, forKey: .seq)
        try container.encode(hash, forKey: .hash)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        self.init(seq: try container.decode(Int.self, forKey: .seq), hash: try container.decode(SHA256Digest.self, forKey: .hash))
    }
}

extension Priority: Codable {}
extension Role: Codable {}

// Entities an app lists: identified by their ids (a member by its name).
extension Location: Identifiable {}
extension Item: Identifiable {}
extension ShoppingList: Identifiable {}
extension Purchase: Identifiable {}
extension Trip: Identifiable {}
extension Member: Identifiable {
    public var id: String { name }
}
