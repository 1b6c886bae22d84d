// Items: the catalogue, each item kept at one location.

extension ShopDecider {
    static func decideCreateItem(_ item: ItemID, name: String, location: LocationID?, details: ItemDetails,
                                 _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(item, field: "item")
        let name = try state.itemNames.available(name, for: item)
        let location = location ?? .unknown
        _ = try state.requireLiveLocation(location)
        return [.itemCreated(item: item, name: name, location: location, details: try validDetails(details))]
    }

    static func decideRenameItem(_ item: ItemID, name: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        return [.itemRenamed(item: item, name: try state.itemNames.available(name, for: item))]
    }

    static func decideChangeItemDetails(_ item: ItemID, details: ItemDetails,
                                        _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveItem(item)
        return [.itemDetailsChanged(item: item, details: try validDetails(details))]
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

    /// Trims category; drops empty optional texts; checks lengths, price and default quantity.
    static func validDetails(_ details: ItemDetails) throws(RuleViolation) -> ItemDetails {
        var clean = details
        clean.category = details.category.map(ShopState.trimmed)
        if clean.category?.isEmpty == true { clean.category = nil }
        if clean.notes?.isEmpty == true { clean.notes = nil }
        if clean.photo?.isEmpty == true { clean.photo = nil }
        for (field, text, limit) in [("category", clean.category, Limits.categoryLength),
                                     ("notes", clean.notes, Limits.notesLength),
                                     ("photo", clean.photo, Limits.photoLength)] {
            if let text, text.count > limit {
                throw RuleViolation(.invalidText, "\(field) has \(text.count) characters; at most \(limit) are allowed", field: field)
            }
        }
        try ShopState.validPrice(clean.unitPrice)
        if let quantity = clean.quantity { _ = try ShopState.validQuantity(quantity) }
        return clean
    }
}

extension ShopState {
    mutating func applyItemCreated(_ id: ItemID, name: String, location: LocationID, details: ItemDetails) {
        countLive(items[id], -1)
        items[id] = Item(id: id, name: name, location: location, details: details)
        countLive(items[id], 1)
        itemNames.claim(name, by: id)
    }

    mutating func applyItemRenamed(_ id: ItemID, name: String) {
        guard let old = items[id] else { return }
        items.change(id) { $0.name = name }
        itemNames.rename(id, from: old.name, to: name, isLive: !old.isDeleted)
    }

    mutating func applyItemDeleted(_ id: ItemID) {
        guard let old = items[id] else { return }
        countLive(old, -1)
        items.change(id) { $0.isDeleted = true }
        itemNames.release(old.name, by: id)
    }
}
