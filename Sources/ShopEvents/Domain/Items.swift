// Items: the catalogue, each item kept at one location.

extension ShopDecider {
    static func decideCreateItem(_ item: ItemID, name: String, location: LocationID?, details: ItemDetails,
                                 _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(item, field: "item")
        let name = try state.itemNames.available(name, for: item)
        let location = location ?? .unknown
        _ = try state.requireLiveLocation(location)
        let details = try validDetails(details)
        try state.requireBarcodeFree(details.barcode, for: item)
        return [.itemCreated(item: item, name: name, location: location, details: details)]
    }

    static func decideRenameItem(_ item: ItemID, name: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        return [.itemRenamed(item: item, name: try state.itemNames.available(name, for: item))]
    }

    /// A merge patch over the item's details: what it sets is checked, what it keeps is not.
    static func decideChangeItemDetails(_ item: ItemID, patch: ItemDetailsPatch,
                                        _ state: ShopState) throws(RuleViolation) -> [Event] {
        let current = try state.requireLiveItem(item).details
        let details = try validDetails(patch, over: current)
        try state.requireBarcodeFree(details.barcode, for: item)
        return [.itemDetailsChanged(item: item, details: details)]
    }

    static func decideRelocateItem(_ item: ItemID, location: LocationID,
                                   _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        _ = try state.requireLiveLocation(location)
        return [.itemRelocated(item: item, location: location)]
    }

    static func decideSetItemAvailability(_ item: ItemID, available: Bool,
                                          _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        return [.itemAvailabilityChanged(item: item, available: available)]
    }

    /// Takes the item off every list it is on (in list id order), then deletes it.
    static func decideDeleteItem(_ item: ItemID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        let onLists = state.lists.values.filter { $0.entry(for: item) != nil }.map(\.id).sorted()
        return onLists.map { Event.itemRemovedFromList(list: $0, item: item) } + [.itemDeleted(item: item)]
    }

    /// The details of a new item, checked as ``validDetails(_:over:)`` checks a patch that sets them all.
    static func validDetails(_ details: ItemDetails) throws(RuleViolation) -> ItemDetails {
        try validDetails(ItemDetailsPatch(replacingWith: details), over: .none)
    }

    /// `patch` applied over `current`, each field it sets checked: category,
    /// unit and barcode are trimmed, and an empty category, notes, photo,
    /// unit or barcode is none; lengths, control characters (a unit none,
    /// notes none but line feed and tab), price, default quantity and the
    /// barcode's check digit. A field it keeps is taken as it is.
    static func validDetails(_ patch: ItemDetailsPatch, over current: ItemDetails) throws(RuleViolation) -> ItemDetails {
        func text(_ raw: String, field: String, trim: Bool, limit: Int) throws(RuleViolation) -> String? {
            let text = trim ? ShopState.trimmed(raw) : raw
            if text.isEmpty { return nil }
            guard text.count <= limit else {
                throw RuleViolation(.invalidText, "\(field) has \(text.count) characters; at most \(limit) are allowed", field: field)
            }
            return text
        }
        var clean = current
        clean.unit = try patch.unit.applied(to: current.unit) { raw throws(RuleViolation) in
            let unit = ShopState.trimmed(raw)
            if unit.isEmpty { return nil }
            try Limits.checkNoControlCharacters(unit, field: "unit")
            guard unit.count <= Limits.unitLength else {
                throw RuleViolation(.invalidText, "unit \(ShopState.quoted(unit)) has \(unit.count) characters; at most \(Limits.unitLength) are allowed", field: "unit")
            }
            return unit
        }
        clean.barcode = try patch.barcode.applied(to: current.barcode) { raw throws(RuleViolation) in
            let barcode = ShopState.trimmed(raw)
            if barcode.isEmpty { return nil }
            guard Barcode.isValid(barcode) else {
                throw RuleViolation(.invalidBarcode, "barcode \(ShopState.quoted(barcode)) is not an EAN-8, UPC-A or EAN-13 with a valid check digit", field: "barcode")
            }
            return barcode
        }
        clean.category = try patch.category.applied(to: current.category) { raw throws(RuleViolation) in
            try text(raw, field: "category", trim: true, limit: Limits.categoryLength)
        }
        clean.notes = try patch.notes.applied(to: current.notes) { raw throws(RuleViolation) in
            guard let notes = try text(raw, field: "notes", trim: false, limit: Limits.notesLength) else { return nil }
            try Limits.checkNoControlCharacters(notes, field: "notes", allowingLineBreaks: true)
            return notes
        }
        clean.photo = try patch.photo.applied(to: current.photo) { raw throws(RuleViolation) in
            try text(raw, field: "photo", trim: false, limit: Limits.photoLength)
        }
        clean.unitPrice = try patch.unitPrice.applied(to: current.unitPrice) { price throws(RuleViolation) in
            try ShopState.validPrice(price)
            return price
        }
        clean.quantity = try patch.quantity.applied(to: current.quantity) { quantity throws(RuleViolation) in
            try ShopState.validQuantity(quantity)
        }
        return clean
    }
}

extension ShopState {
    mutating func applyItemCreated(_ id: ItemID, name: String, location: LocationID, details: ItemDetails) {
        countLive(id, -1)
        items[id] = Item(id: id, name: name, location: location, details: details)
        countLive(id, 1)
        itemNames.claim(name, by: id)
        if let barcode = details.barcode { barcodes[Barcode.key(barcode)] = id }
    }

    mutating func applyItemDetailsChanged(_ id: ItemID, details: ItemDetails) {
        // What the change needs of the item before it, read where it lies (no copy of the item).
        guard let (wasDeleted, oldBarcode) = items.change(id, { item in
            let before = (item.isDeleted, item.details.barcode)
            item.details = details
            return before
        }) else { return }
        if let barcode = oldBarcode, barcodes[Barcode.key(barcode)] == id { barcodes[Barcode.key(barcode)] = nil }
        if let barcode = details.barcode, !wasDeleted { barcodes[Barcode.key(barcode)] = id }
    }

    /// `duplicate_barcode` when another live item has `barcode` (a UPC-A and its EAN-13 are one).
    func requireBarcodeFree(_ barcode: String?, for item: ItemID) throws(RuleViolation) {
        guard let barcode, let owner = barcodes[Barcode.key(barcode)], owner != item else { return }
        throw RuleViolation(.duplicateBarcode, "barcode \(barcode) is item \(owner)'s (\(ShopState.quoted(items[owner]?.name ?? "")))", field: "barcode")
    }

    /// The live item whose barcode is `barcode` (either spelling of a UPC-A).
    public func liveItem(barcode: String) -> ItemID? { barcodes[Barcode.key(barcode)] }

    mutating func applyItemRenamed(_ id: ItemID, name: String) {
        guard let old = items[id] else { return }
        items.change(id) { $0.name = name }
        itemNames.rename(id, from: old.name, to: name, isLive: !old.isDeleted)
    }

    mutating func applyItemDeleted(_ id: ItemID) {
        guard let old = items[id] else { return }
        countLive(id, -1)
        items.change(id) { $0.isDeleted = true }
        itemNames.release(old.name, by: id)
        if let barcode = old.details.barcode, barcodes[Barcode.key(barcode)] == id { barcodes[Barcode.key(barcode)] = nil }
    }
}
