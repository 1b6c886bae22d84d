// Lists: named lists with a priority, their entries, soft deletion, restore and purge.

extension ShopDecider {
    static func decideCreateList(_ list: ListID, name: String, priority: Priority?,
                                 _ state: ShopState) throws(RuleViolation) -> [Event] {
        try state.requireNew(list, field: "list")
        let name = try state.listNames.available(name, for: list)
        return [.listCreated(list: list, name: name, priority: priority ?? .normal)]
    }

    static func decideRenameList(_ list: ListID, name: String, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveList(list)
        return [.listRenamed(list: list, name: try state.listNames.available(name, for: list))]
    }

    static func decideSetListPriority(_ list: ListID, priority: Priority,
                                      _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveList(list)
        return [.listPriorityChanged(list: list, priority: priority)]
    }

    static func decideDeleteList(_ list: ListID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireLiveList(list)
        return [.listDeleted(list: list)]
    }

    /// Brings a soft-deleted list back, unless a live list has taken its name meanwhile.
    static func decideRestoreList(_ list: ListID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        let existing = try state.requireSoftDeletedList(list)
        _ = try state.listNames.available(existing.name, for: list)
        return [.listRestored(list: list)]
    }

    static func decidePurgeList(_ list: ListID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        _ = try state.requireSoftDeletedList(list)
        return [.listPurged(list: list)]
    }

    /// An item on the list and not bought is rejected; a bought one gets a fresh
    /// unbought entry that replaces the bought one. New entries go last.
    static func decideAddItemToList(_ list: ListID, item: ItemID, quantity: Quantity?,
                                    _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        let found = try state.requireLiveItem(item)
        // Without a quantity, the item's own (what it usually goes on a list with), else 1.
        let quantity = try ShopState.validQuantity(quantity ?? found.details.quantity ?? 1)
        if let entry = shoppingList.entry(for: item), !entry.isBought {
            throw RuleViolation(.alreadyOnList, "item \(item) (\(ShopState.quoted(found.name))) is already on list \(list) (\(ShopState.quoted(shoppingList.name))) and not bought; change its quantity instead", field: "item")
        }
        return [.itemAddedToList(list: list, item: item, quantity: quantity)]
    }

    static func decideChangeQuantity(_ list: ListID, item: ItemID, quantity: Quantity,
                                     _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        let quantity = try ShopState.validQuantity(quantity)
        let entry = try state.requireEntry(item, on: shoppingList)
        if entry.isBought {
            throw RuleViolation(.alreadyBought, "item \(item) on list \(list) is already bought; add it again for a fresh entry", field: "item")
        }
        return [.listEntryQuantityChanged(list: list, item: item, quantity: quantity)]
    }

    /// Who is getting an entry (docs/COMMANDS.md, "Lists"): the entry is on the list and
    /// not bought; the member is a name an actor may have, and in a closed
    /// household one of its members. Assigning the assignee it has already is
    /// `unchanged` (no event that changes nothing).
    static func decideAssignEntry(_ list: ListID, item: ItemID, member: String?,
                                  _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        let entry = try state.requireEntry(item, on: shoppingList)
        if entry.isBought {
            throw RuleViolation(.alreadyBought, "item \(item) on list \(list) is already bought: there is nothing left to get", field: "item")
        }
        if let member {
            try ShopState.validMember(member)
            if !state.isOpen { _ = try state.requireMember(member) }
        }
        guard entry.assignee != member else {
            throw RuleViolation(.unchanged, member.map { "the entry is \(ShopState.quoted($0))'s already" } ?? "the entry is nobody's already", field: "member")
        }
        return [.listEntryAssigned(list: list, item: item, member: member)]
    }

    /// Takes an entry off the list without buying it, bought or not.
    static func decideRemoveItemFromList(_ list: ListID, item: ItemID,
                                         _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        _ = try state.requireEntry(item, on: shoppingList)
        return [.itemRemovedFromList(list: list, item: item)]
    }

    /// The order must name every item on the list, bought or not, exactly once.
    static func decideReorderList(_ list: ListID, order: [ItemID], _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        try ShopState.requireExactly(order, members: Set(shoppingList.entries.map(\.item)), what: "item on the list")
        return [.listReordered(list: list, order: order)]
    }

