import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What one sync did (`shop-replay sync --json` prints it).
public struct SyncReport: Hashable, Sendable {
    /// Lines pulled from the hub into the replica.
    public var pulled = 0
    /// Commands sent (a purchase retried off its list counts again).
    public var pushed = 0
    /// Commands the hub took.
    public var accepted = 0
    /// Purchases the hub refused on their list and that were sent again off any list.
    public var retriedOffList: Int { retries.count }
    /// Those purchases as first sent, with the hub's reason for refusing them on their list.
    public var retries: [RejectedCommand] = []
    /// Commands the hub refused; each is in `<journal>.rejected`.
    public var rejected: [RejectedCommand] = []
    /// Commands still in the outbox.
    public var pending = 0
    /// The replica's head afterwards.
    public var head = JournalHead.empty
    /// A torn tail a killed pull had left in the replica, backed up and cut first.
    public var recoveredTornTail: Journal.TornTailRecovery?

    public init() {}
}

/// A command the hub refused, as `<journal>.rejected` keeps it.
public struct RejectedCommand: Hashable, Sendable {
    public var command: CommandEnvelope
    public var error: SyncFailure

    public init(command: CommandEnvelope, error: SyncFailure) { self.command = command; self.error = error }

    var json: JSONValue {
        .object([("command", command.id.map { .string($0.description) } ?? .null), ("type", .string(command.command.typeName)),
                 ("error", error.json), ("request", (try? JSONValue.parse(CommandCodec.encode(command))) ?? .null)])
    }

    /// Every command the hub refused, from `<journal>.rejected`.
    public static func all(journal path: String) throws -> [RejectedCommand] {
        guard let data = FileManager.default.contents(atPath: path + ".rejected") else { return [] }
        // A last line without its newline is an append a crash cut short; the next append cuts it.
        let whole = data.prefix(through: data.lastIndex(of: 0x0A) ?? data.startIndex - 1)
        return try whole.split(separator: 0x0A).map { line in
            let value = try JSONValue.parse(Array(line))
            guard let error = value["error"].flatMap(SyncFailure.init(json:)), let request = value["request"] else {
                throw JournalError(.corruptLine, "\(path).rejected has a line that is not {command, type, error, request}")
            }
            return RejectedCommand(command: try CommandCodec.decode(Array(request.text().utf8), ids: .random), error: error)
        }
    }
}

/// The device side of sync (docs/SYNC.md, "One sync"): pull the hub's new lines into
/// the replica (checking the chain of each), push the outbox, retry a
/// purchase the hub refused on its list as the same purchase off any list,
/// keep every other refusal in `<journal>.rejected`, pull again. Safe to
/// interrupt anywhere and to repeat: the outbox is rewritten atomically only
/// after the hub's answer, and the hub answers a command id it already has
/// from its record.
///
/// ```swift
/// let hub = try ProcessTransport(command: "shop-replay hub --journal /srv/home.ndjson")
/// let report = try await SyncClient(journal: "phone.ndjson", options: .init(actor: "cleo")).sync(over: hub)
/// print(report.pulled, report.accepted, report.rejected.map(\.error.code))
/// ```
public struct SyncClient: Sendable {
    public let path: String
    public let options: Journal.Options

    public init(journal path: String, options: Journal.Options = .init()) {
        self.path = JournalPath.absolute(path)
        self.options = options
    }

    /// Makes a new replica at `path` (refused if `path` or its `.sync` exists) and syncs it once.
    public static func clone(journal path: String, settings: SyncSettings, options: Journal.Options = .init(),
                             over transport: some SyncTransport) async throws -> SyncReport {
        let path = JournalPath.absolute(path)
        for file in [path, path + ".sync"] where access(file, F_OK) == 0 {
            throw JournalError(.exists, "\(file) already exists; nothing was changed — clone to another path")
        }
        // Asked first, before any file is made: a hub with no journal (a mistyped path) leaves nothing behind.
        if case let .error(failure) = try await transport.send(.hello(protocol: SyncWire.protocolVersion, device: settings.device,
                                                                       actor: options.actor)) {
            throw failure
        }
        try DurableFile.writeAtomically(SyncWire.line(settings.json), to: path + ".sync")
        return try await SyncClient(journal: path, options: options).sync(over: transport)
    }

