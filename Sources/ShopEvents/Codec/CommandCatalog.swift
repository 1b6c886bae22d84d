import Foundation

/// What people and tools need to write commands by hand: every command type
/// with its data fields, references by name, and the ids a command created.
///
/// ```swift
/// print(CommandCatalog.fields(of: .addItemToList))        // ["list", "item", "quantity?"]
/// let line = #"{"type":"AddItemToList","data":{"list":"weekly","item":"Milk"}}"#
/// let resolved = try CommandCatalog.resolvingNames(in: Array(line.utf8), state: journal.state)
/// let request = try CommandCodec.decode(resolved, ids: .random)   // ids, as the journal records them
/// ```
public enum CommandCatalog {
    /// The data fields of a command type, in the order the codec writes them;
    /// `?` marks an optional one. An id of a thing being created is optional:
    /// a new one is made.
    public static func fields(of type: CommandType) -> [String] {
        switch type {
        case .createHousehold: ["household?", "name", "currency", "timeZone"]
        case .createLocation: ["location?", "name", "color?"]
        case .renameLocation: ["location", "name"]
        case .recolorLocation: ["location", "color"]
        case .reorderLocations: ["order", "positions?", "unknownAlias?"]
        case .deleteLocation: ["location"]
        case .createItem: ["item?", "name", "location?", "category?", "notes?", "unitPrice?", "photo?", "quantity?", "unit?", "barcode?"]
        case .renameItem: ["item", "name"]
        case .changeItemDetails: ["item", "category?", "notes?", "unitPrice?", "photo?", "quantity?", "unit?", "barcode?"]
        case .relocateItem: ["item", "location"]
        case .setItemAvailability: ["item", "available"]
        case .deleteItem: ["item"]
        case .createList: ["list?", "name", "priority?"]
        case .renameList: ["list", "name"]
        case .setListPriority: ["list", "priority"]
        case .deleteList, .restoreList, .purgeList, .clearBought: ["list"]
        case .addItemToList: ["list", "item", "quantity?"]
        case .changeQuantity: ["list", "item", "quantity"]
        case .removeItemFromList: ["list", "item"]
        case .reorderList: ["list", "order"]
        case .assignEntry: ["list", "item", "member?"]
        case .purchaseItem: ["purchase?", "item", "list?", "quantity?", "unitPrice?", "location?", "purchasedAt?", "store?"]
        case .revertPurchase: ["purchase"]
        case .startTrip: ["trip?", "list?", "store?"]
        case .createStore: ["store?", "name"]
        case .renameStore: ["store", "name"]
        case .deleteStore: ["store"]
        case .pauseTrip, .resumeTrip, .endTrip: ["trip"]
        case .addMember, .changeMemberRole: ["member", "role"]
        case .removeMember: ["member"]
        }
    }

    /// What a field holds, for help texts.
    public static func describe(field: String) -> String {
        switch field.trimmingCharacters(in: CharacterSet(charactersIn: "?")) {
        case "household", "purchase", "trip": "an id (UUID)"
        case "item": "an id, the name of a live one (ignoring case), or its barcode"
        case "list", "location", "store": "an id, or the name of a live one (ignoring case)"
        case "order": "ids or names, all of them, first to visit first"
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
        default: "see the specification"
        }
    }

    /// `true` when a line's data gives a reference (`item`, `list`,
    /// `location`, `order`) by name rather than by id.
    public static func usesNames(_ line: [UInt8]) -> Bool {
        guard let (type, data) = typeAndData(line) else { return false }
        if type == .revertPurchase {
            // By item (its latest purchase not reverted), or by the first digits of the purchase id.
            return data.contains { key, value in key == "item" || (key == "purchase" && value.stringValue.map { UUID(uuidString: $0) == nil } ?? false) }
        }
        return data.contains { key, value in
            guard isReference(key, in: type) else { return false }
            switch value {
            case let .string(text): return UUID(uuidString: text) == nil
            case let .array(elements): return elements.contains { $0.stringValue.map { UUID(uuidString: $0) == nil } ?? false }
            default: return false
            }
        }
    }

