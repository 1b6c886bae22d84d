import Foundation
import Logging
import NIOCore
import PostgresNIO
import ShopEvents
import Synchronization

/// The hub's storage in PostgreSQL (SPEC section 9): any number of
/// `shop-hub` processes over one database.
///
/// Every table is keyed by household first. Each household has its own dense
/// `seq` (1…n, no gaps, no sequence shared across households): a push takes
/// the household's row lock (`SELECT … FOR UPDATE`), decides its commands
/// against the state at the head, inserts their lines (byte for byte, each
/// with its hash) and command records, moves the head and commits — and only
/// then is it answered. The state at the head is kept in this process's
/// memory per household and caught up from the lines after the head it
/// knows, so a push costs its own commands, not the household's history.
/// A commit sends `NOTIFY shop_hub_push` with the household's id: every
/// process's long polls wake (the lines are always read from the table).
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
    let logger: Logger
    let layout: Layout
    private let clock: Clock
    /// Each household's state at the head this process last saw.
    private let heads = Mutex<[HouseholdID: Folded]>([:])
    private let notifications = Mutex<[AsyncStream<HouseholdID>.Continuation]>([])
    static let channel = "shop_hub_push"

    struct Folded {
        var state = ShopState.initial
        var head = JournalHead.empty
        var lastAt: Timestamp?
    }

    /// `postgres://USER:PASSWORD@HOST:PORT/DATABASE` (`postgresql://` too; a
    /// host starting with `/` is a Unix socket's folder). No TLS: put the
    /// database on a private network or a socket.
    public init(url: String, layout: Layout = .plain, clock: Clock = .system, logger: Logger) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? "") else {
            throw HubError.unavailable("\(url) is not a postgres:// URL")
        }
        let user = parts.user ?? ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres"
        let password = parts.password ?? ProcessInfo.processInfo.environment["PGPASSWORD"]
        let database = parts.path.isEmpty || parts.path == "/" ? nil : String(parts.path.dropFirst())
        var configuration: PostgresClient.Configuration
        if let host = parts.host, !host.isEmpty {
            configuration = PostgresClient.Configuration(host: host, port: parts.port ?? 5432, username: user, password: password,
                                                         database: database, tls: .disable)
        } else {
            let folder = parts.queryItems?.first(where: { $0.name == "host" })?.value ?? "/var/run/postgresql"
            configuration = PostgresClient.Configuration(unixSocketPath: "\(folder)/.s.PGSQL.\(parts.port ?? 5432)", username: user,
                                                         password: password, database: database)
        }
        configuration.options.maximumConnections = 16
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.logger = logger
        self.layout = layout
        self.clock = clock
    }

    /// Runs the connection pool and the `LISTEN` for pushes; returns when the task is cancelled.
    public func run() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.client.run() }
            group.addTask { await self.listen() }
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
                            guard let household = HouseholdID(notification.payload) else { continue }
                            for continuation in self.notifications.withLock({ $0 }) { continuation.yield(household) }
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

    /// `body`, or `unavailable` once ``deadline`` has passed (`body` is cancelled, and left to end on its own).
    func answered<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once()
        return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let work = Task {
                do {
                    let value = try await body()
                    if once.claim() { continuation.resume(returning: value) }
                } catch {
                    if once.claim() { continuation.resume(throwing: error) }
                }
            }
            Task {
                try? await Task.sleep(for: Self.deadline)
                if once.claim() {
                    work.cancel()
                    continuation.resume(throwing: HubError.unavailable("the database did not answer within \(Self.deadline)"))
                }
            }
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
        }
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
        ]
    }

    // MARK: Households

    public func createHousehold(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try await answered { try await self.createHouseholdNow(household, firstDevice: firstDevice, from: address) }
    }

    private func createHouseholdNow(_ household: HouseholdID, firstDevice: DeviceRecord, from address: String?) async throws {
        try await transaction { connection in
            try await connection.query("""
                INSERT INTO households (household, created_ms, head_hash) VALUES (\(household.uuid), \(firstDevice.created.millisecondsSince1970), \(SHA256Digest.zero.hex))
                """, logger: logger)
            if let address {
                try await connection.query("""
                    INSERT INTO household_creations (address_hash, created_ms, household)
                    VALUES (\(TokenHash(of: address).hex), \(firstDevice.created.millisecondsSince1970), \(household.uuid))
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
        let rows = try await client.query("""
            SELECT count(*) FROM household_creations WHERE address_hash = \(TokenHash(of: address).hex) AND created_ms >= \(since.millisecondsSince1970)
            """, logger: logger)
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    // MARK: The journal

    public func sync(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse {
        try await answered { try await self.syncNow(household, request, as: actor) }
    }

    private func syncNow(_ household: HouseholdID, _ request: SyncRequest, as actor: String) async throws -> SyncResponse {
        switch request {
        case let .hello(version, _, _):
            guard version == SyncWire.protocolVersion else {
                return .error(SyncFailure(code: "unsupported_protocol", message: "this hub speaks protocol \(SyncWire.protocolVersion), the device \(version): update the older one"))
            }
            let head = try await head(of: household)
            return .hello(protocol: SyncWire.protocolVersion, household: head.seq > 0 ? household : nil, head: head)
        case let .pull(after, hash):
            return try await pull(household, after: after, hash: hash)
        case let .push(commands):
            return try await push(household, commands, as: actor)
        }
    }

    private func head(of household: HouseholdID) async throws -> JournalHead {
        for try await (seq, hash) in try await client.query("SELECT head_seq, head_hash FROM households WHERE household = \(household.uuid)", logger: logger)
            .decode((Int, String).self) {
            return JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero)
        }
        throw HubError.unknownHousehold(household.description)
    }

    /// At most this many lines in one pull's answer (a command is never split).
    static let linesPerPull = 10_000

    private func pull(_ household: HouseholdID, after: Int, hash: SHA256Digest) async throws -> SyncResponse {
        func diverged(_ why: String) -> SyncResponse {
            .error(SyncFailure(code: "diverged", message: "the device's history is not a prefix of the hub's: \(why)"))
        }
        if after == 0, hash != .zero { return diverged("before seq 1 the hash is all zeros") }
        if after > 0 {
            var found: String?
            for try await known in try await client.query("SELECT hash FROM lines WHERE household = \(household.uuid) AND seq = \(after)", logger: logger)
                .decode(String.self) { found = known }
            guard let found else { return diverged("the hub has fewer than \(after) lines") }
            guard found == hash.hex else { return diverged("line \(after) has another hash on the hub") }
        }
        var lines: [[UInt8]] = []
        let rows = try await client.query("""
            SELECT line FROM lines WHERE household = \(household.uuid) AND seq > \(after) ORDER BY seq LIMIT \(Self.linesPerPull + 1)
            """, logger: logger)
        for try await var line in rows.decode(ByteBuffer.self) { lines.append(line.readBytes(length: line.readableBytes) ?? []) }
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

    /// One transaction: the row lock, the state at the head, the commands decided in order, the lines
    /// and command records inserted, the head moved, the commit; answered only after it.
    private func push(_ household: HouseholdID, _ commands: [CommandEnvelope], as actor: String) async throws -> SyncResponse {
        let now = clock.now()
        let (results, folded) = try await transaction { connection -> ([PushResult], Folded?) in
            var seq = 0, hash = "", lastAt: Int64?
            for try await row in try await connection.query("""
                SELECT head_seq, head_hash, last_at_ms FROM households WHERE household = \(household.uuid) FOR UPDATE
                """, logger: logger).decode((Int, String, Int64?).self) { (seq, hash, lastAt) = row }
            guard !hash.isEmpty else { throw HubError.unknownHousehold(household.description) }
            var folded = try await caughtUp(household, to: seq, on: connection)
            _ = lastAt
            // Commands the household has already: answered from their record.
            var known: [UUID: (Int, Int)] = [:]
            let ids = commands.compactMap { $0.id?.uuid }
            for try await (command, first, count) in try await connection.query("""
                SELECT command, first_seq, count FROM commands WHERE household = \(household.uuid) AND command = ANY(\(ids))
                """, logger: logger).decode((UUID, Int, Int).self) { known[command] = (first, count) }
            var results: [PushResult] = []
            var newLines: [(seq: Int, line: [UInt8], hash: SHA256Digest)] = []
            var newCommands: [(UUID, Int, Int)] = []
            for (index, command) in commands.enumerated() {
                guard let id = command.id else {
                    throw HubError.badRequest("command \(index + 1) of the push has no \"id\"")
                }
                if let named = command.actor, named != actor {
                    results.append(PushResult(command: id, seqs: [], error: SyncFailure(
                        code: RuleViolation.Reason.forbidden.rawValue, message: "this connection is \(actor)'s; a command by \(named) is not taken from it")))
                    continue
                }
                if let (first, count) = known[id.uuid] {
                    results.append(PushResult(command: id, seqs: Array(first..<(first + count)), error: nil))
                    continue
                }
                if folded.head.seq == 0, results.allSatisfy({ !$0.ok }), let refusal = FirstPush.refusal(of: command, in: household) {
                    results.append(PushResult(command: id, seqs: [], error: refusal))
                    continue
                }
                var request = command
                request.actor = actor
                do {
                    let decided = try ShopDecider.decide(request, folded.state, after: JournalEnd(seq: folded.head.seq, lastAt: folded.lastAt),
                                                         now: now, defaultActor: actor)
                    let first = folded.head.seq + 1
                    for (position, event) in decided.events.enumerated() {
                        let recorded = RecordedEvent(seq: folded.head.seq + 1, id: EventID(), at: decided.at, actor: decided.actor,
                                                     device: request.device, command: id,
                                                     commandEvents: position == 0 && decided.events.count > 1 ? decided.events.count : nil,
                                                     correlation: request.correlation, event: event, prev: folded.head.hash)
                        let line = EventLineCodec.encode(recorded)
                        let lineHash = SHA256.hash(line)
                        newLines.append((recorded.seq, line, lineHash))
                        folded.state.apply(recorded)
                        folded.head = JournalHead(seq: recorded.seq, hash: lineHash)
                        folded.lastAt = recorded.at
                    }
                    if !decided.events.isEmpty {
                        newCommands.append((id.uuid, first, decided.events.count))
                        known[id.uuid] = (first, decided.events.count)
                    }
                    results.append(PushResult(command: id, seqs: Array(first..<(first + decided.events.count)), error: nil))
                } catch let violation as RuleViolation {
                    results.append(PushResult(command: id, seqs: [], error: SyncFailure(code: violation.code, message: violation.message)))
                }
            }
            guard !newLines.isEmpty else { return (results, nil) }
            let seqs = newLines.map { Int64($0.seq) }
            let bytes = newLines.map { ByteBuffer(bytes: $0.line) }
            let hashes = newLines.map { $0.hash.hex }
            try await connection.query("""
                INSERT INTO lines (household, seq, line, hash)
                SELECT \(household.uuid), s, l, h FROM unnest(\(seqs)::bigint[], \(bytes)::bytea[], \(hashes)::text[]) AS t(s, l, h)
                """, logger: logger)
            let commandIDs = newCommands.map(\.0), firsts = newCommands.map { Int64($0.1) }, counts = newCommands.map { Int64($0.2) }
            try await connection.query("""
                INSERT INTO commands (household, command, first_seq, count)
                SELECT \(household.uuid), c, f, n FROM unnest(\(commandIDs)::uuid[], \(firsts)::bigint[], \(counts)::bigint[]) AS t(c, f, n)
                """, logger: logger)
            try await connection.query("""
                UPDATE households SET head_seq = \(folded.head.seq), head_hash = \(folded.head.hash.hex), last_at_ms = \(folded.lastAt?.millisecondsSince1970)
                WHERE household = \(household.uuid)
                """, logger: logger)
            try await connection.query("SELECT pg_notify(\(Self.channel), \(household.description))", logger: logger)
            return (results, folded)
        }
        if let folded { remember(household, folded) }
        return .results(results)
    }

    /// The household's state at `seq`: this process's copy, caught up from the lines after the head it knew.
    private func caughtUp(_ household: HouseholdID, to seq: Int, on connection: PostgresConnection) async throws -> Folded {
        var folded = heads.withLock { $0[household] } ?? Folded()
        if folded.head.seq > seq { folded = Folded() }   // the table was restored to an earlier history: fold it anew
        guard folded.head.seq < seq else { return folded }
        let rows = try await connection.query("""
            SELECT line, hash FROM lines WHERE household = \(household.uuid) AND seq > \(folded.head.seq) AND seq <= \(seq) ORDER BY seq
            """, logger: logger)
        for try await (buffer, hash) in rows.decode((ByteBuffer, String).self) {
            var buffer = buffer
            let line = buffer.readBytes(length: buffer.readableBytes) ?? []
            guard case let .event(recorded) = try EventLineCodec.decodeLine(line) else {
                throw HubError.unavailable("household \(household): a line newer than this hub reads; update shop-hub")
            }
            folded.state.apply(recorded)
            folded.head = JournalHead(seq: recorded.seq, hash: SHA256Digest(hex: hash) ?? SHA256.hash(line))
            folded.lastAt = recorded.at
        }
        return folded
    }

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
        return try await rows.collect().count > 0
    }

    public func seen(_ device: DeviceRecord, at: Timestamp) async {
        // At most a write a minute a device: a busy device's every request does not write.
        if let last = device.lastSeen, at.millisecondsSince1970 - last.millisecondsSince1970 < 60_000 { return }
        _ = try? await client.query("""
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

    /// The token's bucket, in `rate_limits`: refilled by the time since its last request, less this one.
    /// Written without waiting for the disk (`synchronous_commit = off`): a crash forgets a few
    /// requests' worth of a limit, never an event.
    public func takeRequest(token: TokenHash, of household: HouseholdID, rate: Double, burst: Double, at: Timestamp) async throws -> RateDecision {
        try await answered {
            let left: Double = try await self.transaction { connection in
                try await connection.query("SET LOCAL synchronous_commit = off", logger: self.logger)
                let rows = try await connection.query("""
                    INSERT INTO rate_limits AS r (household, token_hash, tokens, at_ms)
                    VALUES (\(household.uuid), \(token.hex), \(burst - 1), \(at.millisecondsSince1970))
                    ON CONFLICT (household, token_hash) DO UPDATE SET
                        tokens = greatest(-1, least(\(burst), r.tokens + greatest(0, excluded.at_ms - r.at_ms) / 1000.0 * \(rate)) - 1),
                        at_ms = greatest(r.at_ms, excluded.at_ms)
                    RETURNING tokens
                    """, logger: self.logger)
                for try await tokens in rows.decode(Double.self) { return tokens }
                return 0
            }
            return left >= 0 ? .allowed : .limited(retryAfter: max(1, Int((-left / max(rate, 0.001)).rounded(.up))))
        }
    }

    public func checkReady() async throws {
        try await answered { try await self.checkReadyNow() }
    }

    private func checkReadyNow() async throws {
        _ = try await client.query("SELECT 1 FROM shop_hub_schema LIMIT 1", logger: logger).collect()
    }
}

/// True for the first caller only.
private final class Once: Sendable {
    private let done = Mutex(false)
    func claim() -> Bool { done.withLock { done in defer { done = true }; return !done } }
}
