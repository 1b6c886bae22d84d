import Foundation

/// Where a program's commands go, one batch at a time: the household's
/// journal — opened shared, so that an app's ``ShopStore`` or another
/// writer may write while this one waits for its next command — or, on a
/// sync replica, its outbox (``Replica``), for sync to send.
///
/// A journal that is not there yet is made only for a command that a new
/// journal accepts: a run whose commands are all rejected leaves no file
/// behind, not even the lock.
///
/// ```swift
/// let writer = try CommandWriter(path: "shop.ndjson", options: .init(actor: "ana"))
/// defer { writer.close() }
/// let results = try writer.execute([CommandEnvelope(.createList(name: "Weekend"))])
/// print(results.count, writer.isReplica)
/// ```
public final class CommandWriter {
    public let path: String
    public let options: Journal.Options
    /// The journal, once it is open (a missing one is opened by its first accepted command).
    public private(set) var journal: SharedJournal?
    /// The replica, when `path` is one: commands go to its outbox.
    public let replica: Replica?
    /// Told of the journal when it is opened: a torn tail it recovered is the caller's to say.
    private let opened: (SharedJournal) -> Void

    public var isReplica: Bool { replica != nil }

    public init(path: String, options: Journal.Options, opened: @escaping (SharedJournal) -> Void = { _ in }) throws {
        self.path = JournalPath.absolute(path)
        self.options = options
        self.opened = opened
        if Replica.isReplica(self.path) {
            // A replica's commands carry its own device's name (`J.sync`), whoever writes them.
            var replicaOptions = options
            replicaOptions.device = nil
            replica = try Replica(path: self.path, options: replicaOptions)
        } else {
            replica = nil
            if FileManager.default.fileExists(atPath: self.path) { try open() }
        }
    }

    private func open() throws {
        let journal = try SharedJournal.open(path: path, options: options)
        self.journal = journal
        opened(journal)
    }

    /// Executes the commands in order: on a journal with one `write` and one
    /// `fsync` for those accepted; on a replica each into the outbox.
    public func execute(_ requests: [CommandEnvelope]) throws -> [Result<CommandOutcome, RuleViolation>] {
        if let replica {
            return try requests.map { request in
                do { return .success(try replica.execute(request)) } catch let violation as RuleViolation { return .failure(violation) }
            }
        }
        if journal == nil {
            // Each is decided against a new, empty journal; none accepted: nothing is made.
            var rejections: [Result<CommandOutcome, RuleViolation>] = []
            for request in requests {
                do {
                    _ = try ShopDecider.decide(request, .initial, after: JournalEnd(seq: 0, lastAt: nil), now: options.clock.now(),
                                               defaultActor: options.actor)
                    break
                } catch { rejections.append(.failure(error)) }
            }
            if rejections.count == requests.count { return rejections }
            try open()
        }
        guard let journal else { return [] }
        return try journal.execute(batch: requests)
    }

    /// The household as the next command is decided against: after what other
    /// writers appended, or the replica's optimistic one; empty before there is a journal.
    public func refreshedState() throws -> ShopState {
        if let replica {
            try replica.refresh()
            return replica.state
        }
        if journal == nil, FileManager.default.fileExists(atPath: path) { try open() }
        guard let journal else { return .initial }
        try journal.refresh()
        return journal.state
    }

    /// Whether a command with this id is in the journal (on a replica: in the
    /// replica or its outbox), as last read: executing it again is a retry,
    /// answered with its first result.
    ///
    /// ```swift
    /// if writer.holds(command: id) { print("a retry: answered with its first result, nothing written") }
    /// ```
    public func holds(command id: CommandID) -> Bool {
        if let replica { return replica.holds(command: id) }
        return journal?.journal.chain.commands[id] != nil
    }

    /// The household as last read or written, without reading anything.
    public var state: ShopState { replica?.state ?? journal?.state ?? .initial }

    /// Closes the journal; one this writer made and left empty is removed.
    public func close() { journal?.close(discardingIfEmpty: true) }
}
