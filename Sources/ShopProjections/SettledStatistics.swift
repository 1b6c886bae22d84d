import ShopEvents

/// The totals of one read of the statistics to an end whose reverts are
/// known before it starts: a projection of its own for the command line's
/// `stats`, which keeps no purchase at all. It is told every purchase the
/// events to be folded revert (`RevertScan`); a purchase among them is never
/// counted and its revert is passed over, so no purchase needs keeping for a
/// revert to come. Beside it the state is folded as its present
/// (``PresentState``), so the memory is the household's and the totals', not
/// the history's; what that state lets go and the statistics show (the names
/// of deleted items and places, the ended trips) is kept here.
///
/// The totals equal ``PurchaseStatistics``' when the events revert exactly
/// those purchases, each after it was bought; if they do not, ``isSettled``
/// says so and the read folds again with the statistics projection. For
/// showing once, never for a snapshot or more events.
package struct SettledStatistics: Hashable, Sendable {
    package private(set) var totals = PurchaseTotals()
    /// The purchases it was told will be reverted, and how far each has got.
    var stages: [PurchaseID: Stage]
    var deletedNames: [ItemID: String] = [:]
    var deletedLocationNames: [LocationID: String] = [:]
    /// The trips ended on the way (the state lets them go): how many, and their running time.
    package private(set) var endedTrips = 0
    package private(set) var endedMilliseconds: Int64 = 0
    /// The fold met a revert the reading ahead did not foresee, or one before its purchase.
    var unforeseen = false

    /// `reverted`: every purchase that the events to be folded revert.
    package init(reverting reverted: Set<PurchaseID>) {
        stages = Dictionary(uniqueKeysWithValues: reverted.lazy.map { ($0, Stage.awaited) })
    }

    /// How far a purchase it was told will be reverted has got.
    enum Stage: UInt8, Hashable, Sendable {
        /// Named by a revert, not bought yet.
        case awaited
        /// Bought, and not counted: its revert is still to come.
        case bought
        /// Bought and reverted, as foreseen.
        case reverted
    }

    /// Whether the totals folded so far equal the statistics projection's:
    /// true unless the events did not revert exactly the purchases it was
    /// told of, each after its purchase — a revert it was not told of, a
    /// revert before its purchase, or a purchase it was told of bought and
    /// its revert still to come. (A purchase it was told of and never bought
    /// nor reverted is nothing in either fold.)
    package var isSettled: Bool { !unforeseen && !stages.values.contains(.bought) }

    /// Lets go of what the fold checked its foresight with, once it has been
    /// found good (``isSettled``): the totals are all that is shown.
    package mutating func dropForesight() {
        precondition(isSettled)
        stages = [:]
    }

    /// The last name of an item deleted on the way (its state no longer holds it).
    package func deletedName(of item: ItemID) -> String? { totals.items[item]?.deletedName ?? deletedNames[item] }
    /// The last name of a location deleted on the way.
    package func deletedName(of location: LocationID) -> String? { deletedLocationNames[location] }

    /// Folds `recorded` in; `state` is the household's present just before it.
    package mutating func apply(_ recorded: RecordedEvent, before state: borrowing ShopState) {
        switch recorded.event {
        case .householdCreated:
            totals.noteCalendar(recorded.event)
        case let .itemPurchased(purchase, item, _, quantity, unitPrice, location, purchasedAt, store):
            if let stage = stages[purchase] {
                // Its revert is to come; a second purchase of the id (no legal journal has one) is not counted either.
                if stage == .awaited { stages[purchase] = .bought }
                return
            }
            totals.count(PurchaseTotals.Fact(item: item, location: location, actor: recorded.actor, time: purchasedAt ?? recorded.at,
                                             quantity: quantity, unitPrice: unitPrice, store: store), sign: 1)
        case let .purchaseReverted(purchase):
            guard let stage = stages[purchase] else { unforeseen = true; return }
            switch stage {
            case .bought: stages[purchase] = .reverted
            case .reverted: break   // reverted twice: a plain fold passes over it too
            case .awaited: unforeseen = true
            }
        case let .itemDeleted(item):
            guard let name = state.items[item]?.name else { return }
            if totals.items[item] != nil { totals.items[item]?.deletedName = name } else { deletedNames[item] = name }
        case let .locationDeleted(location):
            if let name = state.locations[location]?.name { deletedLocationNames[location] = name }
        case let .tripEnded(trip):
            guard var ended = state.trips[trip] else { return }
            if case .ended = ended.phase { return }   // ended twice: counted once, as the state does
            ended.end(at: recorded.at)
            endedTrips += 1
            endedMilliseconds += ended.activeMilliseconds
        default:
            break   // nothing else to count, nor to keep of what the state lets go
        }
    }
}
