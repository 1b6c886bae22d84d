// Whether a recorded event is legal given the events before it: the event must
// be exactly what the rules make from the command that asks for it. This
// reuses every rule of the deciders instead of writing them twice.

extension ShopDecider {
    /// Throws unless `event` could have been decided from `state`.
    ///
    /// ```swift
    /// try ShopDecider.check(.itemRenamed(item: milk, name: "Oat milk"), state, actor: "ana")   // ok, or a RuleViolation
    /// ```
    public static func check(_ event: Event, _ state: ShopState, actor: String) throws(RuleViolation) {
        do throws(RuleViolation) {
            try checkUnderCurrentRules(event, state, actor: actor)
        } catch where error.reason == .invalidName || error.reason == .invalidText {
            // Perhaps a text that v4 refuses and v3 wrote (a C1 character in a name, a carriage return in a note):
            // checked again under the text rules of the journal's time, so that every v3 journal still verifies.
            do {
                try Limits.$checkingRecordedText.withValue(true) { try checkUnderCurrentRules(event, state, actor: actor) }
            } catch let violation as RuleViolation {
                throw violation
            } catch {
                throw RuleViolation(.inconsistentEvent, "\(error)")   // checkUnderCurrentRules throws RuleViolation only
            }
        }
    }

    private static func checkUnderCurrentRules(_ event: Event, _ state: ShopState, actor: String) throws(RuleViolation) {
        let command: Command
        switch event {
        case let .householdCreated(household, name, currency, timeZone):
            // Not against this machine's time zone database: it was checked where the household was created.
            let decided = try decideCreateHousehold(household, name: name, currency: currency, timeZone: timeZone, state, checkTimeZone: false)
            guard decided == [event] else {
                throw RuleViolation(.inconsistentEvent, "the rules make other data from this HouseholdCreated")
            }
            return
        case let .locationCreated(location, name, _, color):
            command = .createLocation(location: location, name: name, color: color)
        case let .locationRenamed(location, name): command = .renameLocation(location: location, name: name)
        case let .locationRecolored(location, color): command = .recolorLocation(location: location, color: color)
        case let .locationsReordered(order, positions, alias): command = .reorderLocations(order: order, positions: positions, unknownAlias: alias)
        case let .locationDeleted(location): command = .deleteLocation(location: location)
        case let .itemCreated(item, name, location, details):
            command = .createItem(item: item, name: name, location: location, details: details)
        case let .itemRenamed(item, name): command = .renameItem(item: item, name: name)
        case let .itemDetailsChanged(item, details): command = .changeItemDetails(item: item, patch: ItemDetailsPatch(replacingWith: details))
        case let .itemRelocated(item, location): command = .relocateItem(item: item, location: location)
        case let .itemAvailabilityChanged(item, available): command = .setItemAvailability(item: item, available: available)
        case let .itemDeleted(item): command = .deleteItem(item: item)
        case let .listCreated(list, name, priority): command = .createList(list: list, name: name, priority: priority)
        case let .listRenamed(list, name): command = .renameList(list: list, name: name)
        case let .listPriorityChanged(list, priority): command = .setListPriority(list: list, priority: priority)
        case let .listDeleted(list): command = .deleteList(list: list)
        case let .listRestored(list): command = .restoreList(list: list)
        case let .listPurged(list): command = .purgeList(list: list)
        case let .itemAddedToList(list, item, quantity): command = .addItemToList(list: list, item: item, quantity: quantity)
        case let .listEntryQuantityChanged(list, item, quantity):
            command = .changeQuantity(list: list, item: item, quantity: quantity)
        case let .itemRemovedFromList(list, item):
            // DeleteItem also takes an item off soft-deleted lists.
            if state.lists[list]?.isDeleted == true {
                _ = try state.requireEntry(item, on: try state.requireList(list))
                return
            }
            command = .removeItemFromList(list: list, item: item)
        case let .listReordered(list, order): command = .reorderList(list: list, order: order)
        case let .listEntryAssigned(list, item, member): command = .assignEntry(list: list, item: item, member: member)
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            // A store taken from the running trip was not given: checked as the purchase that gave none.
            let given = store != nil && purchasedAt == nil && store == state.runningTripStore ? nil : store
            command = .purchaseItem(purchase: purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                    location: location, purchasedAt: purchasedAt, store: given)
        case let .purchaseReverted(purchase): command = .revertPurchase(purchase: purchase)
        case let .boughtEntriesCleared(list): command = .clearBought(list: list)
        case let .tripStarted(trip, list, store): command = .startTrip(trip: trip, list: list, store: store)
        case let .storeCreated(store, name): command = .createStore(store: store, name: name)
        case let .storeRenamed(store, name): command = .renameStore(store: store, name: name)
        case let .storeDeleted(store): command = .deleteStore(store: store)
        case let .tripPaused(trip): command = .pauseTrip(trip: trip)
        case let .tripResumed(trip): command = .resumeTrip(trip: trip)
        case let .tripEnded(trip): command = .endTrip(trip: trip)
        case let .memberAdded(member, role):
            // The first AddMember of an open household makes the issuer an owner first, in the same command.
            if state.isOpen, member == actor, role == .owner { return }
            command = .addMember(member: member, role: role)
        case let .memberRoleChanged(member, role): command = .changeMemberRole(member: member, role: role)
        case let .memberRemoved(member): command = .removeMember(member: member)
        }
        let decided = try decide(command, state, actor: actor)
        // Compared in place: `decided == [event]` made an array (an allocation and a copy of the event) for each event checked.
        guard decided.count == 1, decided[0] == event else {
            throw RuleViolation(.inconsistentEvent, "the rules make \(decided.map(\.typeName).joined(separator: ", ")) \(decided.count == 1 ? "with other data " : "")from this state, not this \(event.typeName)")
        }
    }
}
