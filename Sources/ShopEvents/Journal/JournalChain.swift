/// A command whose first line promised (`commandEvents`) more lines than
/// have been read so far.
struct OpenCommand: Hashable {
    var command: CommandID
    /// Line number (= seq) and byte offset of its first line.
    var line: Int
    var offset: Int
    var expected: Int
    var have: Int
    /// The head before its first line: where the journal ends if it is cut.
    var headBefore: JournalHead
}

/// The first line that a newer version of ShopEvents wrote.
///
/// ```swift
/// let reader = try JournalReader(path: "shop.ndjson")
/// while let _ = try reader.next() {}
/// if let newer = reader.newerLine { print(newer.error.message) }   // "line 812 …: update …"
/// ```
public struct NewerLineFound: Hashable, Sendable {
    /// Its line number and byte offset.
    public var line: Int
    public var offset: Int
    public var envelope: NewerEventLine
    /// The audit head of the lines before it.
    public var headBefore: JournalHead

    /// The `JournalError` that refuses writing (and fails `verify`) because of it.
    public var error: JournalError {
        JournalError(envelope.isKnownType ? .unsupportedVersion : .unknownEventType,
                     "line \(line) (byte offset \(offset)): \(envelope.type) v\(envelope.version) was written by a newer ShopEvents; update to read and write this journal",
                     line: line, offset: offset)
    }
}

/// Checks line after line what docs/JOURNAL.md promises of a journal:
/// valid events, contiguous `seq` from 1, each `prev` the hash of the line
/// before, `at` never decreasing, event ids unique, the events of one
/// command contiguous and as many as its `commandEvents`. It folds the state
/// as it goes.
struct JournalChain {
    /// What to do on meeting a line a newer version wrote.
    enum NewerLines {
        /// Refuse it (`unsupported_version` / `unknown_event_type`) once the
        /// chain after it has been checked too: opening for writing. (A line
        /// whose `type` was changed would otherwise pass for a newer one.)
        case refuse
        /// Check the chain over it and every line after it, fold nothing more (`verify`).
        case checkChainOnly
    }

    private(set) var head = JournalHead.empty
    /// The head before the last line accepted.
    private(set) var previousHead = JournalHead.empty
    private(set) var lastAt: Timestamp?
    /// Where the last line starts.
    private(set) var lastLineOffset = 0
    private(set) var state = ShopState.compact
    /// `verify`'s lean fold, if ``state`` is folded by it (``dropHistory(keeping:)``); nil: the domain's whole fold.
    private(set) var lean: LeanVerifyFold?
    private(set) var commands = CommandTable()
    /// A command at the end whose lines are not all there (yet).
    private(set) var openCommand: OpenCommand?
    /// The first line a newer version wrote, with ``NewerLines/checkChainOnly``.
    private(set) var firstNewer: NewerLineFound?
    /// The last command and its position in `commands`.
    private var lastCommand: (id: CommandID, position: Int)?
    /// `commandEvents` of the last command, when it gave one.
    private var lastCommandDeclared: Int?
    private var eventIDs = IDIndex<EventKind>()
    /// Also check that every event is legal given those before it (`verify`).
    var checkRules = false
    /// Keep every event and command id (with where each command is) and
    /// refuse an event id used again or a command whose events stand apart;
    /// `verify` on two threads leaves this to its reading thread, which needs
    /// no records for it.
    var keepsIDs = true
    var newerLines = NewerLines.refuse
    /// Fold the events into ``state``; off for a writer that only appends lines decided elsewhere
    /// (the hosted hub's file store, whose driver keeps the household's state): the chain, the
    /// command and event ids are still checked and kept, ``state`` stays empty.
    private(set) var foldsState = true

    /// Stops folding the state, and lets go of what was folded (a chain snapshot's state, say).
    mutating func stopFoldingState() {
        foldsState = false
        state = .compact
    }

