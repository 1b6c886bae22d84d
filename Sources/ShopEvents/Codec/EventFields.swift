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
        case let .storeLocationsReordered(store, order): v.field("store", store); v.field("order", order)
        case let .tripPaused(trip), let .tripResumed(trip), let .tripEnded(trip): v.field("trip", trip)
        case let .memberAdded(member, role), let .memberRoleChanged(member, role):
            v.field("member", member); v.field("role", role)
        case let .memberRemoved(member): v.field("member", member)
        }
    }
}

// The reader, beside the writer above: one line each per type, in the same order
// of fields (EventDeclarationTests holds both to the declaration).
extension EventData {
    /// The event of `type` at its current version from these fields; a required field that is absent is an error.
    func event(_ type: EventType) throws(CodecError) -> Event {
        switch type {
        case .householdCreated:
            return .householdCreated(household: try id(household, "household"), name: try need(name, "name"),
                                     currency: try need(currency, "currency"), timeZone: try need(timeZone, "timeZone"))
        case .locationCreated:
            return .locationCreated(location: try id(location, "location"), name: try need(name, "name"),
                                    position: try need(position, "position"), color: try need(color, "color"))
        case .locationRenamed: return .locationRenamed(location: try id(location, "location"), name: try need(name, "name"))
        case .locationRecolored: return .locationRecolored(location: try id(location, "location"), color: try need(color, "color"))
        case .locationsReordered:
            return .locationsReordered(order: try need(order, "order").map(LocationID.init), positions: positions, unknownAlias: unknownAlias.map(LocationID.init))
        case .locationDeleted: return .locationDeleted(location: try id(location, "location"))
        case .itemCreated:
            return .itemCreated(item: try id(item, "item"), name: try need(name, "name"), location: try id(location, "location"), details: details)
        case .itemRenamed: return .itemRenamed(item: try id(item, "item"), name: try need(name, "name"))
        case .itemDetailsChanged: return .itemDetailsChanged(item: try id(item, "item"), details: details)
        case .itemRelocated: return .itemRelocated(item: try id(item, "item"), location: try id(location, "location"))
        case .itemAvailabilityChanged:
            return .itemAvailabilityChanged(item: try id(item, "item"), available: try need(available, "available"))
        case .itemDeleted: return .itemDeleted(item: try id(item, "item"))
        case .listCreated: return .listCreated(list: try id(list, "list"), name: try need(name, "name"), priority: try need(priority, "priority"))
        case .listRenamed: return .listRenamed(list: try id(list, "list"), name: try need(name, "name"))
        case .listPriorityChanged: return .listPriorityChanged(list: try id(list, "list"), priority: try need(priority, "priority"))
        case .listDeleted: return .listDeleted(list: try id(list, "list"))
        case .listRestored: return .listRestored(list: try id(list, "list"))
        case .listPurged: return .listPurged(list: try id(list, "list"))
        case .itemAddedToList:
            return .itemAddedToList(list: try id(list, "list"), item: try id(item, "item"), quantity: try need(quantity, "quantity"))
        case .listEntryQuantityChanged:
            return .listEntryQuantityChanged(list: try id(list, "list"), item: try id(item, "item"), quantity: try need(quantity, "quantity"))
        case .itemRemovedFromList: return .itemRemovedFromList(list: try id(list, "list"), item: try id(item, "item"))
        case .listReordered: return .listReordered(list: try id(list, "list"), order: try need(order, "order").map(ItemID.init))
        case .listEntryAssigned: return .listEntryAssigned(list: try id(list, "list"), item: try id(item, "item"), member: member)
        case .itemPurchased:
            return .itemPurchased(purchase: try id(purchase, "purchase"), item: try id(item, "item"), list: list.map(ListID.init),
                                  quantity: try need(quantity, "quantity"), unitPrice: unitPrice,
                                  location: try id(location, "location"), purchasedAt: purchasedAt, store: store.map(StoreID.init))
        case .purchaseReverted: return .purchaseReverted(purchase: try id(purchase, "purchase"))
        case .boughtEntriesCleared: return .boughtEntriesCleared(list: try id(list, "list"))
        case .tripStarted: return .tripStarted(trip: try id(trip, "trip"), list: list.map(ListID.init), store: store.map(StoreID.init))
        case .storeCreated: return .storeCreated(store: try id(store, "store"), name: try need(name, "name"))
        case .storeRenamed: return .storeRenamed(store: try id(store, "store"), name: try need(name, "name"))
        case .storeDeleted: return .storeDeleted(store: try id(store, "store"))
        case .storeLocationsReordered:
            return .storeLocationsReordered(store: try id(store, "store"), order: try need(order, "order").map(LocationID.init))
        case .tripPaused: return .tripPaused(trip: try id(trip, "trip"))
        case .tripResumed: return .tripResumed(trip: try id(trip, "trip"))
        case .tripEnded: return .tripEnded(trip: try id(trip, "trip"))
        case .memberAdded: return .memberAdded(member: try need(member, "member"), role: try need(role, "role"))
        case .memberRoleChanged: return .memberRoleChanged(member: try need(member, "member"), role: try need(role, "role"))
        case .memberRemoved: return .memberRemoved(member: try need(member, "member"))
        }
    }
}

