import Foundation

/// A phone's replica of the household's hub, for an app: an actor that
/// executes commands into the outbox and syncs (docs/SYNC.md).
///
/// ``state`` is the optimistic state — the replica, then the outbox's
/// commands — and ``pending`` the commands the hub has not taken yet.
/// ``execute(_:)`` decides against it and appends to the outbox with `fsync`
/// (waiting for the outbox's lock suspends, it never blocks a pool thread);
/// ``sync(over:)`` pulls, pushes and pulls again. ``events(after:)`` streams
/// the replica's events — the hub's history, as sync brings it — live.
/// (``ShopStore`` refuses a replica: only sync writes one.)
///
/// ```swift
/// let phone = try await ReplicaStore(path: "phone.ndjson", options: .init(actor: "cleo"))
/// try await phone.execute(.addItemToList(list: weekly, item: milk, quantity: 2))   // pending, offline
/// let report = try await phone.sync(over: try ProcessTransport(command: "ssh home shop-replay hub --journal /srv/home.ndjson"))
/// print(report.accepted, await phone.pending.count)
/// ```
public actor ReplicaStore {
    public nonisolated let path: String
    public nonisolated let options: Journal.Options
    private let replica: Replica

    /// Reads the replica and its outbox; nothing is locked or written.
    public init(path: String, options: Journal.Options = .init()) async throws {
        let path = JournalPath.absolute(path)
        self.path = path
        self.options = options
        replica = try Replica(path: path, options: options)
        settings = replica.settings
    }

    /// The optimistic state: the replica, then each outbox command that still decides.
    public var state: ShopState { replica.state }
    /// The replica's head: the hub's history as far as it was pulled.
    public var head: JournalHead { replica.replicaHead }
    /// The commands in the outbox, in order.
    public var pending: [CommandEnvelope] { replica.pending }
    /// The outbox commands' events as they would be recorded.
    public var pendingEvents: [RecordedEvent] { replica.pendingEvents }
    /// `J.sync`: the hub and this device's name.
    public nonisolated let settings: SyncSettings

    /// Decides the command against the optimistic state and appends it to the
    /// outbox (``CommandOutcome/isPending``). Throws ``RuleViolation`` if a
    /// rule rejects it; nothing is written then.
    @discardableResult
    public func execute(_ request: CommandEnvelope) async throws -> CommandOutcome {
        let lock = try await WriterLock.acquire(journalPath: Outbox.path(journal: path), timeout: options.lockTimeout)
        defer { WriterLock.release(lock) }
        return try replica.executeHoldingOutboxLock(request)
    }

    /// Executes one command with the default actor and a fresh command id.
    @discardableResult
    public func execute(_ command: Command) async throws -> CommandOutcome {
        try await execute(CommandEnvelope(command))
    }

    /// Reads what sync (another process's, too) appended and what the outbox gained.
    public func refresh() throws {
        try replica.refresh()
    }

    /// One sync with the hub over `transport` (see ``SyncClient``), then the state read again.
    public func sync(over transport: some SyncTransport) async throws -> SyncReport {
        let report = try await SyncClient(journal: path, options: options).sync(over: transport)
        try replica.refresh()
        return report
    }

    /// Every event of the replica after `seq`, then live as sync appends them
    /// (this process's or another's); as ``ShopStore/events(after:)``.
    public nonisolated func events(after seq: Int) -> AsyncThrowingStream<RecordedEvent, any Error> {
        JournalFollower.events(path: path, after: seq)
    }
}