    /// Before the first line: the state keeps no history but what
    /// `forecast` names (``LeanVerifyFold``),
    /// for a reader that proves every created id new by other means.
    ///
    /// Such a state is decided against by `verify`, where the journal's
    /// reverts and late purchases were found first (``RevertScan``) and its
    /// reading thread proves every id the events create new (this state
    /// cannot tell an id used before): for every event of a journal that
    /// keeps the rules, the deciders decide as on a whole state. Where they
    /// would not — a revert or a late purchase not foreseen (a line that
    /// spells its keys with escapes), a late purchase at a deleted place
    /// that was not its item's — the event is refused here, and `verify`
    /// checks the journal again with a whole state; no journal that breaks a
    /// rule is taken for one that keeps them.
    mutating func dropHistory(keeping forecast: RevertScan.Forecast) {
        precondition(state == .initial, "a state keeps its purchases from the first event on")
        lean = LeanVerifyFold(keepingPurchases: forecast.reverted, deletedItems: forecast.lateItems)
    }

    /// Folds one event into ``state``: the domain's fold, or `verify`'s lean one.
    private mutating func fold(_ recorded: RecordedEvent) {
        // Called through the optional where it lies: `if let` would copy the fold (two sets retained) once an event.
        if lean != nil { lean?.apply(recorded.event, recorded.context, to: &state) } else { state.apply(recorded.event, recorded.context) }
    }

    /// Checks one line and folds it; throws `corrupt_line` naming the line and offset.
    mutating func accept(_ line: UnsafeRawBufferPointer, number: Int, offset: Int) throws(JournalError) {
        let decoded: JournalLine
        do {
            decoded = try EventLineCodec.decodeLine(line)
        } catch {
            throw JournalError.corrupt(line: number, offset: offset + error.offset, "\(error.code): \(error.detail)")
        }
        try accept(decoded, lineHash: { SHA256.hash(line) }, number: number, offset: offset)
    }

    /// Checks one line decoded already (by another thread, say) and folds it;
    /// `lineHash` gives the SHA-256 of its bytes.
    mutating func accept(_ decoded: JournalLine, lineHash: () -> SHA256Digest, number: Int, offset: Int) throws(JournalError) {
        switch decoded {
        case let .event(recorded):
            try checkEnvelope(seq: recorded.seq, id: recorded.id, at: recorded.at, command: recorded.command,
                              commandEvents: recorded.commandEvents, prev: recorded.prev, number: number, offset: offset)
            if firstNewer == nil {
                if checkRules {
                    do { try ShopDecider.check(recorded.event, state, actor: recorded.actor) } catch {
                        throw JournalError.corrupt(line: number, offset: offset, "\(recorded.event.typeName) is not legal here (\(error.code): \(error.message))")
                    }
                }
                if foldsState { fold(recorded) }
            }
            advance(seq: recorded.seq, at: recorded.at, lineHash: lineHash())
            lastLineOffset = offset
        case let .newer(newer):
            try checkEnvelope(seq: newer.seq, id: newer.id, at: newer.at, command: newer.command,
                              commandEvents: newer.commandEvents, prev: newer.prev, number: number, offset: offset)
            if firstNewer == nil { firstNewer = NewerLineFound(line: number, offset: offset, envelope: newer, headBefore: head) }
            advance(seq: newer.seq, at: newer.at, lineHash: lineHash())
            lastLineOffset = offset
        }
    }

    private mutating func advance(seq: Int, at: Timestamp, lineHash: SHA256Digest) {
        previousHead = head
        head = JournalHead(seq: seq, hash: lineHash)
        lastAt = at
    }

