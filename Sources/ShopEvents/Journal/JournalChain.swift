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

/// Where the events of one command are in the journal, for idempotent retries.
struct CommandRecord: Hashable {
    var firstSeq: Int
    var count: Int
    var offset: Int
}

/// Checks line after line what the specification promises of a journal:
/// valid events, contiguous `seq` from 1, each `prev` the hash of the line
/// before, `at` never decreasing, event ids unique, and the events of one
/// command contiguous. It folds the state as it goes.
struct JournalChain {
    private(set) var head = JournalHead.empty
    /// The head before the last line accepted.
    private(set) var previousHead = JournalHead.empty
    private(set) var lastAt: Timestamp?
    private(set) var state = ShopState.initial
    private(set) var commands: [CommandID: CommandRecord] = [:]
    private var lastCommand: CommandID?
    private var eventIDs: Set<EventID> = []
    /// Also check that every event is legal given those before it (`verify`).
    var checkRules = false

    /// Checks one line and folds it; throws `corrupt_line` naming the line and offset.
    @discardableResult
    mutating func accept(_ line: UnsafeRawBufferPointer, number: Int, offset: Int) throws(JournalError) -> RecordedEvent {
        let recorded: RecordedEvent
        do {
            recorded = try EventLineCodec.decode(line)
        } catch {
            throw JournalError.corrupt(line: number, offset: offset + error.offset, "\(error.code): \(error.detail)")
        }
        guard recorded.seq == head.seq + 1 else {
            throw JournalError.corrupt(line: number, offset: offset, "seq is \(recorded.seq) where \(head.seq + 1) was expected (lines missing, repeated or out of order)")
        }
        guard recorded.prev == head.hash else {
            throw JournalError.corrupt(line: number, offset: offset, "prev \(recorded.prev) is not the SHA-256 of line \(number - 1) (\(head.hash)): line \(number - 1) or this line's prev was changed")
        }
        if let lastAt, recorded.at < lastAt {
            throw JournalError.corrupt(line: number, offset: offset, "at \(recorded.at) is earlier than the line before (\(lastAt))")
        }
        guard eventIDs.insert(recorded.id).inserted else {
            throw JournalError.corrupt(line: number, offset: offset, "event id \(recorded.id) appears twice")
        }
        if recorded.command == lastCommand {
            commands[recorded.command]?.count += 1
        } else {
            guard commands[recorded.command] == nil else {
                throw JournalError.corrupt(line: number, offset: offset, "the events of command \(recorded.command) are not contiguous")
            }
            commands[recorded.command] = CommandRecord(firstSeq: recorded.seq, count: 1, offset: offset)
            lastCommand = recorded.command
        }
        if checkRules {
            do { try ShopDecider.check(recorded.event, state) } catch {
                throw JournalError.corrupt(line: number, offset: offset, "\(recorded.event.typeName) is not legal here (\(error.code): \(error.message))")
            }
        }
        previousHead = head
        head = JournalHead(seq: recorded.seq, hash: SHA256.hash(line))
        lastAt = recorded.at
        state.apply(recorded)
        return recorded
    }

    /// Checks every line `lines` gives. When a line's `prev` does not match the
    /// line before, the line after it decides which of the two was changed:
    /// if its `prev` matches this line, this line is intact and the one before
    /// was edited, so that one is named.
    mutating func accept(all lines: inout JournalLines,
                         afterEach: (JournalHead, Int) throws(JournalError) -> Void = { _, _ in }) throws(JournalError) {
        var previousOffset = 0
        while let line = try lines.next() {
            do throws(JournalError) {
                try accept(line.bytes, number: line.number, offset: line.offset)
            } catch where error.reason == .corruptLine && line.number > 1 && prevMismatch(line.bytes) {
                let suspect = Array(line.bytes)
                let number = line.number
                if let next = try? lines.next(), let following = try? EventLineCodec.decode(next.bytes),
                   following.prev == SHA256.hash(suspect) {
                    throw JournalError.corrupt(line: number - 1, offset: previousOffset, "the line was changed: its SHA-256 is not the prev recorded by line \(number), whose own bytes are intact (line \(number + 1) confirms them)")
                }
                throw error
            }
            try afterEach(head, line.offset)
            previousOffset = line.offset
        }
    }

    private func prevMismatch(_ line: UnsafeRawBufferPointer) -> Bool {
        guard let recorded = try? EventLineCodec.decode(line) else { return false }
        return recorded.seq == head.seq + 1 && recorded.prev != head.hash
    }

    /// Records an event this process has just written (already encoded to `line`).
    mutating func appended(_ recorded: RecordedEvent, lineHash: SHA256Digest, offset: Int) {
        if recorded.command == lastCommand {
            commands[recorded.command]?.count += 1
        } else {
            commands[recorded.command] = CommandRecord(firstSeq: recorded.seq, count: 1, offset: offset)
            lastCommand = recorded.command
        }
        eventIDs.insert(recorded.id)
        head = JournalHead(seq: recorded.seq, hash: lineHash)
        lastAt = recorded.at
        state.apply(recorded)
    }

    func knows(_ id: EventID) -> Bool { eventIDs.contains(id) }
}
