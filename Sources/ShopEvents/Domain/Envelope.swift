import Foundation

// The envelope rules of a command (SPEC section 3): `expectedSeq`, time
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
    /// The envelope rules, then the rules of the command: `expectedSeq` must be
    /// the journal's last `seq` (`conflict`); a given `at` must not be earlier
    /// than the last `at` (`time_out_of_order`), and without one the command is
    /// recorded at `now`, or at the last `at` if the clock is behind it; the
    /// actor (the command's, else `defaultActor`) must follow the actor rule.
    public static func decide(_ request: CommandEnvelope, _ state: ShopState, after end: JournalEnd, now: Timestamp,
                              defaultActor: String) throws(RuleViolation) -> DecidedCommand {
        if let expected = request.expectedSeq, expected != end.seq {
            throw RuleViolation(.conflict, "expectedSeq \(expected) but the journal is at seq \(end.seq): read the new events and decide again", field: "expectedSeq")
        }
        let last = end.lastAt ?? .earliest
        if let at = request.at, at < last {
            throw RuleViolation(.timeOutOfOrder, "at \(at) is earlier than the journal's last at \(last)", field: "at")
        }
        let actor = request.actor ?? defaultActor
        try Limits.checkActor(actor)
        if let device = request.device { try Limits.checkNoControlCharacters(device, field: "device") }
        return DecidedCommand(events: try decide(request.command, state, actor: actor), at: request.at ?? max(now, last), actor: actor)
    }
}
