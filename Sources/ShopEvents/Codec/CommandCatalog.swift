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
        case "list": "an id, or the name of a live one (ignoring case); for RestoreList and PurgeList a deleted one's last name"
        case "location", "store": "an id, or the name of a live one (ignoring case)"
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
}
