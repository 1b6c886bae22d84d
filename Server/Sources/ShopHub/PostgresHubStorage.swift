import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ShopEvents
import Synchronization

/// The hub's storage in PostgreSQL (SPEC section 9): any number of
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
    private let clock: Clock
    /// Where the recorded events' ids come from.
    private let ids: IDGenerator
    /// Each household's state at the head this process last saw.
    private let heads = Mutex<[HouseholdID: Folded]>([:])
    private let notifications = Mutex<[AsyncStream<HouseholdID>.Continuation]>([])
    /// The live devices of tokens this process has authenticated, by token hash (hex): a sync request
    /// of one is answered without a statement of its own; the statement that answers it checks the
    /// token is still live (see ``authenticateForSync(tokenHash:rate:burst:at:)``).
    private let devicesByToken = Mutex<[String: DeviceRecord]>([:])
    /// Each token's rate, counted in memory and added to `rate_limits` about once a second.
    private let rates = SharedTokenRates()
    /// What a household's creation keeps of the client's address is keyed with: `shop_hub_secrets`'s, read once.
    private let addressKey = Mutex<AddressKey?>(nil)
    static let channel = "shop_hub_push"

    struct Folded {
        var state = ShopState.compact
        var head = JournalHead.empty
        var lastAt: Timestamp?
        /// Another process moved the head under this one lately: the next batch is decided on a copy.
        var contended = false
    }
    /// Each household's pushes in this process, one batch at a time.
    private let deadlines = Deadlines()
    private let queue: PushQueue

    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (`postgresql://` too; a
    /// host starting with `/` is a Unix socket's folder). No TLS: put the
    /// database on a private network or a socket.
    public init(url: String, layout: Layout = .plain, clock: Clock = .system, ids: IDGenerator = .random, logger: Logger) throws {
        var configuration = try PostgresAddress(url: url).client
        configuration.options.maximumConnections = 16
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        configuration.options.maximumConnections = 8
        configuration.options.additionalStartupParameters = [("synchronous_commit", "off")]
        bookkeeping = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        queue = PushQueue(timeout: Self.deadline, deadlines: deadlines)
        self.layout = layout
        self.clock = clock
        self.ids = ids
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

    /// Adds each token's requests counted here to `rate_limits`, about once a second.
    private func flushRates() async {
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

    private func listen() async {
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
    private func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> sending T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger, body)
        } catch let error as PostgresTransactionError {
            if let hub = error.closureError as? HubError { throw hub }
            throw error
        }
    }

    // MARK: Schema

    /// Creates or migrates the schema: versioned, idempotent, and safe when
    /// several hubs start at once (an advisory lock orders them).
    public func migrate() async throws {
        try await transaction { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(72707)", logger: logger)
            try await connection.query("""
                CREATE TABLE IF NOT EXISTS shop_hub_schema (version integer PRIMARY KEY, layout text NOT NULL,
                                                            applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: [(Int, String)] = []
            for try await row in try await connection.query("SELECT version, layout FROM shop_hub_schema ORDER BY version", logger: logger)
                .decode((Int, String).self) { applied.append(row) }
            if let existing = applied.first?.1, existing != layout.rawValue {
                throw HubError.unavailable("the database's tables are laid out \(existing), not \(layout.rawValue)")
            }
            for (version, statements) in Self.migrations(layout).enumerated() where !applied.contains(where: { $0.0 == version + 1 }) {
                for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.query("INSERT INTO shop_hub_schema (version, layout) VALUES (\(version + 1), \(layout.rawValue))", logger: logger)
            }
            // The hub's secret for the per-address limits, made once, by the first hub to start.
            try await connection.query("""
                INSERT INTO shop_hub_secrets (name, secret) VALUES ('address', \(AddressKey.random().hex)) ON CONFLICT (name) DO NOTHING
                """, logger: logger)
        }
    }

    /// The keyed hash of a client's address (``AddressKey``), under the key `migrate()` made.
    private func keyedAddress(_ address: String) async throws -> TokenHash {
        if let key = addressKey.withLock({ $0 }) { return key.hash(address) }
        for try await hex in try await client.query("SELECT secret FROM shop_hub_secrets WHERE name = 'address'", logger: logger).decode(String.self) {
            guard let key = AddressKey(hex: hex) else { break }
            addressKey.withLock { $0 = key }
            return key.hash(address)
        }
        throw HubError.unavailable("the database has no address key in shop_hub_secrets: start `shop-hub serve` once to migrate it")
    }

    /// Each version's statements. Every table is keyed by household first;
    /// `tokens` and `invite_codes` are the two lookups without a household
    /// (a request's token, a join code), small reference tables.
    static func migrations(_ layout: Layout) -> [[String]] {
        func table(_ name: String, _ columns: String) -> [String] {
            switch layout {
            case .plain: return ["CREATE TABLE \(name) (\(columns))"]
            case .partitioned:
                return ["CREATE TABLE \(name) (\(columns)) PARTITION BY HASH (household)"]
                    + (0..<8).map { "CREATE TABLE \(name)_p\($0) PARTITION OF \(name) FOR VALUES WITH (MODULUS 8, REMAINDER \($0))" }
            }
        }
        return [
            table("households", """
                household uuid NOT NULL, created_ms bigint NOT NULL, head_seq bigint NOT NULL DEFAULT 0,
                head_hash text NOT NULL, last_at_ms bigint, PRIMARY KEY (household)
                """)
            + table("lines", "household uuid NOT NULL, seq bigint NOT NULL, line bytea NOT NULL, hash text NOT NULL, PRIMARY KEY (household, seq)")
            + table("commands", "household uuid NOT NULL, command uuid NOT NULL, first_seq bigint NOT NULL, count integer NOT NULL, PRIMARY KEY (household, command)")
            + table("devices", """
                household uuid NOT NULL, token_hash text NOT NULL, name text NOT NULL, actor text NOT NULL,
                created_ms bigint NOT NULL, last_seen_ms bigint, revoked_ms bigint, invite text, PRIMARY KEY (household, token_hash)
                """)
            + ["CREATE UNIQUE INDEX devices_live_name ON devices (household, name) WHERE revoked_ms IS NULL"]
            + table("invites", """
                household uuid NOT NULL, code_hash text NOT NULL, actor text NOT NULL, expires_ms bigint NOT NULL,
                by_device text NOT NULL, used_ms bigint, PRIMARY KEY (household, code_hash)
                """)
            + [
                "CREATE TABLE tokens (token_hash text PRIMARY KEY, household uuid NOT NULL)",
                "CREATE TABLE invite_codes (code_hash text PRIMARY KEY, household uuid NOT NULL)",
                "CREATE TABLE household_creations (address_hash text NOT NULL, created_ms bigint NOT NULL, household uuid NOT NULL)",
                "CREATE INDEX household_creations_by_address ON household_creations (address_hash, created_ms)",
            ],
            // 2: each token's rate, counted by every process (a token bucket a row).
            table("rate_limits", "household uuid NOT NULL, token_hash text NOT NULL, tokens double precision NOT NULL, at_ms bigint NOT NULL, PRIMARY KEY (household, token_hash)"),
            // 3: the hub's secrets (the key of the per-address limits' hashes), a small reference table.
            ["CREATE TABLE shop_hub_secrets (name text PRIMARY KEY, secret text NOT NULL)"],
        ]
    }

    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try await answered { try await self.createHouseholdNow(household, firstDevice: firstDevice, from: address) }
    }

    private func createHouseholdNow(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        let addressHash = if let address { try await keyedAddress(address) } else { nil as TokenHash? }
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(firstDevice.created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                """, logger: logger)
            if let addressHash {
                try await connection.query("""
                    INSERT INTO household_creations (address_hash, created_ms, household)
                    VALUES (\(addressHash.hex), \(firstDevice.created.millisecondsSince1970), \(household.uuid))
                    """, logger: logger)
            }
            try await insertDevice(firstDevice, invite: nil, on: connection)
        }
    }

    public func householdExists(_ household: HouseholdID) async throws -> Bool {
        try await answered { try await self.householdExistsNow(household) }
    }

    private func householdExistsNow(_ household: HouseholdID) async throws -> Bool {
        try await client.query("SELECT 1 FROM households WHERE household = \(household.uuid)", logger: logger).collect().count == 1
    }

    public func households() async throws -> [HouseholdID] {
        try await answered { try await self.householdsNow() }
    }

    private func householdsNow() async throws -> [HouseholdID] {
        var all: [HouseholdID] = []
        for try await (id, _) in try await client.query("SELECT household, created_ms FROM households ORDER BY created_ms, household", logger: logger)
            .decode((UUID, Int64).self) { all.append(HouseholdID(id)) }
        return all
    }

    public func householdsCreated(from address: String, since: Timestamp) async throws -> Int {
        try await answered { try await self.householdsCreatedNow(from: address, since: since) }
    }

    private func householdsCreatedNow(from address: String, since: Timestamp) async throws -> Int {
        let hash = try await keyedAddress(address)
        let rows = try await client.query("""
            SELECT count(*) FROM household_creations WHERE address_hash = \(hash.hex) AND created_ms >= \(since.millisecondsSince1970)
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    // MARK: The journal

    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse {
        try await sync(household, request, as: actor, token: nil as String?)
    }

    /// Each request's one statement also asks whether the token is live, so that a device this
    /// process authenticated from memory is refused once its token is revoked anywhere.
    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: TokenHash) async throws -> SyncResponse {
        try await sync(household, request, as: actor, token: token.hex)
    }

    /// A hello and a pull are watched by ``answered(_:)``. A push is answered by its batch, which the
    /// push queue gives up on after the same ``deadline`` (``PushQueue/timeout``): it goes straight
    /// there, without a task of its own to watch it (two switches of thread a push).
    private func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String, token: String?) async throws -> SyncResponse {
        switch request {
        case let .hello(version, _, _):
            guard version == SyncWire.protocolVersion else {
                return .error(SyncFailure(code: "unsupported_protocol", message: "this hub speaks protocol \(SyncWire.protocolVersion), the device \(version): update the older one"))
            }
            let head = try await answered { try await self.head(of: household, token: token) }
            return .hello(protocol: SyncWire.protocolVersion, household: head.seq > 0 ? household : nil, head: head)
        case let .pull(after, hash):
            return try await answered { try await self.pull(household, after: after, hash: hash, token: token) }
        case let .push(commands):
            return try await push(household, commands, as: actor, token: token)
        }
    }

    /// `unauthorized`, for a token found revoked (or gone) by the statement that was to answer it.
    private func revoked(_ token: String) -> HubError {
        forget([token])
        return HubError.unknownToken
    }

    /// Drops revoked tokens' devices from this process's memory.
    private func forget(_ tokens: some Sequence<String>) {
        devicesByToken.withLock { cache in for token in tokens { cache[token] = nil } }
    }

    private func head(of household: HouseholdID, token: String?) async throws -> JournalHead {
        for try await (seq, hash, live) in try await client.query("""
            SELECT head_seq, head_hash, \(token)::text IS NULL OR EXISTS (
                SELECT 1 FROM devices d WHERE d.household = \(household.uuid) AND d.token_hash = \(token) AND d.revoked_ms IS NULL)
            FROM households WHERE household = \(household.uuid)
            """, logger: logger).decode((Int, String, Bool).self) {
            if let token, !live { throw revoked(token) }
            return JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero)
        }
        throw HubError.unknownHousehold(household.description)
    }

    /// At most this many lines in one pull's answer (a command is never split).
    static let linesPerPull = 10_000

    private func pull(_ household: HouseholdID, after: Int, hash: SHA256Digest, token: String?) async throws -> SyncResponse {
        func diverged(_ why: String) -> SyncResponse {
            .error(SyncFailure(code: "diverged", message: "the device's history is not a prefix of the hub's: \(why)"))
        }
        if after == 0, hash != .zero { return diverged("before seq 1 the hash is all zeros") }
        // One query: whether the token is live (a row of seq -1), the hash of line `after` (the
        // device's last), then the lines after it.
        var lines: [[UInt8]] = []
        var found: String?
        var live = false
        let rows = try await client.query("""
            SELECT -1::bigint AS seq, NULL::bytea AS line, NULL::text AS hash WHERE \(token)::text IS NULL OR EXISTS (
                SELECT 1 FROM devices d WHERE d.household = \(household.uuid) AND d.token_hash = \(token) AND d.revoked_ms IS NULL)
            UNION ALL
            (SELECT seq, CASE WHEN seq = \(after) THEN NULL ELSE line END, hash FROM lines
             WHERE household = \(household.uuid) AND seq >= \(after) ORDER BY seq LIMIT \(Self.linesPerPull + 2))
            """, logger: logger)
        for try await (seq, line, lineHash) in rows.decode((Int, ByteBuffer?, String?).self) {
            if seq == -1 { live = true; continue }
            if seq == after { found = lineHash; continue }
            guard var line else { continue }
            lines.append(line.readBytes(length: line.readableBytes) ?? [])
        }
        if let token, !live { throw revoked(token) }
        if after > 0 {
            guard let found else { return diverged("the hub has fewer than \(after) lines") }
            guard found == hash.hex else { return diverged("line \(after) has another hash on the hub") }
        }
        let more = lines.count > Self.linesPerPull
        if more { lines = Self.wholeCommands(Array(lines.prefix(Self.linesPerPull))) }
        return .lines(lines, more: more)
    }

    /// The longest prefix of `lines` that ends with a command's last line.
    static func wholeCommands(_ lines: [[UInt8]]) -> [[UInt8]] {
        var whole = 0, left = 0
        for (index, line) in lines.enumerated() {
            left = left > 0 ? left - 1 : EventLineCodec.commandLines(beginningWith: line) - 1
            if left == 0 { whole = index + 1 }
        }
        return Array(lines.prefix(whole))
    }

    /// A push: it goes to the database with the other pushes waiting in this process, whatever their
    /// households (group commit: see ``PushQueue``), and is answered only after their commit.
    private func push(_ household: HouseholdID, _ commands: [CommandEnvelope], as actor: String, token: String?) async throws -> SyncResponse {
        for (index, command) in commands.enumerated() where command.id == nil {
            throw HubError.badRequest("command \(index + 1) of the push has no \"id\"")
        }
        return try await queue.push(PushQueue.Push(household: household, commands: commands, actor: actor, token: token)) { batch in
            await self.write(batch)
        }
    }

    /// A household's part of a batch while it is open: its state, the commands found recorded, how
    /// often another process moved its head under it.
    private struct OpenHousehold {
        var folded: Folded
        var known: [UUID: CommandRecord] = [:]
        var conflicts = 0
    }

    /// A command the household holds: its first seq, how many events it wrote, and its type (that of
    /// its last event), which tells a retry (the same type: answered with the first seqs) from an id
    /// reused for another command (`id_reused`).
    struct CommandRecord {
        var first: Int
        var count: Int
        var type: CommandType
    }

    /// A batch of pushes, of any households, in one statement, so one transaction and one round trip:
    /// each household's pushes decided in order against the state at the head this process knows;
    /// then, under the households' row locks, a household's lines are written only if that is still
    /// its head and none of its commands is recorded already. A household for which either failed
    /// writes nothing; its pushes are decided again on what the table holds, in the next statement.
    /// Each push's answer, in order.
    private func write(_ batch: [PushQueue.Push]) async -> [Result<SyncResponse, any Error>] {
        let now = clock.now()
        var answers = [Result<SyncResponse, any Error>?](repeating: nil, count: batch.count)
        var order: [HouseholdID] = [], places: [HouseholdID: [Int]] = [:]
        for (index, push) in batch.enumerated() {
            if places[push.household] == nil { order.append(push.household) }
            places[push.household, default: []].append(index)
        }
        func fail(_ household: HouseholdID, _ error: any Error) { for index in places[household] ?? [] { answers[index] = .failure(error) } }
        // Each household's state, out of the cache while the batch is decided: only this task uses it
        // (one batch runs at a time), and a value held once is changed in place, not copied. A household
        // another process pushed to lately is decided on a copy, kept to catch up from if its head moved again.
        var open: [HouseholdID: OpenHousehold] = [:]
        for household in order {
            if let cached = heads.withLock({ $0.removeValue(forKey: household) }) {
                open[household] = OpenHousehold(folded: cached)
            } else {
                do { open[household] = OpenHousehold(folded: try await caughtUp(household, from: nil)) } catch { fail(household, error) }
            }
        }
        while !open.isEmpty {
            // A household another process won against is decided again under its row lock: it cannot
            // lose again, however busy the other processes are with it.
            for household in order {
                guard let state = open[household], state.conflicts > 0 else { continue }
                open[household] = nil
                let indices = places[household, default: []]
                do {
                    let (decided, refused) = try await writeUnderLock(household, indices.map { batch[$0] }, state, at: now)
                    var after = decided.folded
                    after.contended = true
                    remember(household, after)
                    let written = indices.enumerated().filter { !refused.contains($0.offset) }.map(\.element)
                    for (index, results) in zip(written, decided.results) { answers[index] = .success(.results(results)) }
                    for position in refused { answers[indices[position]] = .failure(HubError.unknownToken) }
                } catch {
                    fail(household, error)
                }
            }
            var round: [HouseholdPush] = []
            for household in order {
                guard var state = open.removeValue(forKey: household) else { continue }
                var folded = Folded()
                swap(&folded, &state.folded)
                let before: Folded? = folded.contended ? folded : nil
                let head = folded.head
                let decided = decide(places[household, default: []].map { batch[$0] }, on: consume folded, known: state.known, in: household, at: now)
                round.append(HouseholdPush(household: household, expected: head, before: before, known: state.known, conflicts: state.conflicts,
                                           ids: places[household, default: []].flatMap { batch[$0].commands.compactMap { $0.id?.uuid } },
                                           tokens: Array(Set(places[household, default: []].compactMap { batch[$0].token })), decided: decided))
            }
            let outcomes: [HouseholdID: WriteOutcome]
            do { outcomes = try await write(round) } catch {
                for part in round { fail(part.household, error) }
                break
            }
            for part in round {
                let household = part.household
                do {
                    switch outcomes[household] ?? .unknown {
                    case .written:
                        var after = part.decided.folded
                        after.contended = part.conflicts > 0
                        remember(household, after)
                        for (index, results) in zip(places[household, default: []], part.decided.results) { answers[index] = .success(.results(results)) }
                    case let .headMoved(moved):
                        // Another process pushed (or the table was restored to an earlier history: folded anew).
                        let restored = part.before == nil || moved.seq <= part.expected.seq   // equal seqs and another head: another history
                        var folded = try await caughtUp(household, from: restored ? nil : part.before)
                        folded.contended = true
                        open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
                    case .recorded:
                        // The decided state holds the batch's events: caught up anew (or from the copy). The
                        // commands found recorded are read again, with their types, under the row lock.
                        let folded = try await caughtUp(household, from: part.before)
                        open[household] = OpenHousehold(folded: folded, known: part.known, conflicts: part.conflicts + 1)
                    case let .revoked(tokens):
                        // Those pushes are refused; the others of the household are decided again without them.
                        let refused = places[household, default: []].filter { batch[$0].token.map(tokens.contains) ?? false }
                        for index in refused { answers[index] = .failure(HubError.unknownToken) }
                        places[household]?.removeAll(where: refused.contains)
                        forget(tokens)
                        if !(places[household] ?? []).isEmpty {
                            open[household] = OpenHousehold(folded: try await caughtUp(household, from: part.before), known: part.known, conflicts: part.conflicts)
                        }
                    case .unknown:
                        fail(household, HubError.unknownHousehold(household.description))
                    }
                } catch {
                    fail(household, error)
                }
            }
        }
        return answers.map { $0 ?? .failure(HubError.unavailable("the push was not answered")) }
    }

    /// One household's pushes in a transaction of their own that takes the household's row lock
    /// first, then reads what the table holds after `state` (lines, and the pushes' commands found
    /// recorded, each with its type from its last line), decides, and writes: no other process can
    /// move the head meanwhile. The slow path, for a household whose head another process moved under
    /// an optimistic batch, and for a push with a command id the household holds already.
    /// Returns the pushes decided, and the places in `pushes` of those refused for a revoked token.
    private func writeUnderLock(_ household: HouseholdID, _ pushes: [PushQueue.Push], _ state: OpenHousehold,
                                at now: Timestamp) async throws -> (DecidedPush, refused: Set<Int>) {
        let uuid = household.uuid
        return try await transaction { connection in
            var found = false
            for try await _ in try await connection.query("SELECT 1 FROM households WHERE household = \(uuid) FOR UPDATE", logger: self.logger) {
                found = true
            }
            guard found else { throw HubError.unknownHousehold(household.description) }
            let tokens = Array(Set(pushes.compactMap(\.token)))
            var live: Set<String> = []
            if !tokens.isEmpty {
                for try await token in try await connection.query("""
                    SELECT token_hash FROM devices WHERE household = \(uuid) AND token_hash = ANY(\(tokens)) AND revoked_ms IS NULL
                    """, logger: self.logger).decode(String.self) {
                    live.insert(token)
                }
            }
            let refused = Set(pushes.indices.filter { pushes[$0].token.map { !live.contains($0) } ?? false })
            let pushes = pushes.indices.filter { !refused.contains($0) }.map { pushes[$0] }
            let ids = pushes.flatMap { $0.commands.compactMap { $0.id?.uuid } }
            // Each command found recorded, with its last line: its event gives the command's type.
            var known = state.known
            for try await (command, first, count, line) in try await connection.query("""
                SELECT c.command, c.first_seq, c.count, l.line FROM commands c
                JOIN lines l ON l.household = c.household AND l.seq = c.first_seq + c.count - 1
                WHERE c.household = \(uuid) AND c.command = ANY(\(ids))
                """, logger: self.logger
            ).decode((UUID, Int, Int, ByteBuffer).self) {
                var line = line
                guard case let .event(last) = try EventLineCodec.decodeLine(line.readBytes(length: line.readableBytes) ?? []) else {
                    throw HubError.unavailable("household \(household): line \(first + count - 1) is one this hub cannot fold (newer); update shop-hub")
                }
                known[command] = CommandRecord(first: first, count: count, type: CommandType(endingWith: last.event.kind))
            }
            let start = try await self.caughtUp(household, from: state.folded, on: connection)
            let head = start.head
            let decided = self.decide(pushes, on: start, known: known, in: household, at: now)
            // The commands found recorded were read under the lock and are answered from their records
            // (their first seqs): the statement checks only the others, which no process can record meanwhile.
            let part = HouseholdPush(household: household, expected: head, before: nil, known: known, conflicts: state.conflicts,
                                     ids: ids.filter { known[$0] == nil }, tokens: [], decided: decided)
            guard case .written = try await self.write([part], on: connection)[household] ?? .unknown else {
                throw HubError.unavailable("household \(household): its head and lines in the table disagree; try again")
            }
            Counter(label: "shop_hub_pushes_locked_total").increment()
            return (decided, refused)
        }
    }

    /// One household's pushes of a batch, decided: what the statement writes for it and checks.
    private struct HouseholdPush {
        var household: HouseholdID
        /// The head they were decided on.
        var expected: JournalHead
        /// The state they were decided on, kept when the household is contended.
        var before: Folded?
        var known: [UUID: CommandRecord]
        var conflicts: Int
        /// Every command id of the household's pushes.
        var ids: [UUID]
        /// The tokens its pushes came with, checked live where the lines are written.
        var tokens: [String]
        var decided: DecidedPush
    }

    /// A batch of pushes decided against `folded`, in order: each push's results, the lines and
    /// command records to insert, and the state after them.
    struct DecidedPush {
        var results: [[PushResult]] = []
        var lines: [(seq: Int, line: [UInt8], hash: SHA256Digest)] = []
        var commands: [(UUID, Int, Int)] = []
        var folded: Folded
    }

    private func decide(_ batch: [PushQueue.Push], on start: consuming Folded, known: [UUID: CommandRecord], in household: HouseholdID,
                        at now: Timestamp) -> DecidedPush {
        var push = DecidedPush(folded: start)
        var known = known
        for queued in batch {
            var results: [PushResult] = []
            let actor = queued.actor
            for command in queued.commands {
                guard let id = command.id else { continue }   // refused before
                if let named = command.actor, named != actor {
                    results.append(PushResult(command: id, seqs: [], error: SyncFailure(
                        code: RuleViolation.Reason.forbidden.rawValue, message: "this connection is \(actor)'s; a command by \(named) is not taken from it")))
                    continue
                }
                if let record = known[id.uuid] {
                    do {
                        try ShopDecider.requireRetry(command.command.kind, id: id, first: record.type)
                        results.append(PushResult(command: id, seqs: Array(record.first..<(record.first + record.count)), error: nil))
                    } catch {
                        results.append(PushResult(command: id, seqs: [], error: SyncFailure(code: error.code, message: error.message)))
                    }
                    continue
                }
                if push.folded.head.seq == 0, (push.results.joined() + results).allSatisfy({ !$0.ok }),
                   let refusal = FirstPush.refusal(of: command, in: household) {
                    results.append(PushResult(command: id, seqs: [], error: refusal))
                    continue
                }
                var request = command
                request.actor = actor
                do {
                    let decided = try ShopDecider.decide(request, push.folded.state, after: JournalEnd(seq: push.folded.head.seq, lastAt: push.folded.lastAt),
                                                         now: now, defaultActor: actor)
                    let first = push.folded.head.seq + 1
                    for (position, event) in decided.events.enumerated() {
                        let recorded = RecordedEvent(seq: push.folded.head.seq + 1, id: ids.make(), at: decided.at, actor: decided.actor,
                                                     device: request.device, command: id,
                                                     commandEvents: position == 0 && decided.events.count > 1 ? decided.events.count : nil,
                                                     correlation: request.correlation, event: event, prev: push.folded.head.hash)
                        let line = EventLineCodec.encode(recorded)
                        let lineHash = SHA256.hash(line)
                        push.lines.append((recorded.seq, line, lineHash))
                        push.folded.state.apply(recorded)
                        push.folded.head = JournalHead(seq: recorded.seq, hash: lineHash)
                        push.folded.lastAt = recorded.at
                    }
                    if !decided.events.isEmpty {
                        push.commands.append((id.uuid, first, decided.events.count))
                        known[id.uuid] = CommandRecord(first: first, count: decided.events.count, type: request.command.kind)
                    }
                    results.append(PushResult(command: id, seqs: Array(first..<(first + decided.events.count)), error: nil))
                } catch {
                    results.append(PushResult(command: id, seqs: [], error: SyncFailure(code: error.code, message: error.message)))
                }
            }
            push.results.append(results)
        }
        return push
    }

    enum WriteOutcome {
        /// Committed (or, with nothing to write, the head was still the one decided on).
        case written
        /// Another process moved the head: nothing was written.
        case headMoved(JournalHead)
        /// Commands of the push the household holds already: nothing was written. (They are read
        /// again, with their types, under the household's row lock.)
        case recorded
        /// A push's token was revoked (these, by hash): nothing was written.
        case revoked(Set<String>)
        /// No such household.
        case unknown
    }

    /// The batch's one statement: the households' row locks (`FOR UPDATE`, in household order, so two
    /// processes never wait for each other in a circle), and for each household the check that its
    /// head is the one decided on and that none of its commands is recorded, and — for those that
    /// pass — the lines, the command records, the head moved and the `NOTIFY`, all committed together.
    private func write(_ round: [HouseholdPush], on connection: PostgresConnection? = nil) async throws -> [HouseholdID: WriteOutcome] {
        var statement = PushStatement(channel: Self.channel)
        for part in round {
            let uuid = part.household.uuid
            statement.households.append(uuid)
            statement.expectedSeqs.append(Int64(part.expected.seq))
            statement.expectedHashes.append(part.expected.hash.hex)
            statement.writes.append(!part.decided.lines.isEmpty)
            statement.headSeqs.append(Int64(part.decided.folded.head.seq))
            statement.headHashes.append(part.decided.folded.head.hash.hex)
            statement.lastAts.append(part.decided.folded.lastAt?.millisecondsSince1970 ?? 0)
            for id in part.ids { statement.checkHouseholds.append(uuid); statement.checkCommands.append(id) }
            for token in part.tokens { statement.tokenHouseholds.append(uuid); statement.tokens.append(token) }
            for line in part.decided.lines {
                statement.lineHouseholds.append(uuid)
                statement.seqs.append(Int64(line.seq))
                statement.lines.append(ByteBuffer(bytes: line.line))
                statement.hashes.append(line.hash.hex)
            }
            for (command, first, count) in part.decided.commands {
                statement.commandHouseholds.append(uuid)
                statement.commands.append(command)
                statement.firsts.append(Int64(first))
                statement.counts.append(Int64(count))
            }
        }
        var heads: [UUID: JournalHead] = [:]
        var recorded: Set<UUID> = []
        var revoked: [UUID: Set<String>] = [:]
        let rows = if let connection { try await connection.execute(statement, logger: logger) } else { try await client.execute(statement, logger: logger) }
        for try await (household, seq, hash, command, _, _, token) in rows {
            if let seq, let hash { heads[household] = JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero) }
            if command != nil { recorded.insert(household) }
            if let token { revoked[household, default: []].insert(token) }
        }
        var outcomes: [HouseholdID: WriteOutcome] = [:]
        for part in round {
            let uuid = part.household.uuid
            if let tokens = revoked[uuid] {
                outcomes[part.household] = .revoked(tokens)
            } else if recorded.contains(uuid) {
                outcomes[part.household] = .recorded
            } else if let head = heads[uuid] {
                outcomes[part.household] = head == part.expected ? .written : .headMoved(head)
            } else {
                outcomes[part.household] = .unknown
            }
        }
        return outcomes
    }

    /// The household's state at its head in the table: `known` (this process's copy, if any)
    /// caught up from the lines after it.
    private func caughtUp(_ household: HouseholdID, from known: Folded?, on connection: PostgresConnection? = nil) async throws -> Folded {
        var folded = known ?? Folded()
        let query: PostgresQuery = "SELECT seq, line, hash FROM lines WHERE household = \(household.uuid) AND seq > \(folded.head.seq) ORDER BY seq"
        let rows = if let connection { try await connection.query(query, logger: logger) } else { try await client.query(query, logger: logger) }
        for try await (seq, buffer, hash) in rows.decode((Int, ByteBuffer, String).self) {
            var buffer = buffer
            let line = buffer.readBytes(length: buffer.readableBytes) ?? []
            guard seq == folded.head.seq + 1, case let .event(recorded) = try EventLineCodec.decodeLine(line) else {
                throw HubError.unavailable("household \(household): line \(seq) is one this hub cannot fold (newer, or out of order); update shop-hub")
            }
            folded.state.apply(recorded)
            folded.head = JournalHead(seq: recorded.seq, hash: SHA256Digest(hex: hash) ?? SHA256.hash(line))
            folded.lastAt = recorded.at
        }
        return folded
    }

    /// Keeps `folded` as this process's copy of the household, unless it holds a later head already.
    private func remember(_ household: HouseholdID, _ folded: Folded) {
        heads.withLock { heads in
            if (heads[household]?.head.seq ?? -1) < folded.head.seq { heads[household] = folded }
        }
    }

    public func journal(_ household: HouseholdID) async throws -> [UInt8] {
        try await answered { try await self.journalNow(household) }
    }

    private func journalNow(_ household: HouseholdID) async throws -> [UInt8] {
        var out: [UInt8] = []
        for try await buffer in try await client.query("SELECT line FROM lines WHERE household = \(household.uuid) ORDER BY seq", logger: logger)
            .decode(ByteBuffer.self) {
            var buffer = buffer
            out += buffer.readBytes(length: buffer.readableBytes) ?? []
            out.append(0x0A)
        }
        return out
    }

    /// Moves a household's journal in (`shop-hub household import`): every line's chain and rules checked,
    /// the household made if it is not there, refused if it has lines already.
    public func importJournal(_ household: HouseholdID, lines: [[UInt8]], created: Timestamp) async throws {
        var folded = Folded()
        var rows: [(Int64, ByteBuffer, String)] = []
        var commands: [UUID: (first: Int, count: Int)] = [:]
        for (index, line) in lines.enumerated() {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else {
                throw HubError.badRequest("line \(index + 1) is not an event this hub reads")
            }
            guard recorded.seq == folded.head.seq + 1, recorded.prev == folded.head.hash else {
                throw HubError.badRequest("line \(index + 1): the chain breaks (seq \(recorded.seq), prev \(recorded.prev))")
            }
            if index == 0 {
                guard case let .householdCreated(id, _, _, _) = recorded.event, id == household else {
                    throw HubError.badRequest("the journal's first line does not create household \(household)")
                }
            }
            do { try ShopDecider.check(recorded.event, folded.state, actor: recorded.actor) } catch {
                throw HubError.badRequest("line \(index + 1): \(recorded.event.typeName) is not legal here (\(error.code): \(error.message))")
            }
            folded.state.apply(recorded)
            let hash = SHA256.hash(line)
            folded.head = JournalHead(seq: recorded.seq, hash: hash)
            folded.lastAt = recorded.at
            rows.append((Int64(recorded.seq), ByteBuffer(bytes: line), hash.hex))
            if let existing = commands[recorded.command.uuid] { commands[recorded.command.uuid] = (existing.first, existing.count + 1) } else {
                commands[recorded.command.uuid] = (recorded.seq, 1)
            }
        }
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                ON CONFLICT (household) DO NOTHING
                """, logger: logger)
            var existing = 0
            for try await seq in try await connection.query("SELECT head_seq FROM households WHERE household = \(household.uuid) FOR UPDATE", logger: logger)
                .decode(Int.self) { existing = seq }
            guard existing == 0 else { throw HubError.conflict("household_exists", "household \(household) has \(existing) events here already") }
            for chunk in stride(from: 0, to: rows.count, by: 5_000) {
                let part = rows[chunk..<min(rows.count, chunk + 5_000)]
                try await connection.query("""
                    INSERT INTO lines (household, seq, line, hash)
                    SELECT \(household.uuid), s, l, h FROM unnest(\(part.map(\.0))::bigint[], \(part.map(\.1))::bytea[], \(part.map(\.2))::text[]) AS t(s, l, h)
                    """, logger: logger)
            }
            let ids = Array(commands.keys)
            try await connection.query("""
                INSERT INTO commands (household, command, first_seq, count)
                SELECT \(household.uuid), c, f, n FROM unnest(\(ids)::uuid[], \(ids.map { Int64(commands[$0]!.first) })::bigint[],
                                                             \(ids.map { Int64(commands[$0]!.count) })::bigint[]) AS t(c, f, n)
                """, logger: logger)
            try await connection.query("""
                UPDATE households SET head_seq = \(folded.head.seq), head_hash = \(folded.head.hash.hex), last_at_ms = \(folded.lastAt?.millisecondsSince1970)
                WHERE household = \(household.uuid)
                """, logger: logger)
        }
        remember(household, folded)
    }

    // MARK: Devices and invites

    private func insertDevice(_ device: DeviceRecord, invite: TokenHash?, on connection: PostgresConnection) async throws {
        do {
            try await connection.query("""
                INSERT INTO devices (household, token_hash, name, actor, created_ms, invite)
                VALUES (\(device.household.uuid), \(device.tokenHash.hex), \(device.name), \(device.actor), \(device.created.millisecondsSince1970), \(invite?.hex))
                """, logger: logger)
        } catch let error as PSQLError where error.serverInfo?[.sqlState] == "23505" {
            throw HubError.conflict("device_exists", "the household has a device named \(device.name) already: choose another name, or revoke that one")
        }
        try await connection.query("INSERT INTO tokens (token_hash, household) VALUES (\(device.tokenHash.hex), \(device.household.uuid))", logger: logger)
    }

    private static func device(_ row: (UUID, String, String, String, Int64, Int64?, Int64?)) -> DeviceRecord? {
        guard let hash = TokenHash(hex: row.1) else { return nil }
        return DeviceRecord(household: HouseholdID(row.0), name: row.2, actor: row.3, tokenHash: hash,
                            created: Timestamp(millisecondsSince1970: row.4),
                            lastSeen: row.5.map { Timestamp(millisecondsSince1970: $0) }, revoked: row.6.map { Timestamp(millisecondsSince1970: $0) })
    }

    public func device(tokenHash: TokenHash) async throws -> DeviceRecord? {
        try await answered { try await self.deviceNow(tokenHash: tokenHash) }
    }

    private func deviceNow(tokenHash: TokenHash) async throws -> DeviceRecord? {
        let rows = try await client.query("""
            SELECT d.household, d.token_hash, d.name, d.actor, d.created_ms, d.last_seen_ms, d.revoked_ms
            FROM tokens t JOIN devices d ON d.household = t.household AND d.token_hash = t.token_hash
            WHERE t.token_hash = \(tokenHash.hex)
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String, String, Int64, Int64?, Int64?).self) { return Self.device(row) }
        return nil
    }

    public func devices(of household: HouseholdID) async throws -> [DeviceRecord] {
        try await answered { try await self.devicesNow(of: household) }
    }

    private func devicesNow(of household: HouseholdID) async throws -> [DeviceRecord] {
        var all: [DeviceRecord] = []
        let rows = try await client.query("""
            SELECT household, token_hash, name, actor, created_ms, last_seen_ms, revoked_ms FROM devices
            WHERE household = \(household.uuid) AND revoked_ms IS NULL ORDER BY created_ms, name
            """, logger: logger)
        for try await row in rows.decode((UUID, String, String, String, Int64, Int64?, Int64?).self) {
            if let device = Self.device(row) { all.append(device) }
        }
        return all
    }

    public func addDevice(_ device: DeviceRecord) async throws {
        try await answered { try await self.addDeviceNow(device) }
    }

    private func addDeviceNow(_ device: DeviceRecord) async throws {
        try await transaction { connection in try await insertDevice(device, invite: nil, on: connection) }
    }

    public func revokeDevice(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        try await answered { try await self.revokeDeviceNow(name, of: household, at: at) }
    }

    private func revokeDeviceNow(_ name: String, of household: HouseholdID, at: Timestamp) async throws -> Bool {
        let rows = try await client.query("""
            UPDATE devices SET revoked_ms = \(at.millisecondsSince1970)
            WHERE household = \(household.uuid) AND name = \(name) AND revoked_ms IS NULL RETURNING token_hash
            """, logger: logger)
        var revoked: [String] = []
        for try await token in rows.decode(String.self) { revoked.append(token) }
        forget(revoked)
        return !revoked.isEmpty
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async {
        // At most a write a minute a device: a busy device's every request does not write.
        if let last = device.lastSeen, at.millisecondsSince1970 - last.millisecondsSince1970 < 60_000 { return }
        devicesByToken.withLock { cache in
            if var kept = cache[device.tokenHash.hex] { kept.lastSeen = at; cache[device.tokenHash.hex] = kept }
        }
        _ = try? await bookkeeping.query("""
            UPDATE devices SET last_seen_ms = \(at.millisecondsSince1970) WHERE household = \(device.household.uuid) AND token_hash = \(device.tokenHash.hex)
            """, logger: logger)
    }

    public func addInvite(_ invite: InviteRecord) async throws {
        try await answered { try await self.addInviteNow(invite) }
    }

    private func addInviteNow(_ invite: InviteRecord) async throws {
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO invites (household, code_hash, actor, expires_ms, by_device)
                VALUES (\(invite.household.uuid), \(invite.codeHash.hex), \(invite.actor), \(invite.expires.millisecondsSince1970), \(invite.by))
                """, logger: logger)
            try await connection.query("INSERT INTO invite_codes (code_hash, household) VALUES (\(invite.codeHash.hex), \(invite.household.uuid))", logger: logger)
        }
    }

    public func redeemInvite(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try await answered { try await self.redeemInviteNow(codeHash: codeHash, at: now, enrolling: device) }
    }

    private func redeemInviteNow(codeHash: TokenHash, at now: Timestamp,
                             enrolling device: @escaping @Sendable (InviteRecord) -> DeviceRecord) async throws -> (InviteRecord, DeviceRecord)? {
        try await transaction { connection -> (InviteRecord, DeviceRecord)? in
            var found: InviteRecord?
            let rows = try await connection.query("""
                SELECT i.household, i.actor, i.expires_ms, i.by_device FROM invite_codes c
                JOIN invites i ON i.household = c.household AND i.code_hash = c.code_hash
                WHERE c.code_hash = \(codeHash.hex) AND i.used_ms IS NULL AND i.expires_ms > \(now.millisecondsSince1970)
                FOR UPDATE OF i
                """, logger: logger)
            for try await (household, actor, expires, by) in rows.decode((UUID, String, Int64, String).self) {
                found = InviteRecord(household: HouseholdID(household), codeHash: codeHash, actor: actor,
                                     expires: Timestamp(millisecondsSince1970: expires), by: by)
            }
            guard let invite = found else { return nil }
            try await connection.query("""
                UPDATE invites SET used_ms = \(now.millisecondsSince1970) WHERE household = \(invite.household.uuid) AND code_hash = \(codeHash.hex)
                """, logger: logger)
            let enrolled = device(invite)
            try await insertDevice(enrolled, invite: codeHash, on: connection)
            return (invite, enrolled)
        }
    }

    /// The device and its request counted against the token's bucket in `rate_limits` (refilled by the
    /// time since its last request, less this one), in one statement on the bookkeeping pool: a
    /// crash forgets a few requests' worth of a limit, never an event. The token is looked up in the
    /// table, so a revoked one is found as such by every process at once. The device is kept in
    /// memory for this process's later sync requests, and the bucket's level with it.
    public func authenticate(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        try await answered {
            let now = at.millisecondsSince1970
            let rows = try await self.bookkeeping.execute(AuthenticateStatement(token: tokenHash.hex, burst: burst, rate: rate, at: now),
                                                          logger: self.logger)
            for try await (household, hash, name, actor, created, seen, revoked, left) in rows {
                guard let device = Self.device((household, hash, name, actor, created, seen, revoked)) else { return nil }
                let seen = self.rates.seed(SharedTokenRates.Key(household: household, token: hash), level: left ?? 0, at: now, rate: rate, burst: burst)
                self.devicesByToken.withLock { cache in
                    if cache.count > 100_000 { cache.removeAll() }
                    cache[hash] = device
                }
                return (device, seen >= 0 ? .allowed : .limited(retryAfter: max(1, Int((-seen / max(rate, 0.001)).rounded(.up)))))
            }
            return nil
        }
    }

    /// A sync request's device from memory, its request counted in the token's bucket here, when
    /// this process has authenticated the token before; otherwise as
    /// ``authenticate(tokenHash:rate:burst:at:)``. The statement that answers the request checks
    /// the token is still live (``sync(_:_:as:token:)``): a revocation on any process stops it
    /// as soon as that revocation is committed.
    public func authenticateForSync(tokenHash: TokenHash, rate: Double, burst: Double, at: Timestamp) async throws -> (DeviceRecord, RateDecision)? {
        let hex = tokenHash.hex
        if let device = devicesByToken.withLock({ $0[hex] }),
           let decision = rates.take(SharedTokenRates.Key(household: device.household.uuid, token: hex), at: at.millisecondsSince1970) {
            return (device, decision)
        }
        return try await authenticate(tokenHash: tokenHash, rate: rate, burst: burst, at: at)
    }

    public func checkReady() async throws {
        try await answered { try await self.checkReadyNow() }
    }

    private func checkReadyNow() async throws {
        _ = try await client.query("SELECT 1 FROM shop_hub_schema LIMIT 1", logger: logger).collect()
    }
}


