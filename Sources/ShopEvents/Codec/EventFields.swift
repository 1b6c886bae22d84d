import Foundation

/// Receives an event's data fields: one call a declared field, in the
/// writer's order (an absent optional one too, as `nil`). The journal's
/// writer (``JSONWriter``) and the verifier's check of created ids read an
/// event through it, so that one switch says which value is which key.
protocol EventFieldVisitor: ItemDetailsVisitor {
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>)
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?)
    mutating func field(_ name: StaticString, _ value: String)
    mutating func field(_ name: StaticString, _ value: Int)
    mutating func field(_ name: StaticString, _ value: Bool)
    mutating func field(_ name: StaticString, _ value: Quantity)
    mutating func field(_ name: StaticString, _ value: Timestamp?)
    mutating func field(_ name: StaticString, _ value: Priority)
    mutating func field(_ name: StaticString, _ value: Role)
    mutating func field(_ name: StaticString, _ value: Color)
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>])
    mutating func field(_ name: StaticString, _ value: [Int]?)
}

/// Receives an item's details, field by field in the declared order: the
/// journal's writer and the snapshot's (``ShopState/encode(to:)``) write
/// them through it, so that a field added here is written by both.
protocol ItemDetailsVisitor {
    mutating func field(_ name: StaticString, _ value: String?)
    mutating func field(_ name: StaticString, _ value: Int?)
    mutating func field(_ name: StaticString, _ value: Quantity?)
}

extension ItemDetailsVisitor {
    /// An item's details: seven fields, as ``EventDeclaration`` lists them.
    mutating func details(_ value: ItemDetails) {
        field("category", value.category)
        field("notes", value.notes)
        field("unitPrice", value.unitPrice)
        field("photo", value.photo)
        field("quantity", value.quantity)
        field("unit", value.unit)
        field("barcode", value.barcode)
    }
}

extension Event {
    /// Gives the event's data fields to `v` in the writer's order: the order
    /// of the type's ``EventDeclaration``, which a test holds it to.
    func visitFields<V: EventFieldVisitor>(_ v: inout V) {
        switch self {
        case let .householdCreated(household, name, currency, timeZone):
            v.field("household", household); v.field("name", name)
            v.field("currency", currency); v.field("timeZone", timeZone)
        case let .locationCreated(location, name, position, color):
            v.field("location", location); v.field("name", name)
            v.field("position", position); v.field("color", color)
        case let .locationRenamed(location, name): v.field("location", location); v.field("name", name)
        case let .locationRecolored(location, color): v.field("location", location); v.field("color", color)
        case let .locationsReordered(order, positions, alias): v.field("order", order); v.field("positions", positions); v.field("unknownAlias", alias)
        case let .locationDeleted(location): v.field("location", location)
        case let .itemCreated(item, name, location, details):
            v.field("item", item); v.field("name", name); v.field("location", location); v.details(details)
        case let .itemRenamed(item, name): v.field("item", item); v.field("name", name)
        case let .itemDetailsChanged(item, details): v.field("item", item); v.details(details)
        case let .itemRelocated(item, location): v.field("item", item); v.field("location", location)
        case let .itemAvailabilityChanged(item, available): v.field("item", item); v.field("available", available)
        case let .itemDeleted(item): v.field("item", item)
        case let .listCreated(list, name, priority):
            v.field("list", list); v.field("name", name); v.field("priority", priority)
        case let .listRenamed(list, name): v.field("list", list); v.field("name", name)
        case let .listPriorityChanged(list, priority): v.field("list", list); v.field("priority", priority)
        case let .listDeleted(list), let .listRestored(list), let .listPurged(list), let .boughtEntriesCleared(list):
            v.field("list", list)
        case let .itemAddedToList(list, item, quantity), let .listEntryQuantityChanged(list, item, quantity):
            v.field("list", list); v.field("item", item); v.field("quantity", quantity)
        case let .itemRemovedFromList(list, item): v.field("list", list); v.field("item", item)
        case let .listReordered(list, order): v.field("list", list); v.field("order", order)
        case let .listEntryAssigned(list, item, member): v.field("list", list); v.field("item", item); v.field("member", member)
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            v.field("purchase", purchase); v.field("item", item); v.field("list", list)
            v.field("quantity", quantity); v.field("unitPrice", unitPrice); v.field("location", location)
            v.field("purchasedAt", purchasedAt); v.field("store", store)
        case let .purchaseReverted(purchase): v.field("purchase", purchase)
        case let .tripStarted(trip, list, store): v.field("trip", trip); v.field("list", list); v.field("store", store)
        case let .storeCreated(store, name), let .storeRenamed(store, name): v.field("store", store); v.field("name", name)
        case let .storeDeleted(store): v.field("store", store)
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): v.field("trip", trip)
        case let .memberAdded(member, role), let .memberRoleChanged(member, role):
            v.field("member", member); v.field("role", role)
        case let .memberRemoved(member): v.field("member", member)
        }
    }

    /// The id new to the journal the event gives, where its declaration has
    /// one (``EventDeclaration/newIDField``): the ids the verifier checks are new.
    var newID: UUID? {
        guard let index = EventDeclaration.newIDFields[kind.ordinal] else { return nil }
        return id(at: index)
    }

    /// The id of the thing the event creates and the created field's key
    /// (`item`, `list`, …), where its declaration has one (``EventDeclaration/createdField``).
    public var created: (kind: String, id: UUID)? {
        let declaration = kind.declaration
        guard let index = declaration.createdField, let id = id(at: index) else { return nil }
        return (declaration.fields[index].key, id)
    }

    /// The value of the field at `index`, if it is an id that has one.
    private func id(at index: Int) -> UUID? {
        var finder = IDFinder(index: index)
        visitFields(&finder)
        return finder.id
    }
}

extension EventDeclaration {
    /// Each type's new-id field (``newIDField``) by ordinal, for the verifier's reading thread.
    static let newIDFields: [Int?] = all.map(\.newIDField)
}

/// The id at one field index of an event, if that field is an id and has a value.
private struct IDFinder: EventFieldVisitor {
    let index: Int
    var at = 0
    var id: UUID?

    init(index: Int) { self.index = index }

    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>) { found(value.uuid) }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?) { found(value?.uuid) }
    mutating func field(_ name: StaticString, _ value: String) { at += 1 }
    mutating func field(_ name: StaticString, _ value: String?) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Int) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Int?) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Bool) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Quantity) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Quantity?) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Timestamp?) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Priority) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Role) { at += 1 }
    mutating func field(_ name: StaticString, _ value: Color) { at += 1 }
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>]) { at += 1 }
    mutating func field(_ name: StaticString, _ value: [Int]?) { at += 1 }

    private mutating func found(_ value: UUID?) {
        if at == index { id = value }
        at += 1
    }
}
