import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ServiceLifecycle
import ShopEvents
import Synchronization

/// The hub's storage in PostgreSQL (docs/HUB.md): any number of
/// `shop-hub` processes over one database.
///
/// Every table is keyed by household first. Each household has its own dense
/// `seq` (1…n, no gaps, no sequence shared across households). Pushes are
/// committed in batches (group commit, `PushQueue`): one statement, so one
/// transaction and one round trip, for every push waiting in the process.
/// Each household's commands are decided against the state at the head this
/// process knows (kept in memory per household, caught up from the lines
/// after it), and the statement takes the households' row locks
/// (`SELECT … FOR UPDATE`), and only for a household whose head is still
/// that one and none of whose commands is recorded already, inserts the
/// lines (byte for byte, each with its hash) and command records and moves
/// the head; it commits, and only then are the pushes answered. A household
/// whose head another process moved writes nothing: the lines after the
/// known head are folded and its pushes decided again. A push costs its own
/// commands, not the household's history.
/// A commit sends one `NOTIFY shop_hub_push` with the ids of the households it
/// moved, comma-separated (one for each 200, under PostgreSQL's 8,000-byte
/// payload limit): every process's long polls wake (the lines are
/// always read from the table).
///
/// ```swift
/// func open(_ url: String, logger: Logger) async throws -> PostgresHubStorage {
///     let storage = try PostgresHubStorage(url: url, logger: logger)
///     Task { await storage.run() }          // the connection pool, for the storage's life
///     try await storage.migrate()
///     return storage
/// }
/// ```
public final class PostgresHubStorage: HubStorage, Sendable {
    /// How the tables are laid out: plain, or hash-partitioned by household
    /// (what Citus's distribution by household does across nodes).
    public enum Layout: String, Sendable, CaseIterable { case plain, partitioned }

    let client: PostgresClient
    /// For what a crash may forget (a token's rate, when a device was last seen): commits without
    /// waiting for the disk (`synchronous_commit = off`). Never for lines, devices or invites.
    let bookkeeping: PostgresClient
    let logger: Logger
    let layout: Layout
    let clock: Clock
    /// Where the recorded events' ids come from.
    let ids: IDGenerator
    /// The hub's rules over the tables: the fold cache, the optimistic batch and the row-locked retry.
    public let core: HubCore<PostgresLineStore>
    let notifications = Mutex<[AsyncStream<HouseholdID>.Continuation]>([])
    /// The live devices of tokens this process has authenticated, by token hash (hex): a sync request
    /// of one is answered without a statement of its own; the statement that answers it checks the
    /// token is still live (see ``authenticateForSync(tokenHash:rate:burst:at:)``).
    let devicesByToken: TokenDevices
    /// Each token's rate, counted in memory and added to `rate_limits` about once a second.
    let rates = SharedTokenRates()
    /// What a household's creation keeps of the client's address is keyed with: `shop_hub_secrets`'s, read once.
    let addressKey = Mutex<AddressKey?>(nil)
    static let channel = "shop_hub_push"

    /// Each household's pushes in this process, one batch at a time.
    let deadlines = Deadlines()
    let queue: PushQueue

    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (`postgresql://` too; a
    /// host starting with `/` is a Unix socket's folder). No TLS: put the
    /// database on a private network or a socket.
    public init(url: String, layout: Layout = .plain, clock: Clock = .system, ids: IDGenerator = .random, logger: Logger) throws {
        var configuration = try PostgresAddress(url: url).client
        configuration.options.maximumConnections = 16
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("synchronous_commit", "off")]
        bookkeeping = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        queue = PushQueue(timeout: Self.deadline, deadlines: deadlines)
        self.layout = layout
        self.clock = clock
        self.ids = ids
        let devices = TokenDevices()
        devicesByToken = devices
        core = HubCore(store: PostgresLineStore(client: client, logger: logger, devices: devices, channel: Self.channel), clock: clock, ids: ids,
                       revoked: { devices.forget($0) })
    }

