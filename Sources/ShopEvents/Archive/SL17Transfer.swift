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

    /// What an import changed of the archive to fit the household's rules,
    /// one case each: the archive is a user's data, so nothing is dropped
    /// without being said.
    public struct Change: Hashable, Sendable {
        public enum Kind: String, Sendable {
            /// A name taken (ignoring case, after trimming), empty, too long or with control characters: given another.
            case renamed
            /// An id that appears a second time in the archive: the first is kept.
            case merged
            /// A quantity or colour component outside the rules' range: brought into it.
            case adjusted
            /// A `visitationOrder` not above the one before it: the next free number.
            case renumbered
        }
        public var kind: Kind
        /// `item` or `location`.
        public var what: String
        public var id: UUID
        /// What the archive has, and what the household now has.
        public var from: String
        public var to: String
        /// Why, for people.
        public var reason: String

        /// One line for people.
        public var summary: String {
            "\(kind.rawValue) \(what) \(id): \(from) → \(to) (\(reason))"
        }
    }

    /// The commands that bring a household up to an archive, and what they change of it.
    public struct Plan: Sendable {
        public var commands: [Command] = []
        public var changes: [Change] = []
    }

    /// The commands, in order, that make `state` hold everything in `archive`.
    public static func importCommands(_ archive: SL17Archive, into state: ShopState, listName: String = defaultListName,
                                      household: NewHousehold = NewHousehold(), ids: IDGenerator) -> [Command] {
        plan(archive, into: state, listName: listName, household: household, ids: ids).commands
    }

    /// The commands, in order, that make `state` hold everything in `archive`,
    /// and each change made to fit the rules (see ``Change``): names that
    /// collide ignoring case get ` (2)`, ` (3)`, …; invalid names are mended;
    /// quantities and colours are brought into range; an id seen twice is
    /// imported once. Every command of the plan is accepted by `state`.
    public static func plan(_ archive: SL17Archive, into state: ShopState, listName: String = defaultListName,
                            household: NewHousehold = NewHousehold(), ids: IDGenerator) -> Plan {
        var plan = Plan()
        if state.household == nil {
            plan.commands.append(.createHousehold(household: ids.make(), name: household.name,
                                                  currency: household.currency, timeZone: household.timeZone))
        }
        let ordered = archive.locations.enumerated().sorted {
            ($0.element.visitationOrder, $0.offset) < ($1.element.visitationOrder, $1.offset)
        }.map(\.element)
        let placeOf = planLocations(ordered, into: state, plan: &plan)
        let onList = planItems(ordered, into: state, placeOf: placeOf, plan: &plan)
        if !onList.isEmpty { planList(listName, holding: onList, into: state, ids: ids, plan: &plan) }
        return plan
    }

    /// The plan's locations, in the archive's visiting order: each created or
    /// the household's own kept, the Unknown Location renamed and recoloured,
    /// then the reorder; gives where the items of each archive location go.
    private static func planLocations(_ ordered: [SL17Archive.Location], into state: ShopState,
                                      plan: inout Plan) -> [LocationID: LocationID] {
        var locationNames = Names(taken: state.locations.values.filter { !$0.isDeleted }.map { ($0.name, $0.id.uuid) })
        var placeOf: [LocationID: LocationID] = [:]   // archive location → household location
        var known = Set(state.locations.keys)
        // The visiting order as the household will have it, and the numbers the archive gives each stop.
        var archiveOrder: [(id: LocationID, visitationOrder: Int)] = []
        var unknownAlias: LocationID?
        for location in ordered {
            if location.visitationOrder == SL17Archive.unknownVisitationOrder {
                placeOf[location.id] = .unknown
                if location.id != .unknown { unknownAlias = location.id }
                // A household created by this import starts with the Unknown Location's defaults.
                let current = state.locations[.unknown] ?? Location(id: .unknown, name: "Unknown Location",
                                                                    position: Limits.unknownLocationPosition, color: .grey)
                let color = adjusted(location.color, of: location.id, into: &plan)
                if current.color != color { plan.commands.append(.recolorLocation(location: .unknown, color: color)) }
                let name = locationNames.fit(location.name, id: LocationID.unknown.uuid, default: "Unknown Location", what: "location",
                                             archiveID: location.id.uuid, into: &plan)
                if current.name != name { plan.commands.append(.renameLocation(location: .unknown, name: name)) }
                continue
            }
            if let existing = state.locations[location.id] {
                placeOf[location.id] = existing.isDeleted ? .unknown : location.id
                if !existing.isDeleted { archiveOrder.append((location.id, location.visitationOrder)) }
                continue
            }
            guard known.insert(location.id).inserted else {
                plan.changes.append(Change(kind: .merged, what: "location", id: location.id.uuid, from: quoted(location.name),
                                           to: "the first location with this id",
                                           reason: "the archive has this id twice; the items of both go there"))
                continue
            }
            let name = locationNames.fit(location.name, id: location.id.uuid, default: "Unnamed location", what: "location",
                                         archiveID: location.id.uuid, into: &plan)
            plan.commands.append(.createLocation(location: location.id, name: name, color: adjusted(location.color, of: location.id, into: &plan)))
            placeOf[location.id] = location.id
            archiveOrder.append((location.id, location.visitationOrder))
        }
        plan.commands += reorder(state, archiveOrder: archiveOrder, created: plan.commands, unknownAlias: unknownAlias, into: &plan)
        return placeOf
    }

    /// The plan's items, location by location (an id seen twice imported
    /// once): created or given the archive's quantity, availability and last
    /// purchase; those on the archive's list, with their quantities.
    private static func planItems(_ ordered: [SL17Archive.Location], into state: ShopState, placeOf: [LocationID: LocationID],
                                  plan: inout Plan) -> [(ItemID, Quantity)] {
        var itemNames = Names(taken: state.items.values.filter { !$0.isDeleted }.map { ($0.name, $0.id.uuid) })
        var onList: [(ItemID, Quantity)] = []
        var seenItems: [ItemID: String] = [:]
        for location in ordered {
            for item in location.items {
                if let first = seenItems[item.id] {
                    plan.changes.append(Change(kind: .merged, what: "item", id: item.id.uuid, from: quoted(item.name), to: quoted(first),
                                               reason: "the archive has this id twice; the first is imported"))
                    continue
                }
                seenItems[item.id] = item.name
                let quantity = adjustedQuantity(item, into: &plan)
                let existing = state.items[item.id]
                if existing == nil {
                    let name = itemNames.fit(item.name, id: item.id.uuid, default: "Unnamed item", what: "item",
                                             archiveID: item.id.uuid, into: &plan)
                    // The archive's quantity is the item's, on the list or not: kept as the quantity it goes on a list with.
                    plan.commands.append(.createItem(item: item.id, name: name, location: placeOf[location.id] ?? .unknown,
                                                     details: ItemDetails(quantity: quantity == 1 ? nil : quantity)))
                } else if let existing, !existing.isDeleted, (existing.details.quantity ?? 1) != quantity {
                    plan.commands.append(.changeItemDetails(item: item.id, patch: ItemDetailsPatch(quantity: quantity == 1 ? .clear : .set(quantity))))
                }
                if !item.isAvailable, existing?.isAvailable ?? true {
                    plan.commands.append(.setItemAvailability(item: item.id, available: false))
                }
                if item.onList { onList.append((item.id, quantity)) }
                if let date = item.dateLastPurchased {
                    let purchase = purchaseID(item: item.id, at: date)
                    if state.purchases[purchase] == nil, !state.isUsed(purchase.uuid) {
                        plan.commands.append(.purchaseItem(purchase: purchase, item: item.id, list: nil, quantity: nil,
                                                           unitPrice: nil, location: nil, purchasedAt: date))
                    }
                }
            }
        }
        return onList
    }

    /// The items on the archive's list onto the live list `listName`, made
    /// if there is none; those on it and not bought stay as they are.
    private static func planList(_ listName: String, holding onList: [(ItemID, Quantity)], into state: ShopState, ids: IDGenerator,
                                 plan: inout Plan) {
        let list = state.liveList(named: listName).flatMap { state.lists[$0] }
        let listID = list?.id ?? ids.make()
        if list == nil { plan.commands.append(.createList(list: listID, name: listName, priority: nil)) }
        for (item, quantity) in onList where !(list?.entry(for: item).map { !$0.isBought } ?? false) {
            plan.commands.append(.addItemToList(list: listID, item: item, quantity: quantity))
        }
    }

    /// The reorder that gives the household the archive's visiting order and
    /// its numbers (`visitationOrder`), and the archive's id for the Unknown
    /// Location; none if it has them already. Stops of the household that
    /// the archive does not have come after the archive's, numbered on.
    private static func reorder(_ state: ShopState, archiveOrder: [(id: LocationID, visitationOrder: Int)], created: [Command],
                                unknownAlias: LocationID?, into plan: inout Plan) -> [Command] {
        // The order and positions the household has once the archive's new locations are created (each goes last).
        var current = state.visitingOrder.filter { $0 != .unknown }.map { ($0, state.locations[$0]?.position ?? 0) }
        for case let .createLocation(id, _, _) in created {
            current.append((id, (current.map(\.1).max() ?? 0) + 1))
        }
        var order: [LocationID] = [], positions: [Int] = []
        for stop in archiveOrder {
            var position = stop.visitationOrder
            if let last = positions.last, position <= last {   // the one before is at least 1
                plan.changes.append(Change(kind: .renumbered, what: "location", id: stop.id.uuid, from: "visitationOrder \(position)",
                                           to: "\(last + 1)", reason: "two locations cannot share a place in the visiting order"))
                position = last + 1
            } else if position < 1 {
                plan.changes.append(Change(kind: .renumbered, what: "location", id: stop.id.uuid, from: "visitationOrder \(position)",
                                           to: "1", reason: "the visiting order is numbered from 1"))
                position = 1
            }
            order.append(stop.id)
            positions.append(position)
        }
        for (id, _) in current where !order.contains(id) {
            order.append(id)
            positions.append((positions.last ?? 0) + 1)
        }
        let alias = unknownAlias.flatMap { $0 == state.unknownLocationAlias || state.isUsed($0.uuid) ? nil : $0 }
        guard order != current.map(\.0) || positions != current.map(\.1) || alias != nil,
              positions.last.map({ $0 < Limits.unknownLocationPosition }) ?? true else { return [] }
        return [.reorderLocations(order: order, positions: positions, unknownAlias: alias)]
    }

    /// The archive's quantity (a whole number) within the allowed range.
    private static func adjustedQuantity(_ item: SL17Archive.Item, into plan: inout Plan) -> Quantity {
        let quantity = Quantity(min(max(item.quantity, 1), 9999))
        if quantity != Quantity(item.quantity) {
            plan.changes.append(Change(kind: .adjusted, what: "item", id: item.id.uuid, from: "quantity \(item.quantity)", to: "\(quantity)",
                                       reason: "a quantity is 1 to 9999"))
        }
        return quantity
    }

    private static func adjusted(_ color: Color, of location: LocationID, into plan: inout Plan) -> Color {
        guard !color.isValid else { return color }
        func clamp(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }
        let fixed = Color(red: clamp(color.red), green: clamp(color.green), blue: clamp(color.blue), opacity: clamp(color.opacity))
        plan.changes.append(Change(kind: .adjusted, what: "location", id: location.uuid,
                                   from: "colour (\(color.red), \(color.green), \(color.blue), \(color.opacity))",
                                   to: "(\(fixed.red), \(fixed.green), \(fixed.blue), \(fixed.opacity))", reason: "each component is 0 to 1"))
        return fixed
    }

    static func quoted(_ text: String) -> String { "\"" + Limits.visible(text) + "\"" }

    /// Names taken so far, ignoring case: the household's live ones, then the import's.
    struct Names {
        private var owners: [String: (name: String, id: UUID)] = [:]

        init(taken: [(String, UUID)]) {
            for (name, id) in taken { owners[name.lowercased()] = (name, id) }
        }

        /// `raw` as the rules take it (trimmed, no control characters, 1 to
        /// 200 characters) and free; else the first free `NAME (2)`, `NAME (3)`, …
        /// Each change is said in `plan`.
        mutating func fit(_ raw: String, id: UUID, default fallback: String, what: String, archiveID: UUID, into plan: inout Plan) -> String {
            // Trimming is no change worth saying (the rules always trim); a control character within is.
            let trimmed = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            var name = String(String.UnicodeScalarView(trimmed.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var why: [String] = []
            if trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                why.append("a name holds no control characters")
            }
            if name.isEmpty { name = fallback; why.append("a name is not empty") }
            if name.count > Limits.nameLength.upperBound { name = String(name.prefix(Limits.nameLength.upperBound)); why.append("a name is at most 200 characters") }
            if let owner = owners[name.lowercased()], owner.id != id {
                var number = 2
                let base = String(name.prefix(Limits.nameLength.upperBound - 8))
                while owners["\(base) (\(number))".lowercased()] != nil { number += 1 }
                why.append("\(SL17Transfer.quoted(owner.name)) (\(owner.id)) has that name, ignoring case")
                name = "\(base) (\(number))"
            }
            owners[name.lowercased()] = (name, id)
            if !why.isEmpty {
                plan.changes.append(Change(kind: .renamed, what: what, id: archiveID, from: SL17Transfer.quoted(raw), to: SL17Transfer.quoted(name),
                                           reason: why.joined(separator: "; ")))
            }
            return name
        }
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
        let words = SHA256.hash(Array("SL17 purchase \(item) \(time)".utf8)).words
        // The digest's first 16 bytes (its words are big-endian), byte 6's high nibble 5: a name-based UUID, version 5 style.
        var bytes = [words.0, words.1, words.2, words.3].flatMap { word in (0..<4).map { UInt8(truncatingIfNeeded: word >> (24 - 8 * $0)) } }
        bytes[6] = bytes[6] & 0x0F | 0x50
        return PurchaseID(UUIDText.uuid(bytes))
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
                id: id == .unknown ? state.unknownLocationAlias ?? .unknown : id, name: location.name,
                visitationOrder: id == .unknown ? SL17Archive.unknownVisitationOrder : location.position,
                color: location.color,
                items: items.map { item in
                    let entry = list?.entry(for: item.id).flatMap { $0.isBought ? nil : $0 }
                    return SL17Archive.Item(id: item.id, name: item.name, onList: entry != nil, isAvailable: item.isAvailable,
                                            quantity: archiveQuantity(entry?.quantity ?? item.details.quantity ?? 1), dateLastPurchased: lastPurchase[item.id])
                })
        })
    }

    /// An archive's quantity is a whole number: a decimal one (1.5 kg) goes
    /// out rounded up (docs/TOOL.md, `export-sl17`), so that the list never asks for less.
    static func archiveQuantity(_ quantity: Quantity) -> Int {
        quantity.whole ?? (quantity.thousandths + 999) / 1000
    }
}