    /// The line with every reference by name replaced by the id of the live
    /// thing of that name in `state` (ignoring case). A name no live thing has
    /// is rejected like an unknown id (`unknown_item`, `unknown_list`,
    /// `unknown_location`). A line that is not a JSON object with a known
    /// `type` comes back unchanged, for the codec to refuse with its own error.
    ///
    /// A `RevertPurchase` may name its purchase by the first digits of its id
    /// (as text views show it), or by `item` (an id or a live item's name):
    /// that item's latest purchase not yet reverted (by when it was bought).
    public static func resolvingNames(in line: [UInt8], state: ShopState) throws(RuleViolation) -> [UInt8] {
        guard usesNames(line), case let .object(pairs)? = try? JSONValue.parse(line), let (type, _) = typeAndData(line) else { return line }
        var out: [(String, JSONValue)] = []
        for (key, value) in pairs {
            guard key == "data", case let .object(fields) = value else { out.append((key, value)); continue }
            if type == .revertPurchase {
                out.append((key, .object(try revertedPurchase(fields, state: state))))
                continue
            }
            var resolved: [(String, JSONValue)] = []
            for (field, fieldValue) in fields {
                guard isReference(field, in: type) else { resolved.append((field, fieldValue)); continue }
                let kind = field == "order" ? (type == .reorderLocations ? "location" : "item") : field
                switch fieldValue {
                case let .string(text): resolved.append((field, .string(try resolve(text, kind: kind, state: state))))
                case let .array(elements):
                    var ids: [JSONValue] = []
                    for element in elements {
                        guard let text = element.stringValue else { ids.append(element); continue }
                        ids.append(.string(try resolve(text, kind: kind, state: state)))
                    }
                    resolved.append((field, .array(ids)))
                default: resolved.append((field, fieldValue))
                }
            }
            out.append((key, .object(resolved)))
        }
        return Array(JSONValue.object(out).text().utf8)
    }

    /// A `RevertPurchase`'s data with `purchase` a whole id: from `item`, or from the first digits of the id.
    private static func revertedPurchase(_ fields: [(String, JSONValue)], state: ShopState) throws(RuleViolation) -> [(String, JSONValue)] {
        if let item = fields.first(where: { $0.0 == "item" })?.1.stringValue {
            // A purchase is of the past: its item may be deleted since, and is named by its last name then.
            let id: ItemID
            if let given = ItemID(item) { id = given } else { id = try state.find(item: item, in: .includingDeleted) }
            let latest = state.purchases.values.filter { $0.item == id && !$0.isReverted }
                .max { ($0.effectiveTime, $0.seq) < ($1.effectiveTime, $1.seq) }
            guard let latest else {
                throw RuleViolation(.unknownPurchase, "item \(ShopState.quoted(state.items[id]?.name ?? item)) has no purchase that is not reverted", field: "item")
            }
            return fields.filter { $0.0 != "item" && $0.0 != "purchase" } + [("purchase", .string(latest.id.description))]
        }
        guard let text = fields.first(where: { $0.0 == "purchase" })?.1.stringValue, UUID(uuidString: text) == nil else { return fields }
        let digits = text.uppercased().filter { $0 != "-" }
        guard digits.count >= 4, digits.allSatisfy(\.isHexDigit) else {
            throw RuleViolation(.unknownPurchase, "purchase \(ShopState.quoted(text)) is neither an id nor its first 4 or more hex digits", field: "purchase")
        }
        let matches = state.purchases.values.filter { $0.id.description.filter { $0 != "-" }.hasPrefix(digits) }
        guard matches.count == 1, let match = matches.first else {
            throw RuleViolation(.unknownPurchase, matches.isEmpty ? "no purchase id starts with \(text)"
                                : "\(matches.count) purchase ids start with \(text); give more of the id", field: "purchase")
        }
        return fields.map { $0.0 == "purchase" ? ("purchase", .string(match.id.description)) : $0 }
    }

    /// A name's id (``ShopState/find(item:in:)``); an id is left for the rules to check.
    private static func resolve(_ text: String, kind: String, state: ShopState) throws(RuleViolation) -> String {
        if UUID(uuidString: text) != nil { return text }
        switch kind {
        case "item": return try state.find(item: text).description
        case "list": return try state.find(list: text).description
        case "store": return try state.find(store: text).description
        default: return try state.find(location: text).description
        }
    }

    /// A data field that names an existing thing (not the id of one being created).
    static func isReference(_ field: String, in type: CommandType) -> Bool {
        switch field {
        case "item": type != .createItem
        case "list": type != .createList
        case "location": type != .createLocation
        case "store": type != .createStore
        case "order": type == .reorderLocations || type == .reorderList
        default: false
        }
    }

    private static func typeAndData(_ line: [UInt8]) -> (CommandType, [(String, JSONValue)])? {
        guard case let .object(pairs)? = try? JSONValue.parse(line),
              let typeName = pairs.first(where: { $0.0 == "type" })?.1.stringValue, let type = CommandType(rawValue: typeName),
              case let .object(data)? = pairs.first(where: { $0.0 == "data" })?.1 else { return nil }
        return (type, data)
    }
}