/// A batch's one statement (``PostgresHubStorage``'s `write`), prepared once a connection: the
/// households' row locks; each household's head, command ids and its pushes' tokens checked; then, for
/// the households that pass, their lines, command records, heads moved and `NOTIFY`s. Its rows: each
/// household's head as the lock found it, each command of the batch already recorded, each token
/// found revoked.
struct PushStatement: PostgresPreparedStatement {
    static let sql = """
        WITH e AS (
            SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::bool[], $5::bigint[], $6::text[], $7::bigint[])
                AS e(household, expected_seq, expected_hash, writes, head_seq, head_hash, last_at)
        ), h AS (
            SELECT household, head_seq, head_hash FROM households WHERE household = ANY($1::uuid[]) ORDER BY household FOR UPDATE
        ), k AS (
            SELECT c.household, c.command, c.first_seq, c.count
            FROM unnest($8::uuid[], $9::uuid[]) AS q(household, command)
            CROSS JOIN LATERAL (SELECT * FROM commands c WHERE c.household = q.household AND c.command = q.command LIMIT 1) c
        ), r AS (
            SELECT q.household, q.token FROM unnest($19::uuid[], $20::text[]) AS q(household, token)
            WHERE NOT EXISTS (SELECT 1 FROM devices d WHERE d.household = q.household AND d.token_hash = q.token AND d.revoked_ms IS NULL)
        ), ok AS (
            SELECT e.household, e.head_seq, e.head_hash, e.last_at FROM e JOIN h ON h.household = e.household
            WHERE h.head_seq = e.expected_seq AND h.head_hash = e.expected_hash AND e.writes
              AND NOT EXISTS (SELECT 1 FROM k WHERE k.household = e.household)
              AND NOT EXISTS (SELECT 1 FROM r WHERE r.household = e.household)
        ), l AS (
            INSERT INTO lines (household, seq, line, hash)
            SELECT t.household, t.s, t.b, t.x FROM unnest($10::uuid[], $11::bigint[], $12::bytea[], $13::text[]) AS t(household, s, b, x)
            JOIN ok ON ok.household = t.household
            RETURNING 1
        ), c AS (
            INSERT INTO commands (household, command, first_seq, count)
            SELECT t.household, t.i, t.f, t.n FROM unnest($14::uuid[], $15::uuid[], $16::bigint[], $17::bigint[]) AS t(household, i, f, n)
            JOIN ok ON ok.household = t.household
            RETURNING 1
        ), u AS (
            UPDATE households SET head_seq = ok.head_seq, head_hash = ok.head_hash, last_at_ms = ok.last_at
            FROM ok WHERE households.household = ok.household
            RETURNING households.household
        ), n AS (
            SELECT pg_notify($18, string_agg(household::text, ','))
            FROM (SELECT household, (row_number() OVER () - 1) / 200 AS part FROM u) moved GROUP BY part
        )
        SELECT h.household, h.head_seq, h.head_hash, NULL::uuid, NULL::bigint, NULL::bigint, NULL::text FROM h
            WHERE (SELECT count(*) FROM n) >= 0
        UNION ALL
        SELECT k.household, NULL, NULL, k.command, k.first_seq, k.count, NULL FROM k
        UNION ALL
        SELECT r.household, NULL, NULL, NULL, NULL, NULL, r.token FROM r
        """
    typealias Row = (UUID, Int?, String?, UUID?, Int?, Int?, String?)

