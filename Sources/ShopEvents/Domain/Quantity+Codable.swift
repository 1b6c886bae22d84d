import Foundation

/// A plain JSON number, as in the journal (`2`, `1.5`).
extension Quantity: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int.self) { self.init(whole); return }
        let number = try container.decode(Decimal.self)
        guard let quantity = Quantity("\(number)") else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "a quantity has at most three fraction digits")
        }
        self = quantity
    }
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        // description is digits, a point and at most three digits: Decimal(string:) always reads it.
        if let whole { try container.encode(whole) } else { try container.encode(Decimal(string: description)!) }
    }
}
