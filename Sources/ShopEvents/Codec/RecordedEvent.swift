import Foundation

/// One journal line: an ``Event`` with its envelope.
///
/// ```swift
/// let reader = try JournalReader(path: "shop.ndjson")
/// while let recorded = try reader.next() {
///     print(recorded.seq, recorded.at, recorded.actor, recorded.event.typeName)
/// }
/// ```
public struct RecordedEvent: Hashable, Sendable {
    // The stored fields are declared in the order that packs them into 256
    // bytes, four cache lines (the larger words first, the event, then the
    // byte-aligned ids, the digest and the four-byte count), not 268 as in
    // the order of the envelope's keys: every event of a replay is moved at
    // this size.

    /// Position in the journal, 1-based and contiguous.
    public var seq: Int
    /// Recording time; never decreases along the journal.
    public var at: Timestamp
    /// Who issued the command.
    public var actor: String
    /// Which device or process wrote it.
    public var device: String?
    /// What happened.
    public var event: Event
    /// The event's own id, unique in the journal.
    public var id: EventID
    /// The command that produced this event; all its events share it.
    public var command: CommandID
    /// Ties several commands into one user action or import.
    public var correlation: CorrelationID?
    /// SHA-256 of the previous line's bytes; all zero for `seq` 1.
    public var prev: SHA256Digest
    /// On the first line of a command that produced two or more events: how
    /// many it produced (`nil` on every other line). Opening a journal uses it
    /// to tell a command cut short by a crash from a complete one. At most
    /// ``maxCommandEvents``: the line codecs refuse a larger count, and one
    /// set here is kept as that largest (a count below 1 as 1).
    public var commandEvents: Int? {
        get { storedCommandEvents == 0 ? nil : Int(storedCommandEvents) }
        set { storedCommandEvents = newValue.map { Int32(clamping: Swift.max($0, 1)) } ?? 0 }
    }
    /// `commandEvents` in four bytes, 0 for none (a count is 2 or more).
    @usableFromInline var storedCommandEvents: Int32

    /// The largest `commandEvents` a line may declare (2³¹ − 1): more events
    /// than any command makes, and what the count is kept in.
    public static let maxCommandEvents = Int(Int32.max)

    @inlinable @inline(__always)
    public init(seq: Int, id: EventID, at: Timestamp, actor: String, device: String? = nil,
                command: CommandID, commandEvents: Int? = nil, correlation: CorrelationID? = nil, event: Event, prev: SHA256Digest) {
        self.seq = seq; self.at = at; self.actor = actor; self.device = device; self.event = event
        self.id = id; self.command = command; self.correlation = correlation; self.prev = prev
        storedCommandEvents = commandEvents.map { Int32(clamping: Swift.max($0, 1)) } ?? 0
    }
}

/// The journal's audit head: `(seq, SHA-256 of the last line)`. Whoever
/// records it can later prove that nothing up to it has changed.
///
/// ```swift
/// let head = journal.head
/// print("\(head)")                // 1234:9f86d08…   (the form `verify --expect-head` takes)
/// ```
public struct JournalHead: Hashable, Sendable, CustomStringConvertible {
    public var seq: Int
    public var hash: SHA256Digest

    public init(seq: Int, hash: SHA256Digest) { self.seq = seq; self.hash = hash }

    /// The head of an empty journal.
    public static let empty = JournalHead(seq: 0, hash: .zero)

    /// `SEQ:HASH`.
    public var description: String { "\(seq):\(hash)" }

    /// Parses `SEQ:HASH`.
    public init?(_ text: String) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let seq = Int(parts[0]), seq >= 0, let hash = SHA256Digest(hex: String(parts[1])) else { return nil }
        self.init(seq: seq, hash: hash)
    }
}

extension RecordedEvent {
    /// The event's place, time and actor.
    public var context: EventContext { EventContext(seq: seq, at: at, actor: actor) }
}

// The domain's fold, over journal lines.
extension ShopState {
    /// The pure fold over a journal line.
    public static func evolve(_ state: ShopState, _ recorded: RecordedEvent) -> ShopState {
        evolve(state, recorded.event, recorded.context)
    }

    /// Folds one journal line in place. Events are facts: this never fails, and an
    /// event whose references are missing changes only what it can.
    public mutating func apply(_ recorded: RecordedEvent) { apply(recorded.event, recorded.context) }
}
