import Foundation
import ShopEvents

/// The benchmark's peer: the same journal lines decoded into the same event
/// types with Foundation's `JSONDecoder`, the way an app would do it without
/// our codec.
struct FoundationLine: Decodable {
    var recorded: RecordedEvent

    enum Keys: String, CodingKey { case seq, id, type, v, at, actor, device, command, correlation, data, prev }

    /// A key of the event's `data`: any declared one.
    struct DataKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ key: String) { stringValue = key }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    struct DecodedColor: Decodable {
        var red: Double, green: Double, blue: Double, opacity: Double
        var color: Color { Color(red: red, green: green, blue: blue, opacity: opacity) }
    }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: Keys.self)
        func time(_ text: String) throws -> Timestamp {
            guard let t = Timestamp(text) else { throw DecodingError.dataCorruptedError(forKey: .at, in: c, debugDescription: "time") }
            return t
        }
        let typeName = try c.decode(String.self, forKey: .type)
        guard let type = EventType(rawValue: typeName) else {
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown type")
        }
        let d = try c.nestedContainer(keyedBy: DataKey.self, forKey: .data)
        let event = try Self.event(type, version: try c.decode(Int.self, forKey: .v), from: d, time: time)
        guard let prev = SHA256Digest(hex: try c.decode(String.self, forKey: .prev)) else {
            throw DecodingError.dataCorruptedError(forKey: .prev, in: c, debugDescription: "prev")
        }
        recorded = RecordedEvent(seq: try c.decode(Int.self, forKey: .seq), id: EventID(try c.decode(UUID.self, forKey: .id)),
                                 at: try time(try c.decode(String.self, forKey: .at)), actor: try c.decode(String.self, forKey: .actor),
                                 device: try c.decodeIfPresent(String.self, forKey: .device), command: CommandID(try c.decode(UUID.self, forKey: .command)),
                                 correlation: try c.decodeIfPresent(UUID.self, forKey: .correlation).map(CorrelationID.init),
                                 event: event, prev: prev)
    }

    /// The event of `type` from the line's `data`: each field its declaration
    /// names decoded by its kind (`time` reads a timestamp), the event made
    /// from those values (``Event/init(_:version:values:)``).
    private static func event(_ type: EventType, version: Int, from d: KeyedDecodingContainer<DataKey>,
                              time: (String) throws -> Timestamp) throws -> Event {
        var values: [String: EventDeclaration.Value] = [:]
        for field in type.declaration.fields(at: version) {
            let key = DataKey(field.key)
            guard d.contains(key), try !d.decodeNil(forKey: key) else { continue }
            values[field.key] = try value(field.kind, d, key, time)
        }
        return try Event(type, version: version, values: values)
    }

    /// One field's value, decoded as its kind says.
    private static func value(_ kind: EventDeclaration.Kind, _ d: KeyedDecodingContainer<DataKey>, _ key: DataKey,
                              _ time: (String) throws -> Timestamp) throws -> EventDeclaration.Value {
        func text() throws -> String { try d.decode(String.self, forKey: key) }
        func named<T: RawRepresentable<String>>(_: T.Type) throws -> T {
            guard let value = T(rawValue: try text()) else { throw DecodingError.dataCorruptedError(forKey: key, in: d, debugDescription: kind.rawValue) }
            return value
        }
        switch kind {
        case .id: return .id(try d.decode(UUID.self, forKey: key))
        case .ids: return .ids(try d.decode([UUID].self, forKey: key))
        case .text: return .text(try text())
        case .number: return .number(try d.decode(Int.self, forKey: key))
        case .numbers: return .numbers(try d.decode([Int].self, forKey: key))
        case .flag: return .flag(try d.decode(Bool.self, forKey: key))
        case .quantity: return .quantity(try d.decode(Quantity.self, forKey: key))
        case .time: return .time(try time(try text()))
        case .priority: return .priority(try named(Priority.self))
        case .role: return .role(try named(Role.self))
        case .color: return .color(try d.decode(DecodedColor.self, forKey: key).color)
        }
    }
}