extension Event {
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

extension Event {
    /// The id the event's data holds under `key` (`"item"`, `"list"`,
    /// `"location"`, …), if the type declares that field and it has a value:
    /// what a view needs to know which things an event names, without a
    /// switch over every type.
    ///
    /// ```swift
    /// let renamed = Event.itemRenamed(item: milk, name: "Oat milk")
    /// print(renamed.id(forKey: "item") == milk.uuid, renamed.id(forKey: "list") as Any)   // true nil
    /// ```
    public func id(forKey key: String) -> UUID? {
        var finder = FieldFinder(key: key)
        visitFields(&finder)
        return finder.id
    }

    /// The text the event's data holds under `key` (`"member"`, `"name"`, …), if it has one.
    public func text(forKey key: String) -> String? {
        var finder = FieldFinder(key: key)
        visitFields(&finder)
        return finder.text
    }

    /// Every id field of the event that has a value, with its key, in the writer's order.
    public var ids: [(key: String, id: UUID)] {
        var finder = FieldFinder(key: nil)
        visitFields(&finder)
        return finder.all
    }
}

/// The value of one field of an event, by its key; or (no key) every id with its key.
private struct FieldFinder: EventFieldVisitor {
    let key: String?
    var id: UUID?
    var text: String?
    var all: [(key: String, id: UUID)] = []

    init(key: String?) { self.key = key }

    private func wanted(_ name: StaticString) -> Bool {
        guard let key else { return false }
        return name.withUTF8Buffer { $0.elementsEqual(key.utf8) }
    }

    private mutating func found(_ name: StaticString, _ value: UUID?) {
        guard let value else { return }
        if key == nil { all.append((name.description, value)) } else if wanted(name) { id = value }
    }

    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>) { found(name, value.uuid) }
    mutating func field<Kind>(_ name: StaticString, _ value: EntityID<Kind>?) { found(name, value?.uuid) }
    mutating func field(_ name: StaticString, _ value: String) { if wanted(name) { text = value } }
    mutating func field(_ name: StaticString, _ value: String?) { if wanted(name) { text = value } }
    mutating func field(_ name: StaticString, _ value: Int) {}
    mutating func field(_ name: StaticString, _ value: Int?) {}
    mutating func field(_ name: StaticString, _ value: Bool) {}
    mutating func field(_ name: StaticString, _ value: Quantity) {}
    mutating func field(_ name: StaticString, _ value: Quantity?) {}
    mutating func field(_ name: StaticString, _ value: Timestamp?) {}
    mutating func field(_ name: StaticString, _ value: Priority) {}
    mutating func field(_ name: StaticString, _ value: Role) {}
    mutating func field(_ name: StaticString, _ value: Color) {}
    mutating func field<Kind>(_ name: StaticString, _ value: [EntityID<Kind>]) {}
    mutating func field(_ name: StaticString, _ value: [Int]?) {}
}
