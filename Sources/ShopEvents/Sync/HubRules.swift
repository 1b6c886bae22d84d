import Foundation

/// The hub's rules for one household (docs/SYNC.md, docs/HUB.md), on values: every
/// hub — the stdio hub (``SyncHub``), the hosted hub on files and on
/// PostgreSQL — answers hello, pull and push through them, and keeps only
/// its storage (reading lines and heads, appending lines durably) to itself.
///
/// - hello: the protocol version; the household and the head.
/// - pull: `diverged` unless the device's last line is the hub's line `after`
///   (by hash); a page of whole commands, at most ``linesPerPull`` lines but
///   for the last command's.
/// - push: a command without `id` is a bad request; one naming another actor
///   than the connection's is `forbidden`; an id the household holds is answered
///   from its record (a retry of the same type) or refused (`id_reused`); a new
///   hosted household's first command is its `CreateHousehold`
///   (`wrong_household`); every other command is decided on the state the
///   earlier ones left, and its lines built and folded.
///
/// ```swift
/// let rules = HubRules(defaultActor: "ana")
/// let command = CommandEnvelope(.createHousehold(household: HouseholdID(), name: "Home", currency: "EUR", timeZone: "Europe/Madrid"),
///                               id: CommandID())
/// let decided = rules.push([HubRules.Push(commands: [command], actor: "ana")], on: HubRules.Fold(), known: [:],
///                          now: { Timestamp(millisecondsSince1970: 1_800_000_000_000) }, ids: .random)
/// print(decided.results[0][0].seqs, decided.lines.count, decided.fold.head.seq)   // [1] 1 1
/// ```
public struct HubRules: Sendable {
    /// A new hosted household's id: its first command must create it (`wrong_household`); nil for a hub without that rule.
    public var household: HouseholdID?
    /// The actor of a command that names none, on a connection that names none.
    public var defaultActor: String
    /// Written as `device` on an event whose command names none.
    public var device: String?
    /// At most this many lines in one pull's answer, but for the last command's (a command is never split).
    public var linesPerPull: Int

    public init(household: HouseholdID? = nil, defaultActor: String = "shop", device: String? = nil, linesPerPull: Int = 10_000) {
        self.household = household; self.defaultActor = defaultActor; self.device = device; self.linesPerPull = linesPerPull
    }

    /// A household's state at its head: what a push is decided on.
    public struct Fold: Sendable {
        public var state: ShopState
        public var head: JournalHead
        /// The last event's `at`.
        public var lastAt: Timestamp?

        public init(state: ShopState = .compact, head: JournalHead = .empty, lastAt: Timestamp? = nil) {
            self.state = state; self.head = head; self.lastAt = lastAt
        }

        /// Folds one event in; `hash` is its line's.
        public mutating func apply(_ recorded: RecordedEvent, hash: SHA256Digest) {
            state.apply(recorded)
            head = JournalHead(seq: recorded.seq, hash: hash)
            lastAt = recorded.at
        }
    }

    /// A command the household holds: its first seq, how many events it wrote, and its type (that of
    /// its last event), which tells a retry (the same type) from an id reused for another command.
    public struct CommandRecord: Hashable, Sendable {
        public var first: Int
        public var count: Int
        public var type: CommandType

        public init(first: Int, count: Int, type: CommandType) { self.first = first; self.count = count; self.type = type }
    }

    /// One push's commands and its connection's actor (nil: the commands' own, or ``defaultActor``).
    public struct Push: Sendable {
        public var commands: [CommandEnvelope]
        public var actor: String?

        public init(commands: [CommandEnvelope], actor: String?) { self.commands = commands; self.actor = actor }
    }

    /// One line to append: its event, its bytes (without the newline) and their hash.
    public struct Line: Sendable {
        public var event: RecordedEvent
        public var bytes: [UInt8]
        public var hash: SHA256Digest

        public init(event: RecordedEvent, bytes: [UInt8], hash: SHA256Digest) { self.event = event; self.bytes = bytes; self.hash = hash }
    }

    /// Pushes decided: each push's results, in order; the lines to append and the command records they
    /// make (in order, by command id); the household's state after them.
    public struct Decided: Sendable {
        public var results: [[PushResult]] = []
        public var lines: [Line] = []
        public var records: [(id: CommandID, record: CommandRecord)] = []
        public var fold: Fold

