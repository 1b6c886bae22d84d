import Foundation

/// Turns a ShoppingList17 archive into the commands that bring a household
/// up to it, and a household back into an archive.
///
/// Import keeps the archive's ids, so importing the same file again gives no
/// commands at all. The location at `visitationOrder` 2147483647 is the
/// Unknown Location; names are trimmed; on-list items go on one list
/// (`Shopping List` unless told otherwise); a purchase date becomes an
/// `ItemPurchased` with `purchasedAt`.
///
/// ```swift
/// let commands = SL17Transfer.importCommands(archive, into: journal.state, ids: .random)
/// let results = try journal.execute(batch: commands.map { CommandEnvelope($0, correlation: importID) })
/// ```
public enum SL17Transfer {
    /// The household to create when the journal has none yet.
    public struct NewHousehold: Sendable {
        public var name: String
        public var currency: String
        public var timeZone: String
        public init(name: String = "Home", currency: String = "USD", timeZone: String = TimeZone.current.identifier) {
            self.name = name; self.currency = currency; self.timeZone = timeZone
        }
    }

    public static let defaultListName = "Shopping List"

    /// The commands, in order, that make `state` hold everything in `archive`.
    public static func importCommands(_ archive: SL17Archive, into state: ShopState, listName: String = defaultListName,
                                      household: NewHousehold = NewHousehold(), ids: IDGenerator) -> [Command] {
        var commands: [Command] = []
        if state.household == nil {
            commands.append(.createHousehold(household: ids.make(), name: household.name,
                                             currency: household.currency, timeZone: household.timeZone))
        }
        let ordered = archive.locations.enumerated().sorted {
            ($0.element.visitationOrder, $0.offset) < ($1.element.visitationOrder, $1.offset)
        }.map(\.element)
        var placeOf: [LocationID: LocationID] = [:]   // archive location → household location
        var known = Set(state.locations.keys)
        var predictedOrder = state.visitingOrder.filter { $0 != .unknown }
        var archiveOrder: [LocationID] = []
        for location in ordered {
            let name = location.name.trimmingCharacters(in: .whitespacesAndNewlines)
            if location.visitationOrder == SL17Archive.unknownVisitationOrder {
                placeOf[location.id] = .unknown
                // A household created by this import starts with the Unknown Location's defaults.
                let current = state.locations[.unknown] ?? Location(id: .unknown, name: "Unknown Location",
                                                                    position: Limits.unknownLocationPosition, color: .grey)
                if current.color != location.color, location.color.isValid {
                    commands.append(.recolorLocation(location: .unknown, color: location.color))
                }
                if Limits.nameLength.contains(name.count), current.name != name {
                    commands.append(.renameLocation(location: .unknown, name: name))
                }
                continue
            }
            if let existing = state.locations[location.id] {
                placeOf[location.id] = existing.isDeleted ? .unknown : location.id
                if !existing.isDeleted { archiveOrder.append(location.id) }
                continue
            }
            guard !known.contains(location.id) else { continue }
            known.insert(location.id)
            commands.append(.createLocation(location: location.id, name: name, color: location.color))
            placeOf[location.id] = location.id
            predictedOrder.append(location.id)
            archiveOrder.append(location.id)
        }
        let wanted = archiveOrder + predictedOrder.filter { !archiveOrder.contains($0) }
        if wanted != predictedOrder { commands.append(.reorderLocations(order: wanted)) }

        var onList: [(ItemID, Int)] = []
        var seenItems = Set<ItemID>()
        for location in ordered {
            for item in location.items where seenItems.insert(item.id).inserted {
                let existing = state.items[item.id]
                if existing == nil {
                    commands.append(.createItem(item: item.id, name: item.name.trimmingCharacters(in: .whitespacesAndNewlines),
                                                location: placeOf[location.id] ?? .unknown, details: .none))
                }
                if !item.isAvailable, existing?.isAvailable ?? true {
                    commands.append(.setItemAvailability(item: item.id, available: false))
                }
                if item.onList { onList.append((item.id, min(max(item.quantity, 1), Limits.quantity.upperBound))) }
                if let date = item.dateLastPurchased {
                    let purchase = purchaseID(item: item.id, at: date)
                    if state.purchases[purchase] == nil, !state.isUsed(purchase.uuid) {
                        commands.append(.purchaseItem(purchase: purchase, item: item.id, list: nil, quantity: nil,
                                                      unitPrice: nil, location: nil, purchasedAt: date))
                    }
                }
            }
        }
        if !onList.isEmpty {
            let key = listName.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
            let list = state.lists.values.first { !$0.isDeleted && $0.name.lowercased() == key }
            let listID = list?.id ?? ids.make()
            if list == nil { commands.append(.createList(list: listID, name: listName, priority: nil)) }
            for (item, quantity) in onList where !(list?.entry(for: item).map { !$0.isBought } ?? false) {
                commands.append(.addItemToList(list: listID, item: item, quantity: quantity))
            }
        }
        return commands
    }

