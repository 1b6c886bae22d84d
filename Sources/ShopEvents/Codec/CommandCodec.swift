import Foundation

/// Reads and writes commands as JSON objects, one per line for `shop-replay apply`:
/// `{"type": …, "id": UUID?, "actor": …?, "at": …?, "expectedSeq": …?, "correlation": …?, "device": …?, "data": {…}}`.
///
/// Commands are strict: an unknown key, at the top or in `data`, is an error,
/// so a typo never silently drops a field. Ids of created things may be
/// omitted; they come from the injected generator.
///
/// ```swift
/// let text = #"{"type":"CreateList","actor":"ana","data":{"name":"Weekly"}}"#
/// let request = try CommandCodec.decode(Array(text.utf8), ids: .random)
/// ```
///
/// A `CreateHousehold` that names no household takes `household` when one is
/// given — a new household's replica knows the id its hub holds it under —
/// and a new id otherwise:
///
/// ```swift
/// let create = #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#
/// let request = try CommandCodec.decode(Array(create.utf8), ids: .random, household: replica.household)
/// ```
public enum CommandCodec {
    public static func decode(_ bytes: [UInt8], ids: IDGenerator, household: HouseholdID? = nil) throws(CodecError) -> CommandEnvelope {
        try bytes.withUnsafeBytes { raw in Result { () throws(CodecError) in try decode(raw, ids: ids, household: household) } }.get()
    }

    public static func decode(_ text: UnsafeRawBufferPointer, ids: IDGenerator, household: HouseholdID? = nil) throws(CodecError) -> CommandEnvelope {
        var s = JSONScanner(text)
        var type: CommandType?, id: UUID?, actor: String?, at: Timestamp?, expectedSeq: Int?
        var correlation: UUID?, device: String?, data: DataFields?
        try s.beginObject()
        var first = true
        var seen = Set<String>()
        while let key = try s.nextKey(first: &first) {
            guard seen.insert(s.keyText(key)).inserted else {
                throw CodecError(.malformedJSON, "key \"\(s.keyText(key))\" appears twice", offset: key.start)
            }
            if s.keyMatches(key, "type") {
                let start = s.position
                let name = try s.readString()
                guard let known = CommandType(rawValue: name) else {
                    throw CodecError(.unknownType, "type \"\(name)\" is not a command (CreateHousehold, CreateItem, AddItemToList, PurchaseItem, …)", offset: start)
                }
                type = known
            }
            else if s.keyMatches(key, "id") { id = s.readNull() ? nil : try s.readUUID("id") }
            else if s.keyMatches(key, "actor") { actor = s.readNull() ? nil : try s.readString() }
            else if s.keyMatches(key, "at") { at = s.readNull() ? nil : try s.readTimestamp("at") }
            else if s.keyMatches(key, "expectedSeq") { expectedSeq = s.readNull() ? nil : try s.readInt() }
            else if s.keyMatches(key, "correlation") { correlation = s.readNull() ? nil : try s.readUUID("correlation") }
            else if s.keyMatches(key, "device") { device = s.readNull() ? nil : try s.readString() }
            else if s.keyMatches(key, "data") { data = try DataFields(&s) }
            else {
                throw CodecError(.unknownField, "a command has no field \"\(s.keyText(key))\" (it has type, id, actor, at, expectedSeq, correlation, device, data)", offset: key.start)
            }
        }
        try s.expectEnd()
        guard let type else { throw CodecError(.missingField, "the command has no \"type\"", offset: 0) }
        var fields: DataFields
        if let data { fields = data } else {
            var empty = JSONScanner(UnsafeRawBufferPointer(start: nil, count: 0))
            fields = try emptyData(&empty)
        }
        let command = try decodeData(type, &fields, ids: ids, household: household)
        try fields.requireAllUsed("\(type.rawValue) data")
        return CommandEnvelope(command, id: id.map(CommandID.init), actor: actor, at: at, expectedSeq: expectedSeq,
                               correlation: correlation.map(CorrelationID.init), device: device)
    }

    private static func emptyData(_ scanner: inout JSONScanner) throws(CodecError) -> DataFields {
        let braces: [UInt8] = [UInt8(ascii: "{"), UInt8(ascii: "}")]
        return try braces.withUnsafeBytes { raw in
            Result { () throws(CodecError) in
                var s = JSONScanner(raw)
                return try DataFields(&s)
            }
        }.get()
    }

