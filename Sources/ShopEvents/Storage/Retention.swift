// How much history a fold keeps: the choice of whoever folds, never of the rules.

/// How much of the household's history a fold of ``ShopState`` keeps.
///
/// The domain's fold (``ShopState/apply(_:_:)``) keeps everything: every
/// purchase, every ended trip, every deleted item and location, which only
/// decisions, statistics and the audit read. A projection that shows none of
/// them (the lists, shopping lists, locations, members) folds with
/// ``present`` instead and takes memory by the household rather than by its
/// history. (A deleted location holds no live item: deleting it moves them
/// to Unknown first.) Such a state is never decided against. Its views equal
/// those of the whole state for any journal that keeps the rules (`verify`
/// says); one that names a deleted item or location again, as no decider
/// does, may show less of it. (`verify`'s lean state is its own:
/// `LeanVerifyFold`.)
package enum Retention: Hashable, Sendable {
    /// The whole history: the domain's own fold.
    case everything
    /// What is live, no history at all: no purchase (a revert un-buys the
    /// entry its purchase bought by looking through the lists), no deleted
    /// item or location, no ended trip.
    case present
}

extension ShopState {
    /// Folds one journal line in place, keeping as much history as `retention` says.
    package mutating func apply(_ recorded: RecordedEvent, keeping retention: Retention) {
        apply(recorded.event, recorded.context, keeping: retention)
    }

    /// Folds one event in place, keeping as much history as `retention` says:
    /// the domain's fold, then what `retention` does not keep let go.
    package mutating func apply(_ event: Event, _ context: EventContext, keeping retention: Retention) {
        guard retention == .present else { return apply(event, context) }
        switch event {
        case let .itemPurchased(purchase, item, list, _, _, location, purchasedAt, _):
            markBought(by: Purchase(id: purchase, item: item, list: list, location: location,
                                    effectiveTime: purchasedAt ?? context.at, seq: context.seq))
        case let .purchaseReverted(purchase):
            unbuyEntries(boughtBy: purchase)
        case let .itemDeleted(item):
            apply(event, context)
            items[item] = nil
        case let .locationDeleted(location):
            apply(event, context)
            locations[location] = nil
        case let .tripEnded(trip):
            apply(event, context)
            trips[trip] = nil
        default:
            apply(event, context)   // lets go of nothing else (stores, deleted ones too, are few: all kept)
        }
    }

    /// Lets go of the purchase table, the ended trips and the deleted items
    /// and locations: the state as a fold with ``Retention/present`` would have it.
    package mutating func dropHistory() {
        purchases.removeAll()
        trips = trips.filter { if case .ended = $0.value.phase { false } else { true } }
        items = items.filter { !$0.value.isDeleted }
        locations = locations.filter { !$0.value.isDeleted }
    }

    /// A revert without the purchase table: the entry bought by `id` is to buy
    /// again. It is the first entry of its item on the purchase's list, as
    /// with the table; only a journal that reused a purchase id (which
    /// `verify` refuses) could have a second entry bought by it, and that
    /// one is un-bought too.
    private mutating func unbuyEntries(boughtBy id: PurchaseID) {
        for position in lists.indices {
            // Looked for where the entries lie: all but one list, most often all, hold none bought by it.
            guard lists.values[position].entries.contains(where: { $0.purchase == id }) else { continue }
            let entries = lists.values[position].entries
            for (index, entry) in entries.enumerated() where entry.purchase == id {
                guard entries.firstIndex(where: { $0.item == entry.item }) == index else { continue }
                lists.values[position].entries[index].purchase = nil
                lists.values[position].entries[index].boughtSeq = nil
            }
        }
    }
}