        public init(results: [[PushResult]] = [], lines: [Line] = [], records: [(id: CommandID, record: CommandRecord)] = [], fold: Fold) {
            self.results = results; self.lines = lines; self.records = records; self.fold = fold
        }
    }

    // MARK: Hello

    /// `unsupported_protocol` unless the device speaks this hub's protocol.
    public static func helloRefusal(protocol version: Int) -> SyncResponse? {
        guard version != SyncWire.protocolVersion else { return nil }
        return .error(SyncFailure(code: "unsupported_protocol",
                                  message: "this hub speaks protocol \(SyncWire.protocolVersion), the device \(version): update the older one"))
    }

    /// The answer to a hello the version of which was taken: the household (nil before its first event) and the head.
    public static func hello(household: HouseholdID?, head: JournalHead) -> SyncResponse {
        .hello(protocol: SyncWire.protocolVersion, household: head.seq > 0 ? household : nil, head: head)
    }

    // MARK: Pull

    /// What the hub holds at a pull's `after`.
    public enum LineAfter: Sendable {
        /// No journal at all (a file hub before its first push).
        case noJournal
        /// Fewer than `after` lines.
        case missing
        /// Line `after`'s hash (for `after` 0: anything).
        case hash(SHA256Digest)
    }

    /// `diverged` unless the device's history (its last line `after`, of hash `hash`) is a prefix of the hub's.
    public static func diverged(after: Int, hash: SHA256Digest, hub: LineAfter) -> SyncResponse? {
        func diverged(_ why: String) -> SyncResponse {
            .error(SyncFailure(code: "diverged", message: "the device's history is not a prefix of the hub's: \(why)"))
        }
        if case .noJournal = hub {
            return after == 0 && hash == .zero ? nil : diverged("the hub's journal is empty")
        }
        if after == 0 { return hash == .zero ? nil : diverged("before seq 1 the hash is all zeros") }
        guard case let .hash(found) = hub else { return diverged("the hub has fewer than \(after) lines") }
        return found == hash ? nil : diverged("line \(after) has another hash on the hub")
    }

    /// A pull's page, line by line: whole commands while it holds fewer than `limit` lines.
    public struct Page: Sendable {
        public let limit: Int
        public private(set) var lines: [[UInt8]] = []
        /// The lines that end a command: the page keeps these.
        public private(set) var whole = 0
        /// The page took as many lines as it may: the hub has more.
        public private(set) var full = false
        private var left = 0

        public init(limit: Int) { self.limit = limit }

        /// Takes the next line, unless the page is full (false: the line is left for the next pull).
        public mutating func add(_ line: [UInt8]) -> Bool {
            if left == 0, whole >= limit {
                full = true
                return false
            }
            left = left > 0 ? left - 1 : EventLineCodec.commandLines(beginningWith: line) - 1
            lines.append(line)
            if left == 0 { whole = lines.count }
            return true
        }

        /// Whether the last line taken ends a command.
        public var endsCommand: Bool { left == 0 }

        /// The page's lines: a command whose lines are not all there (a writer mid-write, or the end of
        /// what was read) is left for the next pull.
        public var wholeLines: [[UInt8]] { whole == lines.count ? lines : Array(lines[..<whole]) }
    }

    // MARK: Push

    /// `bad_request` for a push with a command without `id` (a pushed command names itself, so that a retry is answered from the record).
    public static func refusal(ofPush commands: [CommandEnvelope]) -> SyncFailure? {
        guard let index = commands.firstIndex(where: { $0.id == nil }) else { return nil }
        return .badRequest("command \(index + 1) of the push has no \"id\": a pushed command names itself, so that a retry is answered from the record")
    }

