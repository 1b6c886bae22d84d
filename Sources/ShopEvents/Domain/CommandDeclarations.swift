import Foundation

// Every command type, said once: the event that ends it and who may issue it
// (the table), its data as the codec reads it (`read`: the declared fields
// are the keys it asks for) and writes it (`visitFields`), and the command
// that makes an event (`making(_:)`, which `verify` decides again).
// Adding a command is its case in `Command.swift` and its lines here; see
// docs/DESIGN.md, "Adding an event".

extension CommandDeclaration {
    /// The declaration of `type`.
    init(declaring type: CommandType) {
        switch type {
        case .createHousehold: self.init(type, makes: .householdCreated)
        case .createLocation: self.init(type, makes: .locationCreated)
        case .renameLocation: self.init(type, makes: .locationRenamed)
        case .recolorLocation: self.init(type, makes: .locationRecolored)
        case .reorderLocations: self.init(type, makes: .locationsReordered)
        case .deleteLocation: self.init(type, makes: .locationDeleted)
        case .createItem: self.init(type, makes: .itemCreated)
        case .renameItem: self.init(type, makes: .itemRenamed)
        case .changeItemDetails: self.init(type, makes: .itemDetailsChanged)
        case .relocateItem: self.init(type, makes: .itemRelocated)
        case .setItemAvailability: self.init(type, makes: .itemAvailabilityChanged)
        case .deleteItem: self.init(type, makes: .itemDeleted)
        case .createList: self.init(type, makes: .listCreated)
        case .renameList: self.init(type, makes: .listRenamed)
        case .setListPriority: self.init(type, makes: .listPriorityChanged)
        case .deleteList: self.init(type, makes: .listDeleted)
        case .restoreList: self.init(type, makes: .listRestored)
        case .purgeList: self.init(type, makes: .listPurged, issuer: .owner(why: "only an owner may purge a list for good"))
        case .addItemToList: self.init(type, makes: .itemAddedToList)
        case .changeQuantity: self.init(type, makes: .listEntryQuantityChanged)
        case .removeItemFromList: self.init(type, makes: .itemRemovedFromList)
        case .reorderList: self.init(type, makes: .listReordered)
        case .assignEntry: self.init(type, makes: .listEntryAssigned)
        case .purchaseItem: self.init(type, makes: .itemPurchased)
        case .revertPurchase: self.init(type, makes: .purchaseReverted)
        case .clearBought: self.init(type, makes: .boughtEntriesCleared)
        case .startTrip: self.init(type, makes: .tripStarted)
        case .pauseTrip: self.init(type, makes: .tripPaused)
        case .resumeTrip: self.init(type, makes: .tripResumed)
        case .endTrip: self.init(type, makes: .tripEnded)
        case .addMember: self.init(type, makes: .memberAdded, issuer: .owner(why: "only an owner manages members"))
        case .changeMemberRole: self.init(type, makes: .memberRoleChanged, issuer: .owner(why: "only an owner manages members"))
        case .removeMember: self.init(type, makes: .memberRemoved, issuer: .ownerOrItself)
        case .createStore: self.init(type, makes: .storeCreated)
        case .renameStore: self.init(type, makes: .storeRenamed)
        case .deleteStore: self.init(type, makes: .storeDeleted)
        case .reorderStoreLocations: self.init(type, makes: .storeLocationsReordered)
        }
    }