    static func decodeData(_ type: CommandType, _ d: inout DataFields, ids: IDGenerator, household: HouseholdID?) throws(CodecError) -> Command {
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
        case .setItemAvailability:
            return .setItemAvailability(item: try d.id("item"), available: try d.bool("available"))
        case .deleteItem: return .deleteItem(item: try d.id("item"))
        case .createList:
            return .createList(list: try d.optionalID("list") ?? ids.make(), name: try d.string("name"),
                               priority: try d.optionalPriority("priority"))
        case .renameList: return .renameList(list: try d.id("list"), name: try d.string("name"))
        case .setListPriority: return .setListPriority(list: try d.id("list"), priority: try d.priority("priority"))
        case .deleteList: return .deleteList(list: try d.id("list"))
        case .restoreList: return .restoreList(list: try d.id("list"))
        case .purgeList: return .purgeList(list: try d.id("list"))
        case .addItemToList:
            return .addItemToList(list: try d.id("list"), item: try d.id("item"), quantity: try d.optionalQuantity("quantity"))
        case .changeQuantity:
            return .changeQuantity(list: try d.id("list"), item: try d.id("item"), quantity: try d.quantity("quantity"))
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
        case .createStore: return .createStore(store: try d.optionalID("store") ?? ids.make(), name: try d.string("name"))
        case .renameStore: return .renameStore(store: try d.id("store"), name: try d.string("name"))
        case .deleteStore: return .deleteStore(store: try d.id("store"))
        case .pauseTrip: return .pauseTrip(trip: try d.id("trip"))
        case .resumeTrip: return .resumeTrip(trip: try d.id("trip"))
        case .endTrip: return .endTrip(trip: try d.id("trip"))
        case .addMember: return .addMember(member: try d.string("member"), role: try d.role("role"))
        case .changeMemberRole: return .changeMemberRole(member: try d.string("member"), role: try d.role("role"))
        case .removeMember: return .removeMember(member: try d.string("member"))
        }
    }

    /// One line of JSON for the command (without a newline).
    public static func encode(_ request: CommandEnvelope) -> [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("type", request.command.typeName)
        w.field("id", request.id)
        w.field("actor", request.actor)
        w.field("at", request.at)
        w.field("expectedSeq", request.expectedSeq)
        w.field("correlation", request.correlation)
        w.field("device", request.device)
        w.key("data")
        writeData(request.command, to: &w)
        w.endObject()
        return w.takeBytes()
    }

    static func writeData(_ command: Command, to w: inout JSONWriter) {
        w.beginObject()
        switch command {
        case let .createHousehold(household, name, currency, timeZone):
            w.field("household", household); w.field("name", name)
            w.field("currency", currency); w.field("timeZone", timeZone)
        case let .createLocation(location, name, color):
            w.field("location", location); w.field("name", name); w.field("color", color)
        case let .renameLocation(location, name): w.field("location", location); w.field("name", name)
        case let .recolorLocation(location, color): w.field("location", location); w.field("color", color)
        case let .reorderLocations(order, positions, alias): w.field("order", order); w.field("positions", positions); w.field("unknownAlias", alias)
        case let .deleteLocation(location): w.field("location", location)
        case let .createItem(item, name, location, details):
            w.field("item", item); w.field("name", name); w.field("location", location); w.details(details)
        case let .renameItem(item, name): w.field("item", item); w.field("name", name)
        case let .changeItemDetails(item, patch): w.field("item", item); w.detailsPatch(patch)
        case let .relocateItem(item, location): w.field("item", item); w.field("location", location)
        case let .setItemAvailability(item, available): w.field("item", item); w.field("available", available)
        case let .deleteItem(item): w.field("item", item)
        case let .createList(list, name, priority):
            w.field("list", list); w.field("name", name); w.field("priority", priority)
        case let .renameList(list, name): w.field("list", list); w.field("name", name)
        case let .setListPriority(list, priority): w.field("list", list); w.field("priority", priority)
        case let .deleteList(list), let .restoreList(list), let .purgeList(list), let .clearBought(list):
            w.field("list", list)
        case let .addItemToList(list, item, quantity):
            w.field("list", list); w.field("item", item); w.field("quantity", quantity)
        case let .changeQuantity(list, item, quantity):
            w.field("list", list); w.field("item", item); w.field("quantity", quantity)
        case let .removeItemFromList(list, item): w.field("list", list); w.field("item", item)
        case let .reorderList(list, order): w.field("list", list); w.field("order", order)
        case let .assignEntry(list, item, member): w.field("list", list); w.field("item", item); w.field("member", member)
        case let .purchaseItem(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            w.field("purchase", purchase); w.field("item", item); w.field("list", list)
            w.field("quantity", quantity); w.field("unitPrice", unitPrice); w.field("location", location)
            w.field("purchasedAt", purchasedAt); w.field("store", store)
        case let .revertPurchase(purchase): w.field("purchase", purchase)
        case let .startTrip(trip, list, store): w.field("trip", trip); w.field("list", list); w.field("store", store)
        case let .createStore(store, name), let .renameStore(store, name): w.field("store", store); w.field("name", name)
        case let .deleteStore(store): w.field("store", store)
        case let .pauseTrip(trip), let .resumeTrip(trip), let .endTrip(trip): w.field("trip", trip)
        case let .addMember(member, role), let .changeMemberRole(member, role):
            w.field("member", member); w.field("role", role.rawValue)
        case let .removeMember(member): w.field("member", member)
        }
        w.endObject()
    }
}
