import Foundation

/// The optional details of an item. ``Event/itemDetailsChanged(item:details:)``
/// carries the complete new set: a `nil` field is cleared.
///
/// ```swift
/// let details = ItemDetails(category: "Dairy", unitPrice: 129)
/// ```
public struct ItemDetails: Hashable, Sendable {
    public var category: String?
    public var notes: String?
    /// A reference to a photo: a file name or URL, never the bytes.
    public var photo: String?
    /// Price per unit in minor units of the household currency (249 = 2.49).
    public var unitPrice: Int?
    /// How many go on a list when `AddItemToList` gives no quantity (1 when
    /// absent): what ShoppingList17 keeps as the quantity of an item that is
    /// not on the list. Key `quantity` in the data; journals written before it
    /// have none, and readers that do not know it skip it.
    public var quantity: Quantity? {
        get { storedQuantity == Self.noQuantity ? nil : Quantity(thousandths: Int(storedQuantity)) }
        set { storedQuantity = newValue.map { Int32(clamping: Swift.max($0.thousandths, Int(Self.noQuantity) + 1)) } ?? Self.noQuantity }
    }

    /// Kept in thousandths in the four bytes after `unitPrice` (`Int32.min` for none), so
    /// that the details, and with them ``Event``, take no more room than
    /// before: every event of a replay is moved at that size. A quantity
    /// beyond the range of 32 bits is kept as the nearest end, which the rules
    /// refuse as they would the value itself.
    private var storedQuantity = ItemDetails.noQuantity
    private static let noQuantity = Int32.min

    /// What a quantity counts (docs/COMMANDS.md, "Values"): `kg`, `l`, `pack`, 1 to 16
    /// characters; `nil` for pieces. Version 2 of the item's events.
    public var unit: String? {
        get { more?.unit }
        set { more = Self.more(unit: newValue, barcode: barcode) }
    }
    /// The digits of the item's EAN-8, UPC-A or EAN-13 (``Barcode``). Version 2 of the item's events.
    public var barcode: String? {
        get { more?.barcode }
        set { more = Self.more(unit: unit, barcode: newValue) }
    }

    /// Unit and barcode, which most items have neither of, behind one
    /// reference: the details (and with them ``Event``) grow by 8 bytes, not 32.
    private final class More: Sendable {
        let unit: String?, barcode: String?
        init(unit: String?, barcode: String?) { self.unit = unit; self.barcode = barcode }
    }
    private var more: More?
    private static func more(unit: String?, barcode: String?) -> More? {
        unit == nil && barcode == nil ? nil : More(unit: unit, barcode: barcode)
    }

    public init(category: String? = nil, notes: String? = nil, unitPrice: Int? = nil, photo: String? = nil, quantity: Quantity? = nil,
                unit: String? = nil, barcode: String? = nil) {
        self.category = category; self.notes = notes; self.unitPrice = unitPrice; self.photo = photo
        self.quantity = quantity
        more = Self.more(unit: unit, barcode: barcode)
    }

    public static func == (a: ItemDetails, b: ItemDetails) -> Bool {
        a.category == b.category && a.notes == b.notes && a.photo == b.photo && a.unitPrice == b.unitPrice
            && a.storedQuantity == b.storedQuantity && a.unit == b.unit && a.barcode == b.barcode
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(category); hasher.combine(notes); hasher.combine(photo); hasher.combine(unitPrice)
        hasher.combine(storedQuantity); hasher.combine(unit); hasher.combine(barcode)
    }

    public static let none = ItemDetails()
}

extension ItemDetails: Codable {
    // The journal's keys, in its order; `storedQuantity` is `quantity`.
    private enum CodingKeys: String, CodingKey { case category, notes, unitPrice, photo, quantity, unit, barcode }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(category: try c.decodeIfPresent(String.self, forKey: .category), notes: try c.decodeIfPresent(String.self, forKey: .notes),
                  unitPrice: try c.decodeIfPresent(Int.self, forKey: .unitPrice), photo: try c.decodeIfPresent(String.self, forKey: .photo),
                  quantity: try c.decodeIfPresent(Quantity.self, forKey: .quantity),
                  unit: try c.decodeIfPresent(String.self, forKey: .unit), barcode: try c.decodeIfPresent(String.self, forKey: .barcode))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(category, forKey: .category)
        try c.encodeIfPresent(notes, forKey: .notes)
        try c.encodeIfPresent(unitPrice, forKey: .unitPrice)
        try c.encodeIfPresent(photo, forKey: .photo)
        try c.encodeIfPresent(quantity, forKey: .quantity)
        try c.encodeIfPresent(unit, forKey: .unit)
        try c.encodeIfPresent(barcode, forKey: .barcode)
    }
}
