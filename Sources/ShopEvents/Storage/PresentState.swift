// The household as it is now: a projection of its own, for the views that show nothing of the past.

/// The household as it is now, and nothing of how it got there: the lists,
/// the live items and locations, the stores, the members and the trips not
/// yet ended — no purchase ledger, no ended trip, no deleted item or
/// location. The projection of the views that show only the present (the
/// lists, a shopping list, the locations, the members, the deleted lists),
/// which takes memory by the household rather than by its history.
///
/// A deleted location holds no live item (deleting it moves them to Unknown
/// first), and a revert un-buys the entry its purchase bought by looking
/// through the lists, so for any journal that keeps the rules (`verify`
/// says) ``state`` shows what the whole ``ShopState`` shows of the present.
/// It is never decided against.
///
/// ```swift
/// var present = PresentState()
/// for recorded in events { present.apply(recorded) }
/// let lists = present.state.lists.values.filter { !$0.isDeleted }
/// ```
package struct PresentState: Hashable, Sendable {
    /// The state: the domain's, with its history let go as it is folded.
    package private(set) var state = ShopState.compact

    package init() {}

    /// The present of a whole state: its purchase ledger, ended trips and
    /// deleted items and locations let go.
    package init(of whole: consuming ShopState) {
        whole.purchases.removeAll()
        whole.trips = whole.trips.filter { if case .ended = $0.value.phase { false } else { true } }
        whole.items = whole.items.filter { !$0.value.isDeleted }
        whole.locations = whole.locations.filter { !$0.value.isDeleted }
        state = whole
    }

    /// Folds one journal line in: the domain's fold, then what it does not keep let go.
    package mutating func apply(_ recorded: RecordedEvent) {
        apply(recorded.event, recorded.context)
    }

    /// Folds one event in.
    package mutating func apply(_ event: Event, _ context: EventContext) {
        switch event {
        case let .itemPurchased(purchase, item, list, _, _, location, purchasedAt, _):
            state.markBought(by: Purchase(id: purchase, item: item, list: list, location: location,
                                          effectiveTime: purchasedAt ?? context.at, seq: context.seq))
        case let .purchaseReverted(purchase):
            state.unbuyEntries(boughtBy: purchase)
        case let .itemDeleted(item):
            state.apply(event, context)
            state.items[item] = nil
        case let .locationDeleted(location):
            state.apply(event, context)
            state.locations[location] = nil
        case let .tripEnded(trip):
            state.apply(event, context)
            state.trips[trip] = nil
        default:
            state.apply(event, context)   // lets go of nothing else (stores, deleted ones too, are few: all kept)
        }
    }

    /// Reads the state of a snapshot as its present: the purchase ledger is
    /// passed over unread (a mapped snapshot's pages of it never touched),
    /// the deleted items and locations and ended trips let go as they are read.
    package init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        state = try ShopState(from: &r, passingOverHistory: true)
    }
}

extension ShopState {
    /// A revert without the purchase ledger: the entry bought by `id` is to buy
    /// again. It is the first entry of its item on the purchase's list, as
    /// with the ledger; only a journal that reused a purchase id (which
    /// `verify` refuses) could have a second entry bought by it, and that
    /// one is un-bought too.
    fileprivate mutating func unbuyEntries(boughtBy id: PurchaseID) {
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