    var households: [UUID] = []
    var expectedSeqs: [Int64] = []
    var expectedHashes: [String] = []
    var writes: [Bool] = []
    var headSeqs: [Int64] = []
    var headHashes: [String] = []
    var lastAts: [Int64] = []
    var checkHouseholds: [UUID] = []
    var checkCommands: [UUID] = []
    var lineHouseholds: [UUID] = []
    var seqs: [Int64] = []
    var lines: [ByteBuffer] = []
    var hashes: [String] = []
    var commandHouseholds: [UUID] = []
    var commands: [UUID] = []
    var firsts: [Int64] = []
    var counts: [Int64] = []
    var channel: String
    var tokenHouseholds: [UUID] = []
    var tokens: [String] = []

    init(channel: String) { self.channel = channel }

    static var bindingDataTypes: [PostgresDataType] {
        [.uuidArray, .int8Array, .textArray, .boolArray, .int8Array, .textArray, .int8Array, .uuidArray, .uuidArray,
         .uuidArray, .int8Array, .byteaArray, .textArray, .uuidArray, .uuidArray, .int8Array, .int8Array, .text, .uuidArray, .textArray]
    }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 20)
        bindings.append(households)
        bindings.append(expectedSeqs)
        bindings.append(expectedHashes)
        bindings.append(writes)
        bindings.append(headSeqs)
        bindings.append(headHashes)
        bindings.append(lastAts)
        bindings.append(checkHouseholds)
        bindings.append(checkCommands)
        bindings.append(lineHouseholds)
        bindings.append(seqs)
        bindings.append(lines)
        bindings.append(hashes)
        bindings.append(commandHouseholds)
        bindings.append(commands)
        bindings.append(firsts)
        bindings.append(counts)
        bindings.append(channel)
        bindings.append(tokenHouseholds)
        bindings.append(tokens)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}