    /// `seq`, `prev`, `at`, unique event ids, and the grouping of lines into commands.
    private mutating func checkEnvelope(seq: Int, id: EventID, at: Timestamp, command: CommandID, commandEvents: Int?,
                                        prev: SHA256Digest, number: Int, offset: Int) throws(JournalError) {
        guard seq == head.seq + 1 else {
            throw JournalError.corrupt(line: number, offset: offset, "seq is \(seq) where \(head.seq + 1) was expected (lines missing, repeated or out of order)")
        }
        guard prev == head.hash else {
            throw JournalError.corrupt(line: number, offset: offset, "prev \(prev) is not the SHA-256 of line \(number - 1) (\(head.hash)): line \(number - 1) or this line's prev was changed")
        }
        if let lastAt, at < lastAt {
            throw JournalError.corrupt(line: number, offset: offset, "at \(at) is earlier than the line before (\(lastAt))")
        }
        guard !keepsIDs || eventIDs.insert(id).inserted else {
            throw JournalError.corrupt(line: number, offset: offset, "event id \(id) appears twice")
        }
        if let last = lastCommand, command == last.id {
            guard commandEvents == nil else {
                throw JournalError.corrupt(line: number, offset: offset, "commandEvents stands on a line that is not the first of command \(command)")
            }
            if var open = openCommand {
                open.have += 1
                openCommand = open.have == open.expected ? nil : open
            } else if let declared = lastCommandDeclared {
                throw JournalError.corrupt(line: number, offset: offset, "command \(command) has more lines than the \(declared) its first line declares (commandEvents)")
            }
            if keepsIDs { commands.addEvent(at: last.position) }
        } else {
            if let open = openCommand {
                throw JournalError.corrupt(line: open.line, offset: open.offset, "command \(open.command) declares \(open.expected) events (commandEvents) but only \(open.have) follow before line \(number) starts another command: lines were removed")
            }
            if keepsIDs {
                guard let position = commands.insert(command, CommandRecord(firstSeq: seq, count: 1, offset: offset)) else {
                    throw JournalError.corrupt(line: number, offset: offset, "the events of command \(command) are not contiguous")
                }
                lastCommand = (command, position)
            } else {
                lastCommand = (command, -1)
            }
            lastCommandDeclared = commandEvents
            if let commandEvents {
                openCommand = OpenCommand(command: command, line: number, offset: offset, expected: commandEvents, have: 1, headBefore: head)
            }
        }
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
            } catch {
                throw JournalChain.blame(error, line: line, previousOffset: previousOffset, expectedPrev: head.hash, lines: &lines)
            }
            try afterEach(head, line.offset)
            previousOffset = line.offset
        }
        if newerLines == .refuse, let firstNewer { throw firstNewer.error }
    }

    /// The line to name for a broken `prev`: when the line after the one
    /// whose `prev` does not match records the SHA-256 of that line, that
    /// line is intact and the one before it was changed, so that one is
    /// named. Every reader names damage this way, so `verify`, the views and
    /// opening for writing give the same line number.
    static func blame(_ error: JournalError, line: JournalLines.Line, previousOffset: Int, expectedPrev: SHA256Digest,
                      lines: inout JournalLines) -> JournalError {
        guard error.reason == .corruptLine, line.number > 1,
              let envelope = EventLineCodec.envelope(line.bytes), envelope.seq == line.number, envelope.prev != expectedPrev else { return error }
        let suspect = SHA256.hash(line.bytes)
        let number = line.number
        if let next = try? lines.next(), let following = EventLineCodec.envelope(next.bytes), following.prev == suspect {
            return JournalError.corrupt(line: number - 1, offset: previousOffset, "the line was changed: its SHA-256 is not the prev recorded by line \(number), whose own bytes are intact (line \(number + 1) confirms them)")
        }
        return error
    }

    /// Why bytes after the last newline are not a torn write (`nil` when they
    /// may be one): a torn write is the start of a journal line, or zeros
    /// that a file system left where a write did not reach.
    static func notATornWrite(_ bytes: [UInt8]) -> String? {
        if bytes.first == UInt8(ascii: "{") || bytes.allSatisfy({ $0 == 0 }) { return nil }
        // Empty lines at the end (``JournalLines/Trailing/emptyLines``): recovered like a torn line.
        if JournalLines.emptyLines(bytes) != nil { return nil }
        return "the last \(bytes.count) byte\(bytes.count == 1 ? "" : "s") have no newline and do not start like a journal line: this is not a torn write, and perhaps not a ShopEvents journal"
    }

    /// Takes a fresh event id for an event about to be appended: false if the
    /// journal already holds it (then the event takes ``EntityID/replacement()``).
    /// The appending calls below expect their event's id claimed.
    mutating func claim(_ id: EventID) -> Bool { eventIDs.insert(id).inserted }

    /// Hands the event-id table to the thread that encodes a batch, which
    /// claims the batch's ids (``claim(_:)`` must not be called meanwhile),
    /// until ``returnEventIDs(_:)`` gives it back.
    mutating func lendEventIDs() -> IDIndex<EventKind> {
        var lent = IDIndex<EventKind>()
        swap(&lent, &eventIDs)
        return lent
    }

    mutating func returnEventIDs(_ ids: consuming IDIndex<EventKind>) { eventIDs = ids }

    /// Records an event this process has just written (already encoded to `line`), its id claimed.
    mutating func appended(_ recorded: RecordedEvent, lineHash: SHA256Digest, offset: Int) {
        _ = note(recorded, offset: offset)
        previousHead = head
        head = JournalHead(seq: recorded.seq, hash: lineHash)
        lastLineOffset = offset
    }

    /// Lends the folded state to a caller that folds the events it appends itself (the hub's rules,
    /// ``HubRules``), until ``appended(folded:state:)`` gives it back; meanwhile the chain's state is empty.
    mutating func lendState() -> ShopState {
        precondition(foldsState, "the hub's rules were lent the state of a chain that folds none")
        var lent = ShopState.compact
        swap(&lent, &state)
        return lent
    }

    /// Records lines this process has just written, their events folded into `state` already (the
    /// state ``lendState()`` lent, moved on); each line's id claimed, `offset` where it starts.
    mutating func appended(folded lines: [(event: RecordedEvent, hash: SHA256Digest, offset: Int)], state folded: consuming ShopState) {
        state = folded
        for line in lines {
            _ = note(line.event, offset: line.offset, folding: false)
            previousHead = head
            head = JournalHead(seq: line.event.seq, hash: line.hash)
            lastLineOffset = line.offset
        }
    }

    /// Records an event decided for a batch whose lines are encoded and
    /// hashed on another thread: all of ``appended(_:lineHash:offset:)`` but
    /// the head's hash and the line's offset, which ``linesWritten(_:)`` sets
    /// once they are known (until then `head.hash` is not the line's).
    /// Gives the position of the command's record if this event begins it. Its id is claimed.
    mutating func appendedUnencoded(_ recorded: RecordedEvent) -> Int? {
        let begun = note(recorded, offset: -1)
        head = JournalHead(seq: recorded.seq, hash: .zero)
        return begun
    }

    /// After ``appendedUnencoded(_:)``: the hashes and offsets of the batch's
    /// lines, in order, from the head before the batch; the positions of the
    /// command records they began, with the index of their first line.
    mutating func linesWritten(_ lines: [(offset: Int, hash: SHA256Digest)], before: JournalHead, commandsBegun: [(position: Int, line: Int)]) {
        guard !lines.isEmpty else { return }
        setOffsets(lines, commandsBegun: commandsBegun)
        var end = WrittenEnd(head: before, previous: previousHead, lastLineOffset: lastLineOffset)
        end.advance(over: lines)
        writtenEnd = end
    }

    /// Of ``linesWritten(_:before:commandsBegun:)``, only the offsets of the
    /// command records the lines began: a pipelined run sets them batch by
    /// batch while the chain's head is already further on (see ``writtenEnd``).
    mutating func setOffsets(_ lines: [(offset: Int, hash: SHA256Digest)], commandsBegun: [(position: Int, line: Int)]) {
        for (position, line) in commandsBegun { commands.setOffset(lines[line].offset, at: position) }
    }

    /// The end of the lines written: the head, the head before it and the offset of the last line.
    struct WrittenEnd {
        var head: JournalHead
        var previous: JournalHead
        var lastLineOffset: Int

        /// Moves on over `lines` (hashes and offsets), written after this end.
        mutating func advance(over lines: [(offset: Int, hash: SHA256Digest)]) {
            guard let last = lines.last else { return }
            previous = lines.count > 1 ? JournalHead(seq: head.seq + lines.count - 1, hash: lines[lines.count - 2].hash) : head
            head = JournalHead(seq: head.seq + lines.count, hash: last.hash)
            lastLineOffset = last.offset
        }
    }

    /// The chain's end as a ``WrittenEnd``; after events appended unencoded, set it once their lines are written.
    var writtenEnd: WrittenEnd {
        get { WrittenEnd(head: head, previous: previousHead, lastLineOffset: lastLineOffset) }
        set { (head, previousHead, lastLineOffset) = (newValue.head, newValue.previous, newValue.lastLineOffset) }
    }

    /// Everything an event changes but its id (``claim(_:)``), the head and the
    /// last line's offset; the position of the command's record if the event begins it.
    private mutating func note(_ recorded: RecordedEvent, offset: Int, folding: Bool = true) -> Int? {
        var begun: Int?
        if let last = lastCommand, recorded.command == last.id {
            commands.addEvent(at: last.position)
        } else {
            let record = CommandRecord(firstSeq: recorded.seq, count: 1, offset: offset)
            if let position = commands.insert(recorded.command, record) {
                lastCommand = (recorded.command, position)
            } else {   // never written by the journal, which answers a repeated command from its first run
                commands[recorded.command] = record
                lastCommand = commands.position(of: recorded.command).map { (recorded.command, $0) }
            }
            begun = lastCommand?.position
            lastCommandDeclared = recorded.commandEvents
        }
        lastAt = recorded.at
        if folding, foldsState { fold(recorded) }
        return begun
    }

    /// The chain of an empty journal.
    init() {}

    // MARK: The chain in a snapshot (ChainSnapshot)

    /// Everything the chain holds; only a chain with no command open and no newer line is written.
    func encode(to w: inout BinaryWriter) {
        w.int(head.seq); w.digest(head.hash)
        w.int(previousHead.seq); w.digest(previousHead.hash)
        w.optional(lastAt) { $0.timestamp($1) }
        w.int(lastLineOffset)
        state.encode(to: &w)
        commands.encode(to: &w)
        w.optional(lastCommand?.id) { $0.id($1) }
        w.optional(lastCommandDeclared) { $0.int($1) }
        eventIDs.encode(to: &w)
    }

    init(from r: inout BinaryReader) throws(BinaryDecodingError) {
        head = JournalHead(seq: try r.int(), hash: try r.digest())
        previousHead = JournalHead(seq: try r.int(), hash: try r.digest())
        lastAt = try r.optional { r throws(BinaryDecodingError) in try r.timestamp() }
        lastLineOffset = try r.int()
        state = try ShopState(from: &r)
        commands = try CommandTable(from: &r)
        if let last = try r.optional({ r throws(BinaryDecodingError) -> CommandID in try r.id() }) {
            guard let position = commands.position(of: last) else { throw BinaryDecodingError("the last command \(last) is not among the commands") }
            lastCommand = (last, position)
        }
        lastCommandDeclared = try r.optional { r throws(BinaryDecodingError) in try r.int() }
        eventIDs = try IDIndex(from: &r)
        guard eventIDs.count == head.seq else { throw BinaryDecodingError("\(eventIDs.count) event ids for \(head.seq) events") }
    }
}

extension EntityID where Kind == EventKind {
    /// The id an event takes instead of this one when the journal holds this
    /// one already (an injected generator, such as `.sequential`, repeats its
    /// ids after a reopen): a version-4 UUID made from the SHA-256 of this id.
    /// It depends on nothing but this id, so a batch gives the same bytes
    /// whichever thread claims its ids (see `Journal.decideAndWrite`), and
    /// the generator is asked once an event, however many ids were taken.
    func replacement() -> EventID {
        var bytes = withUnsafeBytes(of: uuid.uuid) { Array($0) }
        bytes += Array("ShopEvents: this event id is taken".utf8)
        let words = bytes.withUnsafeBytes { SHA256.hash($0) }.words
        var out: [UInt8] = []
        for word in [words.0, words.1, words.2, words.3] {
            out += [UInt8(word >> 24), UInt8(truncatingIfNeeded: word >> 16), UInt8(truncatingIfNeeded: word >> 8), UInt8(truncatingIfNeeded: word)]
        }
        out[6] = out[6] & 0x0F | 0x40
        out[8] = out[8] & 0x3F | 0x80
        return EventID(UUIDText.uuid(out))
    }
}
