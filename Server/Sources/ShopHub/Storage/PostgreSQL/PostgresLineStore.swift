import Foundation
import Logging
import NIOCore
import PostgresNIO
import ShopEvents

/// ``PostgresHubStorage``'s households as a line store, for ``HubCore``: each read one statement
/// that also asks whether the request's token is live; the append the batch's one statement
/// (``PushStatement``: every household's row lock, check and write, one commit); the lock a
/// transaction that holds the household's row (`SELECT … FOR UPDATE`).
///
/// ```swift
/// func head(of household: HouseholdID, in storage: PostgresHubStorage) async throws -> JournalHead {
///     try await storage.core.store.head(of: household, token: nil)
/// }
/// ```
public struct PostgresLineStore: HubLineStore {
    let client: PostgresClient
    let logger: Logger
    let devices: TokenDevices
    let channel: String

    /// `unauthorized`, for a token found revoked (or gone) by the statement that was to answer it.
    func revoked(_ token: String) -> HubError {
        devices.forget([token])
        return HubError.unknownToken
    }

    public func head(of household: HouseholdID, token: String?) async throws -> JournalHead {
        for row in try await client.rows("""
            SELECT head_seq, head_hash, \(token)::text IS NULL OR EXISTS (
                SELECT 1 FROM devices d WHERE d.household = \(household.uuid) AND d.token_hash = \(token) AND d.revoked_ms IS NULL)
            FROM households WHERE household = \(household.uuid)
            """, logger: logger) {
            let (seq, hash, live) = try row.decode((Int, String, Bool).self)
            if let token, !live { throw revoked(token) }
            return JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero)
        }
        throw HubError.unknownHousehold(household.description)
    }

    /// One query: whether the token is live (a row of seq -1), the hash of line `after`, then the lines after it.
    public func lines(of household: HouseholdID, after: Int, limit: Int?, token: String?) async throws -> HubLines {
        try await lines(of: household, after: after, limit: limit, token: token, on: nil)
    }

    func lines(of household: HouseholdID, after: Int, limit: Int?, token: String?, on connection: PostgresConnection?) async throws -> HubLines {
        var found = HubLines(after: .missing, lines: [])
        var live = false
        let query: PostgresQuery = """
            SELECT -1::bigint AS seq, NULL::bytea AS line, NULL::text AS hash WHERE \(token)::text IS NULL OR EXISTS (
                SELECT 1 FROM devices d WHERE d.household = \(household.uuid) AND d.token_hash = \(token) AND d.revoked_ms IS NULL)
            UNION ALL
            (SELECT seq, CASE WHEN seq = \(after) THEN NULL ELSE line END, hash FROM lines
             WHERE household = \(household.uuid) AND seq >= \(after) ORDER BY seq LIMIT \(limit.map { $0 + 1 }))
            """
        let rows = if let connection { try await connection.rows(query, logger: logger) } else { try await client.rows(query, logger: logger) }
        for row in rows {
            let (seq, line, lineHash) = try row.decode((Int, ByteBuffer?, String?).self)
            if seq == -1 { live = true; continue }
            if seq == after { found.after = lineHash.flatMap(SHA256Digest.init(hex:)).map { .hash($0) } ?? .missing; continue }
            guard var line else { continue }
            let bytes = line.readBytes(length: line.readableBytes) ?? []
            found.lines.append(HubLines.Line(seq: seq, bytes: bytes, hash: lineHash.flatMap(SHA256Digest.init(hex:)) ?? SHA256.hash(bytes)))
        }
        if let token, !live { throw revoked(token) }
        return found
    }

    public func records(of household: HouseholdID, commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
        try await records(of: household, commands: commands, on: nil)
    }

    /// Each command found recorded, with its last line: its event gives the command's type.
    func records(of household: HouseholdID, commands: [CommandID], on connection: PostgresConnection?) async throws -> [CommandID: HubRules.CommandRecord] {
        let ids = commands.map(\.uuid)
        let query: PostgresQuery = """
            SELECT c.command, c.first_seq, c.count, l.line FROM commands c
            JOIN lines l ON l.household = c.household AND l.seq = c.first_seq + c.count - 1
            WHERE c.household = \(household.uuid) AND c.command = ANY(\(ids))
            """
        let rows = if let connection { try await connection.rows(query, logger: logger) } else { try await client.rows(query, logger: logger) }
        var known: [CommandID: HubRules.CommandRecord] = [:]
        for row in rows {
            let (command, first, count, bytes) = try row.decode((UUID, Int, Int, ByteBuffer).self)
            var line = bytes
            guard case let .event(last) = try EventLineCodec.decodeLine(line.readBytes(length: line.readableBytes) ?? []) else {
                throw HubError.unavailable("household \(household): line \(first + count - 1) is one this hub cannot fold (newer); update shop-hub")
            }
            known[CommandID(command)] = HubRules.CommandRecord(first: first, count: count, type: CommandType(endingWith: last.event.kind))
        }
        return known
    }

    public func append(_ appends: [HubAppend]) async throws -> [HouseholdID: HubAppend.Outcome] {
        try await append(appends, on: nil)
    }

    /// The batch's one statement: the households' row locks (`FOR UPDATE`, in household order, so two
    /// processes never wait for each other in a circle), and for each household the check that its
    /// head is the one decided on, that none of its checked commands is recorded and its tokens are
    /// live, and — for those that pass — the lines, the command records, the head moved and the
    /// `NOTIFY`, all committed together.
    func append(_ appends: [HubAppend], on connection: PostgresConnection?) async throws -> [HouseholdID: HubAppend.Outcome] {
        var statement = PushStatement(channel: channel)
        for part in appends { statement.add(part) }
        var moved: [UUID: JournalHead] = [:]
        var missing: Set<UUID> = []
        var recorded: Set<UUID> = []
        var revoked: [UUID: Set<String>] = [:]
        let rows = if let connection { try await connection.prepared(statement, logger: logger) } else { try await client.prepared(statement, logger: logger) }
        for (household, seq, hash, command, _, _, token) in rows {
            if let seq, let hash {
                moved[household] = JournalHead(seq: seq, hash: SHA256Digest(hex: hash) ?? .zero)
            } else if command != nil {
                recorded.insert(household)
            } else if let token {
                revoked[household, default: []].insert(token)
            } else {
                missing.insert(household)
            }
        }
        var outcomes: [HouseholdID: HubAppend.Outcome] = [:]
        for part in appends {
            let uuid = part.household.uuid
            if let tokens = revoked[uuid] {
                outcomes[part.household] = .revoked(tokens)
            } else if recorded.contains(uuid) {
                outcomes[part.household] = .recorded
            } else if missing.contains(uuid) {
                outcomes[part.household] = .unknown
            } else if let head = moved[uuid] {
                outcomes[part.household] = .headMoved(head)
            } else {
                outcomes[part.household] = .written
            }
        }
        return outcomes
    }

    /// A transaction that takes the household's row lock first; committed if `body` returns.
    public func withLock<T: Sendable>(_ household: HouseholdID, _ body: @Sendable (any HubLockedHousehold) async throws -> T) async throws -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in
                let found = try await !connection.rows("SELECT 1 FROM households WHERE household = \(household.uuid) FOR UPDATE",
                                                       logger: logger).isEmpty
                guard found else { throw HubError.unknownHousehold(household.description) }
                return try await body(Locked(store: self, household: household, connection: connection))
            }
        } catch let error as PostgresTransactionError {
            // PostgresNIO wraps what the closure throws: a HubError comes out as itself.
            if let hub = error.closureError as? HubError { throw hub }
            throw error
        }
    }

    /// One household in a transaction that holds its row lock.
    struct Locked: HubLockedHousehold {
        let store: PostgresLineStore
        let household: HouseholdID
        let connection: PostgresConnection

        func lines(after: Int) async throws -> HubLines {
            try await store.lines(of: household, after: after, limit: nil, token: nil, on: connection)
        }

        func records(commands: [CommandID]) async throws -> [CommandID: HubRules.CommandRecord] {
            try await store.records(of: household, commands: commands, on: connection)
        }

        func liveTokens(_ tokens: [String]) async throws -> Set<String> {
            try await Set(connection.rows("""
                SELECT token_hash FROM devices WHERE household = \(household.uuid) AND token_hash = ANY(\(tokens)) AND revoked_ms IS NULL
                """, logger: store.logger).map { try $0.decode(String.self) })
        }

        func append(_ append: HubAppend) async throws -> HubAppend.Outcome {
            try await store.append([append], on: connection)[household] ?? .unknown
        }
    }
}

extension PushStatement {
    /// One household's part: its expected and new head, the ids and tokens checked, its lines and records.
    mutating func add(_ part: HubAppend) {
        let uuid = part.household.uuid
        households.append(uuid)
        expectedSeqs.append(Int64(part.expected.seq))
        expectedHashes.append(part.expected.hash.hex)
        writes.append(!part.decided.lines.isEmpty)
        headSeqs.append(Int64(part.decided.fold.head.seq))
        headHashes.append(part.decided.fold.head.hash.hex)
        lastAts.append(part.decided.fold.lastAt?.millisecondsSince1970 ?? 0)
        for id in part.checked { checkHouseholds.append(uuid); checkCommands.append(id.uuid) }
        for token in part.tokens { tokenHouseholds.append(uuid); tokens.append(token) }
        for line in part.decided.lines {
            lineHouseholds.append(uuid)
            seqs.append(Int64(line.event.seq))
            lines.append(ByteBuffer(bytes: line.bytes))
            hashes.append(line.hash.hex)
        }
        for (command, record) in part.decided.records {
            commandHouseholds.append(uuid)
            commands.append(command.uuid)
            firsts.append(Int64(record.first))
            counts.append(Int64(record.count))
        }
    }
}