/// A request's one look at the database before its work, prepared once a connection: the live
/// device of the token, and the request counted in its bucket (refilled by the time since the last).
struct AuthenticateStatement: PostgresPreparedStatement {
    static let sql = """
        WITH d AS (
            SELECT d.household, d.token_hash, d.name, d.actor, d.created_ms, d.last_seen_ms, d.revoked_ms
            FROM tokens t JOIN devices d ON d.household = t.household AND d.token_hash = t.token_hash
            WHERE t.token_hash = $1 AND d.revoked_ms IS NULL
        ), r AS (
            INSERT INTO rate_limits AS r (household, token_hash, tokens, at_ms)
            SELECT household, token_hash, $2 - 1, $4 FROM d
            ON CONFLICT (household, token_hash) DO UPDATE SET
                tokens = greatest(-1, least($2, r.tokens + greatest(0, excluded.at_ms - r.at_ms) / 1000.0 * $3) - 1),
                at_ms = greatest(r.at_ms, excluded.at_ms)
            RETURNING tokens
        )
        SELECT d.household, d.token_hash, d.name, d.actor, d.created_ms, d.last_seen_ms, d.revoked_ms, (SELECT tokens FROM r) FROM d
        """
    typealias Row = (UUID, String, String, String, Int64, Int64?, Int64?, Double?)

    var token: String
    var burst: Double
    var rate: Double
    var at: Int64

    static var bindingDataTypes: [PostgresDataType] { [.text, .float8, .float8, .int8] }

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(token)
        bindings.append(burst)
        bindings.append(rate)
        bindings.append(at)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
}