    /// One sync. Throws ``SyncFailure`` (`hub_unreachable`, `no_journal`, `diverged`,
    /// `wrong_household`, …) or a ``JournalError``; whatever was done before
    /// stays done, and running it again goes on from there.
    public func sync(over transport: some SyncTransport) async throws -> SyncReport {
        let settings = try SyncSettings.load(journal: path)
        // Waiting for the replica's lock (another sync of it) suspends; it never blocks a pool thread.
        let replica = try ReplicaJournal(path: path, lockFD: try await WriterLock.acquire(journalPath: path, timeout: options.lockTimeout))
        defer { replica.close() }
        var report = SyncReport()
        report.recoveredTornTail = replica.recoveredTornTail
        switch try await transport.send(.hello(protocol: SyncWire.protocolVersion, device: settings.device, actor: options.actor)) {
        case let .hello(version, household, _):
            guard version == SyncWire.protocolVersion else {
                throw SyncFailure(code: "unsupported_protocol", message: "the hub speaks protocol \(version), this device \(SyncWire.protocolVersion)")
            }
            if let mine = replica.state.household?.id, let household, mine != household {
                throw SyncFailure(code: "wrong_household", message: "the hub holds household \(household), this replica \(mine): \(settings.hub) is another household's hub")
            }
        case let .error(failure): throw failure
        default: throw SyncFailure(code: "bad_response", message: "the hub did not answer hello with hello")
        }
        report.pulled += try await pull(into: replica, over: transport)
        try await dropDone(replica)
        var rounds = 0
        while true {
            let sent = try await pushRound(replica, over: transport, report: &report)
            guard sent else { break }
            rounds += 1
            if rounds > 100_000 { break }
        }
        report.pulled += try await pull(into: replica, over: transport)
        try await dropDone(replica)
        report.pending = try Outbox.read(journal: path).count
        report.head = replica.head
        return report
    }

    /// Pulls until the hub says there is no more; returns the lines appended.
    private func pull(into replica: ReplicaJournal, over transport: some SyncTransport) async throws -> Int {
        var pulled = 0
        while true {
            let head = replica.head
            switch try await transport.send(.pull(after: head.seq, hash: head.hash)) {
            case let .lines(lines, more):
                let appended = try replica.append(replicated: lines)
                pulled += appended
                guard more else { return pulled }
                guard appended > 0 else {
                    throw SyncFailure(code: "bad_response", message: "the hub said there is more but sent no whole command")
                }
            case let .error(failure): throw failure
            default: throw SyncFailure(code: "bad_response", message: "the hub did not answer a pull with lines")
            }
        }
    }

    /// Drops from the outbox the commands the replica already holds (a sync
    /// that was killed after the hub took them, before the outbox was rewritten).
    private func dropDone(_ replica: ReplicaJournal) async throws {
        try await withOutboxLock {
            let entries = try Outbox.read(journal: path)
            let left = entries.filter { !replica.holds($0.id) }
            if left.count != entries.count { try Outbox.rewrite(left, journal: path) }
        }
    }