    static func decideClearBought(_ list: ListID, _ state: ShopState) throws(RuleViolation) -> [Event] {
        let shoppingList = try state.requireLiveList(list)
        guard shoppingList.entries.contains(where: \.isBought) else {
            throw RuleViolation(.nothingToClear, "list \(list) (\(ShopState.quoted(shoppingList.name))) has no bought entries to clear", field: "list")
        }
        return [.boughtEntriesCleared(list: list)]
    }
}

extension ShopState {
    func requireSoftDeletedList(_ id: ListID) throws(RuleViolation) -> ShoppingList {
        let list = try requireList(id)
        guard list.isDeleted else {
            throw RuleViolation(.listNotDeleted, "list \(id) (\(Self.quoted(list.name))) is not deleted; only a soft-deleted list can be restored or purged", field: "list")
        }
        return list
    }

    func requireEntry(_ item: ItemID, on list: ShoppingList) throws(RuleViolation) -> ListEntry {
        guard let entry = list.entry(for: item) else {
            throw RuleViolation(.notOnList, "item \(item) is not on list \(list.id) (\(Self.quoted(list.name)))", field: "item")
        }
        return entry
    }

    mutating func applyListCreated(_ id: ListID, name: String, priority: Priority, at: Timestamp, actor: String) {
        lists[id] = ShoppingList(id: id, name: name, priority: priority, createdAt: at, createdBy: actor)
        listNames.claim(name, by: id)
    }

    mutating func applyListRenamed(_ id: ListID, name: String) {
        guard let old = lists[id] else { return }
        lists.change(id) { $0.name = name }
        listNames.rename(id, from: old.name, to: name, isLive: !old.isDeleted)
    }

    mutating func applyListDeleted(_ id: ListID, at: Timestamp, actor: String) {
        guard let old = lists[id] else { return }
        lists.change(id) { ($0.deletedAt, $0.deletedBy) = (at, actor) }
        listNames.release(old.name, by: id)
    }

    mutating func applyListRestored(_ id: ListID) {
        guard let old = lists[id] else { return }
        lists.change(id) { ($0.deletedAt, $0.deletedBy) = (nil, nil) }
        listNames.claim(old.name, by: id)
    }

    mutating func applyItemAddedToList(_ id: ListID, item: ItemID, quantity: Quantity, seq: Int) {
        lists.change(id) {
            $0.entries.removeAll { $0.item == item }
            $0.entries.append(ListEntry(item: item, quantity: quantity, addedSeq: seq))
        }
    }

    /// The entries in `order` (an item named twice counts where first
    /// named), those it leaves out after them as they were. Each entry goes
    /// straight to its place, no sort: a list's items are distinct.
    mutating func applyListReordered(_ id: ListID, order: [ItemID]) {
        lists.change(id) { $0.entries = ShopState.reordered($0.entries, by: order) }
    }

    /// `entries` in `order`, the rest after them in the order they had.
    static func reordered(_ entries: [ListEntry], by order: [ItemID]) -> [ListEntry] {
        // Where each item first stands in `order`: looked for along it when the order is short
        // (a shopping list's is), through a table when it is long.
        let table = order.count > 64 ? Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first }) : nil
        var placed = [ListEntry?](repeating: nil, count: order.count)
        var rest: [ListEntry] = []
        for entry in entries {
            let rank = if let table { table[entry.item] } else { order.firstIndex { $0.words == entry.item.words } }
            guard let rank else {
                rest.append(entry)
                continue
            }
            guard placed[rank] == nil else { return referenceReordered(entries, by: order) }   // an item listed twice
            placed[rank] = entry
        }
        var result: [ListEntry] = []
        result.reserveCapacity(entries.count)
        for case let entry? in placed { result.append(entry) }
        result.append(contentsOf: rest)
        return result
    }

    /// The same by a stable sort on each entry's rank: for entries that name an item twice, which no decision leaves.
    static func referenceReordered(_ entries: [ListEntry], by order: [ItemID]) -> [ListEntry] {
        let rank = Dictionary(order.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let keys = entries.enumerated().map { rank[$0.element.item] ?? order.count + $0.offset }
        return entries.indices.sorted { (keys[$0], $0) < (keys[$1], $1) }.map { entries[$0] }
    }
}
