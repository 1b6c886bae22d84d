import Foundation

/// What executing one command gave: its events (from the first time, for a retry).
public struct CommandOutcome: Hashable, Sendable {
    public var command: CommandID
    public var events: [RecordedEvent]
    /// `true` when the command id was already in the journal and nothing was appended.
    public var isRetry: Bool
    /// `true` on a sync replica: the command is in the outbox, its events are
    /// as they would be recorded (their `seq`s may change when sync sends it).
    public var isPending = false

    /// The `seq`s of the events.
    public var seqs: [Int] { events.map(\.seq) }
}

extension CommandOutcome {
    /// The ids of the things the command created, by kind (`household`,
    /// `location`, `item`, `list`, `purchase`, `trip`, `store`): what a later command
    /// needs to name them (a `RevertPurchase` needs the `purchase` id).
    public var created: [(kind: String, id: UUID)] {
        events.compactMap { recorded in
            switch recorded.event {
            case let .householdCreated(household, _, _, _): ("household", household.uuid)
            case let .locationCreated(location, _, _, _): ("location", location.uuid)
            case let .itemCreated(item, _, _, _): ("item", item.uuid)
            case let .listCreated(list, _, _): ("list", list.uuid)
            case let .itemPurchased(purchase, _, _, _, _, _, _, _): ("purchase", purchase.uuid)
            case let .tripStarted(trip, _, _): ("trip", trip.uuid)
            case let .storeCreated(store, _): ("store", store.uuid)
            case .locationRenamed, .locationRecolored, .locationsReordered, .locationDeleted, .itemRenamed,
                 .itemDetailsChanged, .itemRelocated, .itemAvailabilityChanged, .itemDeleted, .listRenamed,
                 .listPriorityChanged, .listDeleted, .listRestored, .listPurged, .itemAddedToList,
                 .listEntryQuantityChanged, .itemRemovedFromList, .listReordered, .purchaseReverted,
                 .boughtEntriesCleared, .tripPaused, .tripResumed, .tripEnded,
                 .memberAdded, .memberRoleChanged, .memberRemoved, .listEntryAssigned, .storeRenamed, .storeDeleted: nil
            }
        }
    }
}
