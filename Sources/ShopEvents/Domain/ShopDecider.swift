import Foundation

/// The pure decision function: a command and the current state in, the
/// events it makes out — or a ``RuleViolation``. No clock, no id generator,
/// no I/O: everything it needs is in its arguments.
///
/// The rules of each area live beside its events: `Household.swift`,
/// `Locations.swift`, `Items.swift`, `Lists.swift`, `Purchases.swift`,
/// `Trips.swift`, `Members.swift`. The decider knows who issues the command
/// (`actor`): in a household with members, roles decide what each may do.
///
/// ```swift
/// var state = ShopState.initial
/// let events = try ShopDecider.decide(
///     .createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"),
///     state, actor: "ana")
/// // [.householdCreated(…)]
/// ```
public enum ShopDecider {
    public static func decide(_ command: Command, _ state: ShopState, actor: String) throws(RuleViolation) -> [Event] {
        if case .createHousehold = command {} else if case .none = state.household {   // `== nil` copied the household
            throw RuleViolation(.noHousehold, "the journal has no household yet: the first command must be CreateHousehold")
        }
        try authorize(command, actor: actor, state)
        switch command {
        case let .createHousehold(household, name, currency, timeZone):
            return try decideCreateHousehold(household, name: name, currency: currency, timeZone: timeZone, state)
        case let .createLocation(location, name, color):
            return try decideCreateLocation(location, name: name, color: color, state)
        case let .renameLocation(location, name): return try decideRenameLocation(location, name: name, state)
        case let .recolorLocation(location, color): return try decideRecolorLocation(location, color: color, state)
        case let .reorderLocations(order, positions, alias): return try decideReorderLocations(order, positions: positions, unknownAlias: alias, state)
        case let .deleteLocation(location): return try decideDeleteLocation(location, state)
        case let .createItem(item, name, location, details):
            return try decideCreateItem(item, name: name, location: location, details: details, state)
        case let .renameItem(item, name): return try decideRenameItem(item, name: name, state)
        case let .changeItemDetails(item, patch): return try decideChangeItemDetails(item, patch: patch, state)
        case let .relocateItem(item, location): return try decideRelocateItem(item, location: location, state)
        case let .setItemAvailability(item, available):
            return try decideSetItemAvailability(item, available: available, state)
        case let .deleteItem(item): return try decideDeleteItem(item, state)
        case let .createList(list, name, priority):
            return try decideCreateList(list, name: name, priority: priority, state)
        case let .renameList(list, name): return try decideRenameList(list, name: name, state)
        case let .setListPriority(list, priority): return try decideSetListPriority(list, priority: priority, state)
        case let .deleteList(list): return try decideDeleteList(list, state)
        case let .restoreList(list): return try decideRestoreList(list, state)
        case let .purgeList(list): return try decidePurgeList(list, state)
        case let .addItemToList(list, item, quantity):
            return try decideAddItemToList(list, item: item, quantity: quantity, state)
        case let .changeQuantity(list, item, quantity):
            return try decideChangeQuantity(list, item: item, quantity: quantity, state)
        case let .removeItemFromList(list, item): return try decideRemoveItemFromList(list, item: item, state)
        case let .reorderList(list, order): return try decideReorderList(list, order: order, state)
        case let .assignEntry(list, item, member): return try decideAssignEntry(list, item: item, member: member, state)
        case let .purchaseItem(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            return try decidePurchaseItem(purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                          location: location, purchasedAt: purchasedAt, store: store, state, actor: actor)
        case let .revertPurchase(purchase): return try decideRevertPurchase(purchase, state)
        case let .clearBought(list): return try decideClearBought(list, state)
        case let .startTrip(trip, list, store): return try decideStartTrip(trip, list: list, store: store, state, actor: actor)
        case let .createStore(store, name): return try decideCreateStore(store, name: name, state)
        case let .renameStore(store, name): return try decideRenameStore(store, name: name, state)
        case let .deleteStore(store): return try decideDeleteStore(store, state)
        case let .reorderStoreLocations(store, order): return try decideReorderStoreLocations(store, order: order, state)
        case let .pauseTrip(trip): return try decidePauseTrip(trip, state)
        case let .resumeTrip(trip): return try decideResumeTrip(trip, state)
        case let .endTrip(trip): return try decideEndTrip(trip, state)
        case let .addMember(member, role): return try decideAddMember(member, role: role, actor: actor, state)
        case let .changeMemberRole(member, role): return try decideChangeMemberRole(member, role: role, state)
        case let .removeMember(member): return try decideRemoveMember(member, state)
        }
    }
}

// Checks shared by every area.
extension ShopState {
    /// `text` without the white space and newlines around it, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)` gives it; text that
    /// starts and ends with a visible ASCII character is returned as it is
    /// without asking Foundation (the common case, and a tenth of the cost of
    /// a command).
    static func trimmed(_ text: String) -> String {
        func plain(_ byte: UInt8?) -> Bool { byte.map { $0 > 0x20 && $0 < 0x7F } ?? false }
        let utf8 = text.utf8
        if plain(utf8.first), plain(utf8.last) { return text }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func requireNew<Kind>(_ id: EntityID<Kind>, field: String) throws(RuleViolation) {
        if isUsed(id.uuid) {
            throw RuleViolation(.idInUse, "\(field) \(id) is already used in this journal; ids are never reused", field: field)
        }
    }

    /// The trimmed name, or a violation if it is empty or longer than 200 characters.
    static func validName(_ raw: String, field: String = "name") throws(RuleViolation) -> String {
        let name = trimmed(raw)
        // At most 200 bytes are at most 200 characters: only longer text is counted.
        guard !name.isEmpty, name.utf8.count <= Limits.nameLength.upperBound || Limits.nameLength.contains(name.count) else {
            throw RuleViolation(.invalidName, "\(field) \(quoted(raw)) must be 1 to 200 characters after trimming white space (it has \(name.count))", field: field)
        }
        try Limits.checkNoControlCharacters(name, field: field)
        return name
    }

    static func validQuantity(_ quantity: Quantity, field: String = "quantity") throws(RuleViolation) -> Quantity {
        guard Limits.quantity.contains(quantity) else {
            throw RuleViolation(.invalidQuantity, "\(field) \(quantity) is out of range 0.001…9999", field: field)
        }
        return quantity
    }

    static func validPrice(_ price: Int?, field: String = "unitPrice") throws(RuleViolation) {
        if let price, !Limits.price.contains(price) {
            throw RuleViolation(.invalidPrice, "\(field) \(price) is out of range 0…100000000 (minor units)", field: field)
        }
    }

    func requireLiveLocation(_ id: LocationID, field: String = "location") throws(RuleViolation) -> Location {
        guard let location = locations[id] else {
            throw RuleViolation(.unknownLocation, "\(field) \(id) does not exist", field: field)
        }
        guard !location.isDeleted else {
            throw RuleViolation(.locationDeleted, "\(field) \(id) (\(Self.quoted(location.name))) was deleted", field: field)
        }
        return location
    }

    func requireLiveItem(_ id: ItemID, field: String = "item") throws(RuleViolation) -> Item {
        guard let item = items[id] else {
            throw RuleViolation(.unknownItem, "\(field) \(id) does not exist", field: field)
        }
        guard !item.isDeleted else {
            throw RuleViolation(.itemDeleted, "\(field) \(id) (\(Self.quoted(item.name))) was deleted", field: field)
        }
        return item
    }

    /// A list that exists, live or soft-deleted.
    func requireList(_ id: ListID, field: String = "list") throws(RuleViolation) -> ShoppingList {
        guard let list = lists[id] else {
            throw RuleViolation(.unknownList, "\(field) \(id) does not exist (or was purged)", field: field)
        }
        return list
    }

    /// A list that exists and is not soft-deleted.
    func requireLiveList(_ id: ListID, field: String = "list") throws(RuleViolation) -> ShoppingList {
        let list = try requireList(id, field: field)
        guard !list.isDeleted else {
            throw RuleViolation(.listDeleted, "\(field) \(id) (\(Self.quoted(list.name))) is deleted: restore it first; a deleted list accepts only RestoreList and PurgeList", field: field)
        }
        return list
    }

    /// `ids` must be exactly `members`, each once.
    static func requireExactly<Kind>(_ ids: [EntityID<Kind>], members: Set<EntityID<Kind>>,
                                     what: String) throws(RuleViolation) {
        let given = Set(ids)
        if given.count != ids.count {
            throw RuleViolation(.orderMismatch, "order names an id twice; it must name every \(what) exactly once", field: "order")
        }
        let missing = members.subtracting(given).sorted()
        let extra = given.subtracting(members).sorted()
        if !missing.isEmpty || !extra.isEmpty {
            var parts: [String] = []
            if !missing.isEmpty { parts.append("missing \(missing.map(\.description).joined(separator: ", "))") }
            if !extra.isEmpty { parts.append("not a current \(what): \(extra.map(\.description).joined(separator: ", "))") }
            throw RuleViolation(.orderMismatch, "order must name exactly the current \(what)s: \(parts.joined(separator: "; "))", field: "order")
        }
    }

    static func quoted(_ text: String) -> String {
        "\"" + Limits.visible(text).replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