    /// The list an export puts on the archive's list. A name must be a live
    /// list's (else `unknown_list`). Without one: the list called `Shopping
    /// List`, else the first live list as the lists view orders them
    /// (priority high to low, then name); `nil` when there is no live list.
    public static func exportList(_ state: ShopState, named name: String?) throws(RuleViolation) -> ListID? {
        if let name { return try state.requireLiveList(named: name) }
        if let id = state.liveList(named: defaultListName) { return id }
        return state.lists.values.filter { !$0.isDeleted }
            .min { (-$0.priority.rank, $0.name.lowercased(), $0.id) < (-$1.priority.rank, $1.name.lowercased(), $1.id) }?.id
    }

    /// The id of the purchase an archive's `dateLastPurchased` becomes: the
    /// same item and date always give the same id, so a second import adds none.
    static func purchaseID(item: ItemID, at time: Timestamp) -> PurchaseID {
        var bytes = Array(SHA256.hash(Array("SL17 purchase \(item) \(time)".utf8)).hex.utf8.prefix(32))
        bytes[12] = UInt8(ascii: "5")   // a name-based UUID, version 5 style
        let hex = String(decoding: bytes, as: UTF8.self)
        let text = "\(hex.prefix(8))-\(hex.dropFirst(8).prefix(4))-\(hex.dropFirst(12).prefix(4))-\(hex.dropFirst(16).prefix(4))-\(hex.dropFirst(20))"
        return PurchaseID(text)!
    }

    /// The household as an archive: live locations in visiting order (Unknown
    /// last), their live items by name, `onList` and `quantity` from the
    /// named list's unbought entries, the last non-reverted purchase date.
    public static func export(_ state: ShopState, listName: String = defaultListName) -> SL17Archive {
        export(state, list: state.liveList(named: listName))
    }

    /// The household as an archive, with the unbought entries of `list` (if any) on the list.
    public static func export(_ state: ShopState, list listID: ListID?) -> SL17Archive {
        let list = listID.flatMap { state.lists[$0] }
        var lastPurchase: [ItemID: Timestamp] = [:]
        for purchase in state.purchases.values where !purchase.isReverted {
            lastPurchase[purchase.item] = max(lastPurchase[purchase.item] ?? .earliest, purchase.effectiveTime)
        }
        let itemsByLocation = Dictionary(grouping: state.items.values.filter { !$0.isDeleted }, by: \.location)
        return SL17Archive(locations: state.visitingOrder.compactMap { id in
            guard let location = state.locations[id] else { return nil }
            let items = (itemsByLocation[id] ?? []).sorted { ($0.name.lowercased(), $0.id) < ($1.name.lowercased(), $1.id) }
            return SL17Archive.Location(
                id: id, name: location.name,
                visitationOrder: id == .unknown ? SL17Archive.unknownVisitationOrder : location.position,
                color: location.color,
                items: items.map { item in
                    let entry = list?.entry(for: item.id).flatMap { $0.isBought ? nil : $0 }
                    return SL17Archive.Item(id: item.id, name: item.name, onList: entry != nil, isAvailable: item.isAvailable,
                                            quantity: entry?.quantity ?? 1, dateLastPurchased: lastPurchase[item.id])
                })
        })
    }
}