    /// What a data field holds, for `apply --help`: one text a key, whichever command has it.
    static func describe(key: String) -> String {
        switch key {
        case "household", "purchase", "trip": "an id (UUID)"
        case "item": "an id, the name of a live one (ignoring case), or its barcode"
        case "list": "an id, or the name of a live one (ignoring case); for RestoreList and PurgeList a deleted one's last name"
        case "location", "store": "an id, or the name of a live one (ignoring case)"
        case "order": "ids or names, first to visit first: all of them (ReorderLocations, ReorderList); some or all live locations but Unknown, each once (ReorderStoreLocations)"
        case "positions": "whole numbers, one per location in order, increasing (aisle numbers; default 1…n)"
        case "unknownAlias": "an id another app gives the Unknown Location (kept for exports)"
        case "name": "1 to 200 characters after trimming, no control characters"
        case "currency": "ISO 4217 code, e.g. EUR"
        case "timeZone": "IANA zone, e.g. Europe/Berlin"
        case "color": #"{"red":0…1,"green":0…1,"blue":0…1,"opacity":0…1}"#
        case "quantity": "0.001 to 9999, at most three fraction digits: 2, 1.5 (an item's: how many go on a list when AddItemToList gives none; else 1)"
        case "unit": "what a quantity counts: kg, l, pack; at most \(Limits.unitLength) characters, no control characters (empty or none: pieces)"
        case "barcode": "the digits of an EAN-8, UPC-A or EAN-13, check digit included; unique among live items (empty: none)"
        case "unitPrice": "minor units, 0 to 100000000 (249 = 2.49)"
        case "priority": #""low", "normal" or "high""#
        case "available": "true or false"
        case "purchasedAt": "a time, 2026-03-01T18:00:00.000Z; at most 24 hours after the command's at"
        case "category": "text, at most \(Limits.categoryLength) characters (empty: none)"
        case "notes": "text, at most \(Limits.notesLength) characters; line feeds and tabs but no other control characters (empty: none)"
        case "photo": "a file name or URL (never the picture's bytes), at most \(Limits.photoLength) characters"
        case "member": "an actor name, compared exactly"
        case "role": #""owner", "member" or "viewer""#
        default: "see docs/COMMANDS.md"
        }
    }
}

extension Command {
    /// The command of `type` from its data, read key by key: an id of a thing
    /// being created that the data does not give comes from `ids` (for a
    /// `CreateHousehold`, `household` first). The keys asked for, in order, are
    /// the type's declared fields (``CommandDeclaration/fields``).
    static func read<R: CommandDataReader>(_ type: CommandType, from d: inout R, ids: IDGenerator,
                                           household: HouseholdID?) throws(R.Failure) -> Command {
        switch type {
        case .createHousehold:
            return .createHousehold(household: try d.optionalID("household") ?? household ?? ids.make(), name: try d.string("name"),
                                    currency: try d.string("currency"), timeZone: try d.string("timeZone"))
        case .createLocation:
            return .createLocation(location: try d.optionalID("location") ?? ids.make(), name: try d.string("name"),
                                   color: try d.optionalColor("color"))
        case .renameLocation: return .renameLocation(location: try d.id("location"), name: try d.string("name"))
        case .recolorLocation: return .recolorLocation(location: try d.id("location"), color: try d.color("color"))
        case .reorderLocations: return .reorderLocations(order: try d.ids("order"), positions: try d.optionalInts("positions"),
                                                         unknownAlias: try d.optionalID("unknownAlias"))
        case .deleteLocation: return .deleteLocation(location: try d.id("location"))
        case .createItem:
            return .createItem(item: try d.optionalID("item") ?? ids.make(), name: try d.string("name"),
                               location: try d.optionalID("location"), details: try d.details())
        case .renameItem: return .renameItem(item: try d.id("item"), name: try d.string("name"))
        case .changeItemDetails: return .changeItemDetails(item: try d.id("item"), patch: try d.detailsPatch())
        case .relocateItem: return .relocateItem(item: try d.id("item"), location: try d.id("location"))
        case .setItemAvailability: return .setItemAvailability(item: try d.id("item"), available: try d.bool("available"))
        case .deleteItem: return .deleteItem(item: try d.id("item"))
        case .createList:
            return .createList(list: try d.optionalID("list") ?? ids.make(), name: try d.string("name"),
                               priority: try d.optionalPriority("priority"))
        case .renameList: return .renameList(list: try d.id("list"), name: try d.string("name"))
        case .setListPriority: return .setListPriority(list: try d.id("list"), priority: try d.priority("priority"))
        case .deleteList: return .deleteList(list: try d.id("list"))
        case .restoreList: return .restoreList(list: try d.id("list"))
        case .purgeList: return .purgeList(list: try d.id("list"))
        case .addItemToList: return .addItemToList(list: try d.id("list"), item: try d.id("item"), quantity: try d.optionalQuantity("quantity"))
        case .changeQuantity: return .changeQuantity(list: try d.id("list"), item: try d.id("item"), quantity: try d.quantity("quantity"))
        case .removeItemFromList: return .removeItemFromList(list: try d.id("list"), item: try d.id("item"))
        case .reorderList: return .reorderList(list: try d.id("list"), order: try d.ids("order"))
        case .assignEntry: return .assignEntry(list: try d.id("list"), item: try d.id("item"), member: try d.optionalString("member"))
        case .purchaseItem:
            return .purchaseItem(purchase: try d.optionalID("purchase") ?? ids.make(), item: try d.id("item"),
                                 list: try d.optionalID("list"), quantity: try d.optionalQuantity("quantity"),
                                 unitPrice: try d.optionalInt("unitPrice"), location: try d.optionalID("location"),
                                 purchasedAt: try d.optionalTimestamp("purchasedAt"), store: try d.optionalID("store"))
        case .revertPurchase: return .revertPurchase(purchase: try d.id("purchase"))
        case .clearBought: return .clearBought(list: try d.id("list"))
        case .startTrip: return .startTrip(trip: try d.optionalID("trip") ?? ids.make(), list: try d.optionalID("list"), store: try d.optionalID("store"))
        case .pauseTrip: return .pauseTrip(trip: try d.id("trip"))
        case .resumeTrip: return .resumeTrip(trip: try d.id("trip"))
        case .endTrip: return .endTrip(trip: try d.id("trip"))
        case .createStore: return .createStore(store: try d.optionalID("store") ?? ids.make(), name: try d.string("name"))
        case .renameStore: return .renameStore(store: try d.id("store"), name: try d.string("name"))
        case .deleteStore: return .deleteStore(store: try d.id("store"))
        case .reorderStoreLocations: return .reorderStoreLocations(store: try d.id("store"), order: try d.ids("order"))
        case .addMember: return .addMember(member: try d.string("member"), role: try d.role("role"))
        case .changeMemberRole: return .changeMemberRole(member: try d.string("member"), role: try d.role("role"))
        case .removeMember: return .removeMember(member: try d.string("member"))
        }
    }

