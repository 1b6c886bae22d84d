import Foundation

extension EventDeclaration {
    /// One data field's value as another reader read it by the field's
    /// ``EventDeclaration/Kind`` (Foundation's `JSONDecoder`, say), for
    /// ``Event/init(_:version:values:)``: such a reader needs the
    /// declarations and nothing per type.
    ///
    /// ```swift
    /// let values: [String: EventDeclaration.Value] = ["item": .id(milk.uuid), "name": .text("Oat milk")]
    /// print(try Event(.itemRenamed, version: 1, values: values))   // itemRenamed(item: …, name: "Oat milk")
    /// ```
    public enum Value: Hashable, Sendable {
        case id(UUID), ids([UUID]), text(String), number(Int), numbers([Int]), flag(Bool), quantity(Quantity)
        case time(Timestamp), priority(Priority), role(Role), color(Color)
    }
}

extension Event {
    /// The event of `type` at `version` from its data's values by key (an
    /// absent optional field left out), made by the journal's own reader
    /// (``EventData``): the same event, and the same error for a required
    /// field that is absent or a value of another kind than its declaration's.
    public init(_ type: EventType, version: Int, values: [String: EventDeclaration.Value]) throws(CodecError) {
        guard (1...type.currentVersion).contains(version) else {
            throw CodecError(.unsupportedVersion, "v \(version) of \(type.rawValue) is not supported (this version reads v1 to v\(type.currentVersion))", offset: 0)
        }
        var data = EventData()
        for (key, value) in values {
            guard let field = EventData.fieldsByKey[key] else { continue }   // a key no event declares: skipped, as in a line
            try data.set(field, value, key)
        }
        self = try data.event(type, version: version)
    }
}

extension EventData {
    /// Every declared key's field.
    static let fieldsByKey: [String: Field] = Dictionary(uniqueKeysWithValues: keysByLength.joined().map {
        (String(decoding: $0.bytes, as: UTF8.self), $0.field)
    })

    /// No field read yet.
    init() {}

    /// Stores `value` as `field`'s, if it is of the field's kind.
    mutating func set(_ field: Field, _ value: EventDeclaration.Value, _ key: String) throws(CodecError) {
        seen |= field.bit
        func wrong() -> CodecError { CodecError(.invalidField, "\(key) has a value of another kind: \(value)", offset: 0) }
        switch (field, value) {
        case let (.household, .id(v)): household = v
        case let (.location, .id(v)): location = v
        case let (.item, .id(v)): item = v
        case let (.list, .id(v)): list = v
        case let (.purchase, .id(v)): purchase = v
        case let (.trip, .id(v)): trip = v
        case let (.store, .id(v)): store = v
        case let (.unknownAlias, .id(v)): unknownAlias = v
        case let (.name, .text(v)): name = v
        case let (.currency, .text(v)): currency = v
        case let (.timeZone, .text(v)): timeZone = v
        case let (.category, .text(v)): category = v
        case let (.notes, .text(v)): notes = v
        case let (.photo, .text(v)): photo = v
        case let (.unit, .text(v)): unit = v
        case let (.barcode, .text(v)): barcode = v
        case let (.member, .text(v)): member = v
        case let (.position, .number(v)): position = v
        case let (.unitPrice, .number(v)): unitPrice = v
        case let (.quantity, .quantity(v)): quantity = v; quantityIsInteger = v.whole != nil
        case let (.available, .flag(v)): available = v
        case let (.priority, .priority(v)): priority = v
        case let (.role, .role(v)): role = v
        case let (.color, .color(v)): color = v
        case let (.order, .ids(v)): order = v
        case let (.positions, .numbers(v)): positions = v
        case let (.purchasedAt, .time(v)): purchasedAt = v
        default: throw wrong()
        }
    }
}