    /// Runs the connection pool and the `LISTEN` for pushes; returns when the task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            group.addTask { await self.bookkeeping.run() }
            group.addTask { await self.deadlines.watch() }
            group.addTask { await self.listen() }
            group.addTask { await self.flushRates() }
        }
    }

    /// ``run()`` as a service of the process: until its graceful shutdown (or cancellation), then the
    /// pools' close, waited for at most `drain`. A statement the database never finished answering
    /// (seen after the database ended connections mid-answer: its request was answered 503 at its
    /// deadline, its connection stayed leased) must not hold the process's stop; everything answered
    /// was committed before its answer, so nothing is lost by not waiting.
    public func runUntilShutdown(drain: Duration = .seconds(5)) async {
        let pools = Task { await self.run() }
        try? await gracefulShutdown()
        pools.cancel()
        let once = Once()
        await withCheckedContinuation { (stopped: CheckedContinuation<Void, Never>) in
            Task {
                await pools.value
                if once.claim() { stopped.resume() }
            }
            Task { [logger] in
                try? await Task.sleep(for: drain)
                guard once.claim() else { return }
                logger.warning("the database's connections did not all close within \(drain); stopping without them")
                stopped.resume()
            }
        }
    }

    /// Adds each token's requests counted here to `rate_limits`, about once a second.
    func flushRates() async {
        while !Task.isCancelled {
            try? await Task.sleep(nanoseconds: 1_000_000_000)
            do {
                try await rates.flush(bookkeeping, at: clock.now().millisecondsSince1970, logger: logger)
            } catch {
                logger.debug("the token rates were not flushed; they are kept for the next flush", metadata: ["error": "\(String(reflecting: error))"])
            }
        }
    }

    /// Households pushed to, by any process: from `LISTEN shop_hub_push`.
    public func pushes() -> AsyncStream<HouseholdID>? {
        let (stream, continuation) = AsyncStream<HouseholdID>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        notifications.withLock { $0.append(continuation) }
        return stream
    }

    func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.channel) { notifications in
                        for try await notification in notifications {
                            // One notification a commit: the households it moved, comma-separated.
                            let households = notification.payload.split(separator: ",").compactMap { HouseholdID(String($0)) }
                            for continuation in self.notifications.withLock({ $0 }) {
                                for household in households { continuation.yield(household) }
                            }
                        }
                    }
                }
            } catch {
                logger.warning("LISTEN \(Self.channel) ended; listening again", metadata: ["error": "\(String(reflecting: error))"])
                try? await Task.sleep(nanoseconds: 500_000_000)
            }
        }
    }

    /// How long a request waits for the database before it is answered 503: a connection the
    /// database dropped mid-query (a restart) must not hold a device's request forever.
    static let deadline: Duration = .seconds(10)

    /// `body`, or `unavailable` once ``deadline`` has passed (`body` is cancelled, and left to end on
    /// its own). One task of the storage's (in ``run()``) watches every request's deadline: a request
    /// costs an entry in a table, not a timer of its own.
    func answered<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let work = Mutex<Task<Void, Never>?>(nil)
            let entry = deadlines.add(at: .now + Self.deadline) {
                guard once.claim() else { return }
                work.withLock { $0?.cancel() }
                continuation.resume(throwing: HubError.unavailable("the database did not answer within \(Self.deadline)"))
            }
            let task = Task {
                do {
                    let value = try await body()
                    if once.claim() { continuation.resume(returning: value) }
                } catch {
                    if once.claim() { continuation.resume(throwing: error) }
                }
                deadlines.remove(entry)
            }
            work.withLock { $0 = task }
        }
    }

    /// A transaction on a pooled connection: committed if `body` returns, rolled back if it throws. A
    /// ``HubError`` thrown inside comes out as itself (PostgresNIO wraps what the closure throws).
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> sending T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let hub = error.closureError as? HubError { throw hub }
            throw error
        }
    }

    // MARK: The journal

    /// Each request's one statement also asks whether the token is live, so that a device this
    /// process authenticated from memory is refused once its token is revoked anywhere.
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash?) async throws -> SyncResponse {
        try await sync(household, request, as: actor, token: token?.hex)
    }

    /// A hello and a pull are watched by ``answered(_:)``. A push is answered by its batch, which the
    /// push queue gives up on after the same ``deadline`` (``PushQueue/timeout``): it goes straight
    /// there, without a task of its own to watch it (two switches of thread a push).
    func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: String?) async throws -> SyncResponse {
        switch request {
        case .hello, .pull:
            return try await answered { try await self.core.sync(household, request, as: actor, token: token) }
        case let .push(commands):
            return try await push(household, commands, as: actor, token: token)
        }
    }

    /// Drops revoked tokens' devices from this process's memory.
    func forget(_ tokens: some Sequence<String>) {
        devicesByToken.forget(tokens)
    }

    /// A push: it goes to the database with the other pushes waiting in this process, whatever their
    /// households (group commit: see ``PushQueue``), and is answered only after their commit.
    func push(_ household: HouseholdID, _ commands: [CommandEnvelope], as actor: String, token: String?) async throws -> SyncResponse {
        if let refusal = HubRules.refusal(ofPush: commands) { throw HubError.badRequest(refusal.message) }
        return try await queue.push(HubPush(household: household, commands: commands, actor: actor, token: token)) { batch in
            await self.core.write(batch)
        }
    }
}