    /// Gives the command's data fields to `v` in the writer's order: the
    /// declared fields' order, which a test holds it to.
    func visitFields<V: CommandFieldVisitor>(_ v: inout V) {
        switch self {
        case let .createHousehold(household, name, currency, timeZone):
            v.field("household", household); v.field("name", name); v.field("currency", currency); v.field("timeZone", timeZone)
        case let .createLocation(location, name, color): v.field("location", location); v.field("name", name); v.field("color", color)
        case let .renameLocation(location, name): v.field("location", location); v.field("name", name)
        case let .recolorLocation(location, color): v.field("location", location); v.field("color", color)
        case let .reorderLocations(order, positions, alias): v.field("order", order); v.field("positions", positions); v.field("unknownAlias", alias)
        case let .deleteLocation(location): v.field("location", location)
        case let .createItem(item, name, location, details):
            v.field("item", item); v.field("name", name); v.field("location", location); v.details(details)
        case let .renameItem(item, name): v.field("item", item); v.field("name", name)
        case let .changeItemDetails(item, patch): v.field("item", item); v.detailsPatch(patch)
        case let .relocateItem(item, location): v.field("item", item); v.field("location", location)
        case let .setItemAvailability(item, available): v.field("item", item); v.field("available", available)
        case let .deleteItem(item): v.field("item", item)
        case let .createList(list, name, priority): v.field("list", list); v.field("name", name); v.field("priority", priority)
        case let .renameList(list, name): v.field("list", list); v.field("name", name)
        case let .setListPriority(list, priority): v.field("list", list); v.field("priority", priority)
        case let .deleteList(list), let .restoreList(list), let .purgeList(list), let .clearBought(list): v.field("list", list)
        case let .addItemToList(list, item, quantity): v.field("list", list); v.field("item", item); v.field("quantity", quantity)
        case let .changeQuantity(list, item, quantity): v.field("list", list); v.field("item", item); v.field("quantity", quantity)
        case let .removeItemFromList(list, item): v.field("list", list); v.field("item", item)
        case let .reorderList(list, order): v.field("list", list); v.field("order", order)
        case let .assignEntry(list, item, member): v.field("list", list); v.field("item", item); v.field("member", member)
        case let .purchaseItem(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            v.field("purchase", purchase); v.field("item", item); v.field("list", list)
            v.field("quantity", quantity); v.field("unitPrice", unitPrice); v.field("location", location)
            v.field("purchasedAt", purchasedAt); v.field("store", store)
        case let .revertPurchase(purchase): v.field("purchase", purchase)
        case let .startTrip(trip, list, store): v.field("trip", trip); v.field("list", list); v.field("store", store)
        case let .pauseTrip(trip), let .resumeTrip(trip), let .endTrip(trip): v.field("trip", trip)
        case let .createStore(store, name), let .renameStore(store, name): v.field("store", store); v.field("name", name)
        case let .deleteStore(store): v.field("store", store)
        case let .reorderStoreLocations(store, order): v.field("store", store); v.field("order", order)
        case let .addMember(member, role), let .changeMemberRole(member, role): v.field("member", member); v.field("role", role)
        case let .removeMember(member): v.field("member", member)
        }
    }

    /// The command that makes `event` as its only (or last) event, with the
    /// event's data: what `verify` decides again to check a recorded event
    /// (``ShopDecider/check(_:_:actor:)``, which first takes the few events a
    /// command makes otherwise). Its type is ``CommandType/init(endingWith:)`` of the event's.
    /// (A function, not an initializer: its event is borrowed, not copied, once an event checked.)
    static func making(_ event: Event) -> Command {
        switch event {
        case let .householdCreated(household, name, currency, timeZone):
            return .createHousehold(household: household, name: name, currency: currency, timeZone: timeZone)
        case let .locationCreated(location, name, _, color): return .createLocation(location: location, name: name, color: color)
        case let .locationRenamed(location, name): return .renameLocation(location: location, name: name)
        case let .locationRecolored(location, color): return .recolorLocation(location: location, color: color)
        case let .locationsReordered(order, positions, alias): return .reorderLocations(order: order, positions: positions, unknownAlias: alias)
        case let .locationDeleted(location): return .deleteLocation(location: location)
        case let .itemCreated(item, name, location, details): return .createItem(item: item, name: name, location: location, details: details)
        case let .itemRenamed(item, name): return .renameItem(item: item, name: name)
        case let .itemDetailsChanged(item, details): return .changeItemDetails(item: item, patch: ItemDetailsPatch(replacingWith: details))
        case let .itemRelocated(item, location): return .relocateItem(item: item, location: location)
        case let .itemAvailabilityChanged(item, available): return .setItemAvailability(item: item, available: available)
        case let .itemDeleted(item): return .deleteItem(item: item)
        case let .listCreated(list, name, priority): return .createList(list: list, name: name, priority: priority)
        case let .listRenamed(list, name): return .renameList(list: list, name: name)
        case let .listPriorityChanged(list, priority): return .setListPriority(list: list, priority: priority)
        case let .listDeleted(list): return .deleteList(list: list)
        case let .listRestored(list): return .restoreList(list: list)
        case let .listPurged(list): return .purgeList(list: list)
        case let .itemAddedToList(list, item, quantity): return .addItemToList(list: list, item: item, quantity: quantity)
        case let .listEntryQuantityChanged(list, item, quantity): return .changeQuantity(list: list, item: item, quantity: quantity)
        case let .itemRemovedFromList(list, item): return .removeItemFromList(list: list, item: item)
        case let .listReordered(list, order): return .reorderList(list: list, order: order)
        case let .listEntryAssigned(list, item, member): return .assignEntry(list: list, item: item, member: member)
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            return .purchaseItem(purchase: purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                 location: location, purchasedAt: purchasedAt, store: store)
        case let .purchaseReverted(purchase): return .revertPurchase(purchase: purchase)
        case let .boughtEntriesCleared(list): return .clearBought(list: list)
        case let .tripStarted(trip, list, store): return .startTrip(trip: trip, list: list, store: store)
        case let .tripPaused(trip): return .pauseTrip(trip: trip)
        case let .tripResumed(trip): return .resumeTrip(trip: trip)
        case let .tripEnded(trip): return .endTrip(trip: trip)
        case let .memberAdded(member, role): return .addMember(member: member, role: role)
        case let .memberRoleChanged(member, role): return .changeMemberRole(member: member, role: role)
        case let .memberRemoved(member): return .removeMember(member: member)
        case let .storeCreated(store, name): return .createStore(store: store, name: name)
        case let .storeRenamed(store, name): return .renameStore(store: store, name: name)
        case let .storeDeleted(store): return .deleteStore(store: store)
        case let .storeLocationsReordered(store, order): return .reorderStoreLocations(store: store, order: order)
        }
    }
}
