/// The one way from a decided command to its journal lines (docs/JOURNAL.md, "Writing"):
/// every writer — the journal, the replica's outbox fold, the hubs — numbers,
/// stamps and chains a command's events here.
///
/// ``records(of:command:device:correlation:after:prev:eventID:)`` makes the
/// records: seqs after the head, a fresh event id each, the command's `at` and
/// actor, its device, command id and correlation, and `commandEvents` on the
/// first of a command of several events. ``line(_:after:)`` (or, on the
/// journal's write path, an append into its buffer) then encodes each record
/// after the line before: its `prev` is that line's hash, and its own hash is
/// the next one's `prev`.
///
/// ```swift
/// func lines(of decided: DecidedCommand, id: CommandID, after head: JournalHead) -> [[UInt8]] {
///     var prev = head.hash
///     return CommandLines.records(of: decided, command: id, device: "ana-phone", correlation: nil,
///                                 after: head.seq, prev: prev, eventID: { EventID() }).map { record in
///         var record = record
///         let (line, hash) = CommandLines.line(&record, after: prev)
///         prev = hash
///         return line
///     }
/// }
/// ```
public enum CommandLines {
    /// The records of `decided`'s events, the first numbered `seq + 1` with `prev` as its `prev`
    /// (each later record's `prev` is set when the line before it is encoded). `eventID` gives
    /// each record its id, in order.
    @inlinable
    public static func records(of decided: DecidedCommand, command: CommandID, device: String?, correlation: CorrelationID?,
                               after seq: Int, prev: SHA256Digest, eventID: () -> EventID) -> [RecordedEvent] {
        let count = decided.events.count
        var records: [RecordedEvent] = []
        records.reserveCapacity(count)
        for (index, event) in decided.events.enumerated() {
            records.append(RecordedEvent(seq: seq + index + 1, id: eventID(), at: decided.at, actor: decided.actor, device: device,
                                         command: command, commandEvents: index == 0 && count > 1 ? count : nil,
                                         correlation: correlation, event: event, prev: prev))
        }
        return records
    }

    /// `recorded` as the line after the one whose hash is `prev`: its `prev` set, its bytes
    /// (without the newline) and their SHA-256, which is the next line's `prev`.
    public static func line(_ recorded: inout RecordedEvent, after prev: SHA256Digest) -> (line: [UInt8], hash: SHA256Digest) {
        recorded.prev = prev
        let line = EventLineCodec.encode(recorded)
        return (line, SHA256.hash(line))
    }

    /// ``line(_:after:)`` into the journal's write buffer: the line and its newline appended to
    /// `out`; where the line starts in `out`, and its hash.
    static func append(_ recorded: inout RecordedEvent, after prev: SHA256Digest, to out: inout JSONWriter) -> (start: Int, hash: SHA256Digest) {
        recorded.prev = prev
        let start = out.count
        EventLineCodec.append(recorded, to: &out)
        let hash = out.withUnsafeBytes(from: start) { SHA256.hash($0) }
        out.append(0x0A)
        return (start, hash)
    }
}