    /// Pushes the next chunk of the outbox and files the answers; `false` when there was nothing to push.
    private func pushRound(_ replica: ReplicaJournal, over transport: some SyncTransport, report: inout SyncReport) async throws -> Bool {
        let chunk = try await withOutboxLock { () throws -> [CommandEnvelope] in
            var chunk: [CommandEnvelope] = []
            var bytes = 64
            for entry in try Outbox.read(journal: path) where !replica.holds(entry.id) {
                var pushed = entry.request
                pushed.at = nil
                let size = CommandCodec.encode(pushed).count + 1
                guard chunk.count < SyncWire.maxCommandsPerPush, bytes + size <= SyncWire.maxRequestBytes - 1024 else { break }
                chunk.append(pushed)
                bytes += size
            }
            return chunk
        }
        guard !chunk.isEmpty else { return false }
        let results: [PushResult]
        switch try await transport.send(.push(commands: chunk)) {
        case let .results(answers): results = answers
        case let .error(failure): throw failure
        default: throw SyncFailure(code: "bad_response", message: "the hub did not answer a push with results")
        }
        report.pushed += chunk.count
        let byCommand = Dictionary(results.map { ($0.command, $0) }, uniquingKeysWith: { first, _ in first })
        var progress = false
        try await withOutboxLock {
            var entries = try Outbox.read(journal: path)
            var refused: [RejectedCommand] = []
            var index = 0
            while index < entries.count {
                let entry = entries[index]
                guard let result = byCommand[entry.id] else { index += 1; continue }
                progress = true
                if let error = result.error {
                    if let retry = offListRetry(of: entry, refused: error) {
                        report.retries.append(RejectedCommand(command: entry.request, error: error))
                        entries[index] = retry
                        index += 1
                    } else {
                        refused.append(RejectedCommand(command: entry.request, error: error))
                        entries.remove(at: index)
                    }
                } else {
                    report.accepted += 1
                    entries.remove(at: index)
                }
            }
            // The refusals are kept before they leave the outbox: a crash between the two repeats, never loses.
            try keep(refused)
            report.rejected += refused
            try Outbox.rewrite(entries, journal: path)
        }
        return progress
    }

    /// A purchase refused because its list entry is gone or already bought
    /// (someone bought it, took it off, cleared, deleted or purged the list)
    /// is sent once more as the same purchase off any list: a new command id,
    /// the same purchase id and `purchasedAt`. A purchase already off a list is not retried.
    private func offListRetry(of entry: OutboxEntry, refused: SyncFailure) -> OutboxEntry? {
        guard case let .purchaseItem(purchase, item, _?, quantity, unitPrice, location, purchasedAt, store) = entry.request.command else { return nil }
        // The entry is gone or bought: bought by someone else, taken off, cleared, its list deleted or
        // purged — or its item deleted (which takes it off every list; a late purchase of it is allowed).
        let onListCodes: Set<RuleViolation.Reason> = [.notOnList, .alreadyBought, .unknownList, .listDeleted, .itemDeleted]
        guard let reason = RuleViolation.Reason(rawValue: refused.code), onListCodes.contains(reason) else { return nil }
        var retry = entry.request
        retry.correlation = entry.request.correlation ?? CorrelationID(entry.id.uuid)
        retry.command = .purchaseItem(purchase: purchase, item: item, list: nil, quantity: quantity, unitPrice: unitPrice,
                                      location: location, purchasedAt: purchasedAt, store: store)
        return OutboxEntry(id: options.ids.make(), request: retry)
    }

    /// Appends refusals to `<journal>.rejected` (each command once), with `fsync`.
    private func keep(_ refused: [RejectedCommand]) throws {
        guard !refused.isEmpty else { return }
        let file = path + ".rejected"
        let known = Set(try RejectedCommand.all(journal: path).compactMap(\.command.id))
        var bytes: [UInt8] = []
        for rejection in refused where rejection.command.id.map({ !known.contains($0) }) ?? true {
            bytes += SyncWire.line(rejection.json)
        }
        guard !bytes.isEmpty else { return }
        try Outbox.appendLines(bytes, to: file)
    }

    private func withOutboxLock<T>(_ body: () throws -> T) async throws -> T {
        let lock = try await WriterLock.acquire(journalPath: Outbox.path(journal: path), timeout: options.lockTimeout)
        defer { WriterLock.release(lock) }
        return try body()
    }
}
