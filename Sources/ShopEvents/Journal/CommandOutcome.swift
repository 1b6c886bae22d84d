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
        events.compactMap(\.event.created)   // each type's created field, as declared (EventDeclaration)
    }
}
