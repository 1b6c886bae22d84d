import Foundation

// The envelope rules of a command (docs/COMMANDS.md, "The envelope"): `expectedSeq`, time
// order, and who issues it — decided in the domain like every other rule, so
// that a journal, a store and a sync hub all decide alike.

/// What a command's envelope was decided against: the journal's end.
///
/// ```swift
/// let decided = try ShopDecider.decide(request, state, after: JournalEnd(seq: 41, lastAt: last),
///                                      now: Clock.system.now(), defaultActor: "ana")
/// print(decided.events, decided.at, decided.actor)
/// ```
public struct JournalEnd: Hashable, Sendable {
    /// The last `seq`; 0 for an empty journal.
    public var seq: Int
    /// The last event's `at`, if any.
    public var lastAt: Timestamp?

    public init(seq: Int, lastAt: Timestamp?) { self.seq = seq; self.lastAt = lastAt }
}

/// A command decided with its envelope: the events, when they are recorded and by whom.
public struct DecidedCommand: Hashable, Sendable {
    public var events: [Event]
    public var at: Timestamp
    public var actor: String
}

/// What folding an event needs besides the event: its place, time and actor.
///
/// ```swift
/// let next = ShopState.evolve(state, .itemRenamed(item: milk, name: "Oat milk"), EventContext(seq: 42, at: now, actor: "ana"))
/// ```
public struct EventContext: Hashable, Sendable {
    public var seq: Int
    public var at: Timestamp
    public var actor: String

    public init(seq: Int, at: Timestamp, actor: String) { self.seq = seq; self.at = at; self.actor = actor }
}

extension ShopDecider {
    /// How far a command's `at` may be ahead of the writer's clock (`in_future`): 5 minutes.
    public static let aheadOfClock: Int64 = 5 * 60 * 1000
    /// How far a purchase's `purchasedAt` may be after its event's `at` (`in_future`): 24 hours.
    public static let purchaseAheadOfAt: Int64 = 24 * 60 * 60 * 1000

    /// The envelope rules, then the rules of the command: `expectedSeq` must be
    /// the journal's last `seq` (`conflict`); a given `at` must not be earlier
    /// than the last `at` (`time_out_of_order`) nor more than 5 minutes after
    /// `now`, the writer's clock (`in_future`), and without one the command is
    /// recorded at `now`, or at the last `at` if the clock is behind it; a
    /// purchase's `purchasedAt` may be at most 24 hours after that (`in_future`);
    /// the actor (the command's, else `defaultActor`) must follow the actor rule.
    ///
    /// The clock is the writer's: a journal's, a replica's, a hub's. One
    /// device with a wrong date cannot move a household's history into
    /// another year, where every later event would have to follow it.
    public static func decide(_ request: CommandEnvelope, _ state: ShopState, after end: JournalEnd, now: Timestamp,
                              defaultActor: String) throws(RuleViolation) -> DecidedCommand {
        if let expected = request.expectedSeq, expected != end.seq {
            throw RuleViolation(.conflict, "expectedSeq \(expected) but the journal is at seq \(end.seq): read the new events and decide again", field: "expectedSeq")
        }
        let last = end.lastAt ?? .earliest
        if let at = request.at, at < last {
            throw RuleViolation(.timeOutOfOrder, "at \(at) is earlier than the journal's last at \(last)", field: "at")
        }
        if let at = request.at, at > now.adding(milliseconds: aheadOfClock) {
            throw RuleViolation(.inFuture, "at \(at) is more than 5 minutes after this writer's clock (\(now)): check the device's date and time", field: "at")
        }
        let at = request.at ?? max(now, last)
        if case let .purchaseItem(_, _, _, _, _, _, purchasedAt?, _) = request.command, purchasedAt > at.adding(milliseconds: purchaseAheadOfAt) {
            throw RuleViolation(.inFuture, "purchasedAt \(purchasedAt) is more than 24 hours after the command's at (\(at)): a purchase is recorded when it is made or later", field: "purchasedAt")
        }
        let actor = request.actor ?? defaultActor
        try Limits.checkActor(actor)
        if let device = request.device { try Limits.checkNoControlCharacters(device, field: "device") }
        return DecidedCommand(events: try decide(request.command, state, actor: actor), at: at, actor: actor)
    }
}