    /// Decides `pushes` in order on `fold`. `known` holds the records of the pushed command ids the
    /// household holds (the others it does not); `now` is read for each command decided; each event
    /// takes an id from `ids`, replaced (deterministically) while `claim` says it is taken.
    /// Commands without `id` are skipped (see ``refusal(ofPush:)``).
    public func push(_ pushes: [Push], on fold: consuming Fold, known: [CommandID: CommandRecord], now: () -> Timestamp,
                     ids: IDGenerator, claim: (EventID) -> Bool = { _ in true }) -> Decided {
        var decided = Decided(fold: consume fold)   // the state held once, changed in place: never copied
        var known = known
        var anyAccepted = false
        for push in pushes {
            var results: [PushResult] = []
            results.reserveCapacity(push.commands.count)
            for command in push.commands {
                guard let id = command.id else { continue }
                let result = answer(command, id: id, actor: push.actor, known: &known, anyAccepted: anyAccepted, into: &decided,
                                    now: now, ids: ids, claim: claim)
                anyAccepted = anyAccepted || result.ok
                results.append(result)
            }
            decided.results.append(results)
        }
        return decided
    }

    /// One command's result; its lines and record, if it has events, into `decided`.
    private func answer(_ command: CommandEnvelope, id: CommandID, actor: String?, known: inout [CommandID: CommandRecord],
                        anyAccepted: Bool, into decided: inout Decided, now: () -> Timestamp, ids: IDGenerator,
                        claim: (EventID) -> Bool) -> PushResult {
        var request = command
        if let actor {
            if let named = command.actor, named != actor {
                return PushResult(command: id, seqs: [], error: SyncFailure(
                    code: RuleViolation.Reason.forbidden.rawValue, message: "this connection is \(actor)'s; a command by \(named) is not taken from it"))
            }
            request.actor = actor
        }
        if let record = known[id] {
            do { try ShopDecider.requireRetry(command.command.kind, id: id, first: record.type) } catch {
                return PushResult(command: id, seqs: [], error: SyncFailure(code: error.code, message: error.message))
            }
            return PushResult(command: id, seqs: Array(record.first..<(record.first + record.count)), error: nil)
        }
        if decided.fold.head.seq == 0, !anyAccepted, let household, let refusal = Self.firstPushRefusal(of: command, in: household) {
            return PushResult(command: id, seqs: [], error: refusal)
        }
        do {
            let outcome = try ShopDecider.decide(request, decided.fold.state, after: JournalEnd(seq: decided.fold.head.seq, lastAt: decided.fold.lastAt),
                                                 now: now(), defaultActor: actor ?? defaultActor)
            let first = decided.fold.head.seq + 1
            let lines = lines(of: outcome, request: request, id: id, after: decided.fold.head, ids: ids, claim: claim)
            for line in lines { decided.fold.apply(line.event, hash: line.hash) }
            decided.lines += lines
            if !lines.isEmpty {
                let record = CommandRecord(first: first, count: lines.count, type: command.command.kind)
                decided.records.append((id, record))
                known[id] = record
            }
            return PushResult(command: id, seqs: Array(first..<(first + lines.count)), error: nil)
        } catch {
            return PushResult(command: id, seqs: [], error: SyncFailure(code: error.code, message: error.message))
        }
    }

    /// A decided command's journal lines after `head`: seq, event id, `commandEvents` (on the first of
    /// several), `prev`, the bytes and their hash.
    private func lines(of decided: DecidedCommand, request: CommandEnvelope, id: CommandID, after head: JournalHead,
                       ids: IDGenerator, claim: (EventID) -> Bool) -> [Line] {
        var prev = head.hash
        return CommandLines.records(of: decided, command: id, device: request.device ?? device, correlation: request.correlation,
                                    after: head.seq, prev: prev) {
            var eventID: EventID = ids.make()
            while !claim(eventID) { eventID = eventID.replacement() }
            return eventID
        }.map { recorded in
            var recorded = recorded
            let (bytes, hash) = CommandLines.line(&recorded, after: prev)
            prev = hash
            return Line(event: recorded, bytes: bytes, hash: hash)
        }
    }

    /// `wrong_household` unless `command` is `CreateHousehold` of `household` (a new hosted household's first).
    public static func firstPushRefusal(of command: CommandEnvelope, in household: HouseholdID) -> SyncFailure? {
        if case let .createHousehold(id, _, _, _) = command.command, id == household { return nil }
        return SyncFailure(code: "wrong_household",
                           message: "household \(household) is new on this hub: its first command is CreateHousehold with \"household\": \"\(household)\"")
    }
}
