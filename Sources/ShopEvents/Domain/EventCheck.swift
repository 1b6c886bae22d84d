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
        case let .itemRemovedFromList(list, item) where state.lists[list]?.isDeleted == true:
            // DeleteItem also takes an item off soft-deleted lists.
            _ = try state.requireEntry(item, on: try state.requireList(list))
            return
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, .some(store))
            where purchasedAt == nil && state.stores[store]?.isDeleted == true && state.isRunningTripStore(store):
            // Builds before v4's last fixes gave such a purchase the trip's store though it was deleted during the trip:
            // checked as the purchase at no store the rules make now, so that every journal they wrote still verifies.
            try checkUnderCurrentRules(.itemPurchased(purchase: purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                                      location: location, purchasedAt: nil, store: nil), state, actor: actor)
            return
        case let .itemPurchased(purchase, item, list, quantity, unitPrice, location, purchasedAt, store):
            // A store taken from the actor's running trip was not given: checked as the purchase that gave none. Any
            // other store is checked as given, which also passes a purchase that builds before trips belonged to their
            // shopper gave the one running trip's store whoever bought.
            let given = store != nil && purchasedAt == nil && store == state.runningTripStore(for: actor) ? nil : store
            command = .purchaseItem(purchase: purchase, item: item, list: list, quantity: quantity, unitPrice: unitPrice,
                                    location: location, purchasedAt: purchasedAt, store: given)
        case let .memberAdded(member, role) where state.isOpen && member == actor && role == .owner:
            // The first AddMember of an open household makes the issuer an owner first, in the same command.
            return
        default:
            // Every other event is what the command declared to make it decides, given the event's data.
            command = Command.making(event)
        }
        let decided = try decide(command, state, actor: actor)
        // Compared in place: `decided == [event]` made an array (an allocation and a copy of the event) for each event checked.
        guard decided.count == 1, decided[0] == event else {
            throw RuleViolation(.inconsistentEvent, "the rules make \(decided.map(\.typeName).joined(separator: ", ")) \(decided.count == 1 ? "with other data " : "")from this state, not this \(event.typeName)")
        }
    }
}
