/// How `verify` on two threads folds its checking thread's state: the
/// domain's fold, then what the rules will not need again let go — every
/// deleted item and location, every ended trip, every purchase — but the
/// purchases the journal reverts (a revert needs its purchase, and must find
/// it not yet reverted) and the items it buys after their delete (a late
/// purchase takes a deleted item's place and price), with the places they
/// were last at. Both are learnt before the fold by ``RevertScan``.
///
/// Such a state cannot tell an id used before; the reading thread proves
/// every created id new instead (see `JournalChain.dropHistory(keeping:)`).
/// It is verify's own, never a view's: the law it keeps is in `LeanVerifyTests`.
struct LeanVerifyFold: Hashable, Sendable {
    /// The purchases the journal reverts.
    let keptPurchases: Set<PurchaseID>
    /// The items it buys late, kept once deleted.
    let keptItems: Set<ItemID>

    init(keepingPurchases reverted: Set<PurchaseID>, deletedItems: Set<ItemID>) {
        keptPurchases = reverted
        keptItems = deletedItems
    }

    /// Folds one journal line into `state`, letting go of what is not kept.
    func apply(_ recorded: RecordedEvent, to state: inout ShopState) { apply(recorded.event, recorded.context, to: &state) }

    /// Folds one event into `state`, letting go of what is not kept.
    func apply(_ event: Event, _ context: EventContext, to state: inout ShopState) {
        switch event {
        case let .itemPurchased(purchase, item, list, _, _, location, purchasedAt, _) where !keptPurchases.contains(purchase):
            state.markBought(by: Purchase(id: purchase, item: item, list: list, location: location,
                                          effectiveTime: purchasedAt ?? context.at, seq: context.seq))
        case let .itemDeleted(item):
            state.apply(event, context)
            if !keptItems.contains(item) { state.items[item] = nil }
        case let .locationDeleted(location):
            state.apply(event, context)
            // A deleted item kept may still name it; no live item does.
            if !keptItems.contains(where: { state.items[$0]?.location == location }) { state.locations[location] = nil }
        case let .tripEnded(trip):
            state.apply(event, context)
            state.trips[trip] = nil
        default:
            state.apply(event, context)   // a kept purchase, a revert, and what lets nothing go
        }
    }
}
