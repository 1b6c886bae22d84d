// Every event type's declaration: the one place that says what a type's
// journal line holds (docs/JOURNAL.md). Adding an
// event or a field starts here; see docs/DESIGN.md, "Adding an event".

extension EventDeclaration {
    /// The declaration of `type`.
    init(declaring type: EventType) {
        typealias F = Field
        let details: [F] = [.optional("category", .text), .optional("notes", .text), .optional("unitPrice", .number),
                            .optional("photo", .text), .optional("quantity", .quantity),
                            .optional("unit", .text, since: 2), .optional("barcode", .text, since: 2)]
        let fields: [F]
        // Version 2 of a type whose fields are those of version 1: its quantities have fraction digits.
        var version = 1
        switch type {
        case .householdCreated:
            fields = [.created("household"), .required("name", .text), .required("currency", .text), .required("timeZone", .text)]
        case .locationCreated:
            fields = [.created("location"), .required("name", .text), .required("position", .number), .required("color", .color)]
        case .locationRenamed: fields = [.required("location", .id), .required("name", .text)]
        case .locationRecolored: fields = [.required("location", .id), .required("color", .color)]
        case .locationsReordered:
            // The alias is an id another app gave the Unknown Location: new to this journal.
            fields = [.required("order", .ids), .optional("positions", .numbers), .newAlias("unknownAlias")]
        case .locationDeleted: fields = [.required("location", .id)]
        case .itemCreated: fields = [.created("item"), .required("name", .text), .required("location", .id)] + details
        case .itemRenamed: fields = [.required("item", .id), .required("name", .text)]
        case .itemDetailsChanged: fields = [.required("item", .id)] + details
        case .itemRelocated: fields = [.required("item", .id), .required("location", .id)]
        case .itemAvailabilityChanged: fields = [.required("item", .id), .required("available", .flag)]
        case .itemDeleted: fields = [.required("item", .id)]
        case .listCreated: fields = [.created("list"), .required("name", .text), .required("priority", .priority)]
        case .listRenamed: fields = [.required("list", .id), .required("name", .text)]
        case .listPriorityChanged: fields = [.required("list", .id), .required("priority", .priority)]
        case .listDeleted, .listRestored, .listPurged, .boughtEntriesCleared: fields = [.required("list", .id)]
        case .itemAddedToList, .listEntryQuantityChanged:
            fields = [.required("list", .id), .required("item", .id), .required("quantity", .quantity)]
            version = 2
        case .itemRemovedFromList: fields = [.required("list", .id), .required("item", .id)]
        case .listReordered: fields = [.required("list", .id), .required("order", .ids)]
        case .listEntryAssigned: fields = [.required("list", .id), .required("item", .id), .optional("member", .text)]
        case .itemPurchased:
            fields = [.created("purchase"), .required("item", .id), .optional("list", .id), .required("quantity", .quantity),
                      .optional("unitPrice", .number), .required("location", .id), .optional("purchasedAt", .time),
                      .optional("store", .id, since: 2)]
        case .purchaseReverted: fields = [.required("purchase", .id)]
        case .tripStarted: fields = [.created("trip"), .optional("list", .id), .optional("store", .id, since: 2)]
        case .tripPaused, .tripResumed, .tripEnded: fields = [.required("trip", .id)]
        case .memberAdded, .memberRoleChanged: fields = [.required("member", .text), .required("role", .role)]
        case .memberRemoved: fields = [.required("member", .text)]
        case .storeCreated: fields = [.created("store"), .required("name", .text)]
        case .storeRenamed: fields = [.required("store", .id), .required("name", .text)]
        case .storeDeleted: fields = [.required("store", .id)]
        case .storeLocationsReordered: fields = [.required("store", .id), .required("order", .ids)]
        }
        self.init(type: type, version: max(version, fields.map(\.since).max() ?? 1), fields: fields)
    }
}
