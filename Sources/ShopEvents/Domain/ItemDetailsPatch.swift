/// One field of a patch: leave it as it is, clear it, or give it a value.
/// In JSON (a merge patch, RFC 7396): the key left out, `null`, or the value.
///
/// ```swift
/// let price: FieldPatch<Int> = .set(249)
/// print(price.applied(to: 199), FieldPatch<Int>.keep.applied(to: 199), FieldPatch<Int>.clear.applied(to: 199))
/// // Optional(249) Optional(199) nil
/// ```
public enum FieldPatch<Value: Hashable & Sendable>: Hashable, Sendable {
    /// The field keeps its value (the key is absent).
    case keep
    /// The field is cleared (`null`).
    case clear
    /// The field takes this value.
    case set(Value)

    /// The field's value after the patch, over `value`.
    public func applied(to value: Value?) -> Value? {
        switch self {
        case .keep: value
        case .clear: nil
        case let .set(new): new
        }
    }

    /// ``applied(to:)``, a value set first checked (and cleaned) by `check`.
    func applied(to value: Value?, checking check: (Value) throws(RuleViolation) -> Value?) throws(RuleViolation) -> Value? {
        switch self {
        case .keep: value
        case .clear: nil
        case let .set(new): try check(new)
        }
    }
}

/// What a ``Command/changeItemDetails(item:patch:)`` changes of an item's
/// details (docs/COMMANDS.md, "Items"): a field left as ``FieldPatch/keep`` keeps its
/// value, ``FieldPatch/clear`` clears it, ``FieldPatch/set(_:)`` gives it a
/// new one, checked as ``ItemDetails`` are when an item is created. In a JSON
/// command it is a merge patch: `{"item":"Milk","notes":"x"}` changes only
/// the notes, `"unitPrice":null` clears the price. The
/// ``Event/itemDetailsChanged(item:details:)`` it makes carries the complete
/// new set, so every journal folds as before.
///
/// ```swift
/// // Milk's notes become "organic", its price goes; category, unit, barcode… stay.
/// try journal.execute(.changeItemDetails(item: milk, patch: ItemDetailsPatch(notes: .set("organic"), unitPrice: .clear)))
/// // The whole set replaced, as a ChangeItemDetails did before v4:
/// try journal.execute(.changeItemDetails(item: milk, patch: ItemDetailsPatch(replacingWith: ItemDetails(unitPrice: 129))))
/// ```
public struct ItemDetailsPatch: Hashable, Sendable {
    public var category: FieldPatch<String>
    public var notes: FieldPatch<String>
    public var unitPrice: FieldPatch<Int>
    public var photo: FieldPatch<String>
    public var quantity: FieldPatch<Quantity>
    public var unit: FieldPatch<String>
    public var barcode: FieldPatch<String>

    /// A patch that changes the fields given and keeps every other.
    public init(category: FieldPatch<String> = .keep, notes: FieldPatch<String> = .keep, unitPrice: FieldPatch<Int> = .keep,
                photo: FieldPatch<String> = .keep, quantity: FieldPatch<Quantity> = .keep, unit: FieldPatch<String> = .keep,
                barcode: FieldPatch<String> = .keep) {
        self.category = category; self.notes = notes; self.unitPrice = unitPrice; self.photo = photo
        self.quantity = quantity; self.unit = unit; self.barcode = barcode
    }

    /// A patch that makes the details exactly `details`: each field set to
    /// its value, or cleared where it has none.
    public init(replacingWith details: ItemDetails) {
        func replacing<Value>(_ value: Value?) -> FieldPatch<Value> { value.map(FieldPatch.set) ?? .clear }
        self.init(category: replacing(details.category), notes: replacing(details.notes), unitPrice: replacing(details.unitPrice),
                  photo: replacing(details.photo), quantity: replacing(details.quantity), unit: replacing(details.unit),
                  barcode: replacing(details.barcode))
    }

    /// `details` with this patch applied, unchecked.
    public func applied(to details: ItemDetails) -> ItemDetails {
        ItemDetails(category: category.applied(to: details.category), notes: notes.applied(to: details.notes),
                    unitPrice: unitPrice.applied(to: details.unitPrice), photo: photo.applied(to: details.photo),
                    quantity: quantity.applied(to: details.quantity), unit: unit.applied(to: details.unit),
                    barcode: barcode.applied(to: details.barcode))
    }
}
