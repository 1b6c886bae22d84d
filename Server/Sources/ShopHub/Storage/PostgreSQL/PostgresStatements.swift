import Foundation
import NIOCore
import PostgresNIO

/// A batch's one statement (``PostgresLineStore``'s `append`), prepared once a connection: the
/// households' row locks; each household's head, command ids and its pushes' tokens checked; then, for
/// the households that pass, their lines, command records, heads moved and `NOTIFY`s. Its rows say
/// only what it did not write: each household whose head is not the one expected (its head as the
/// lock found it; no head for a household that is not there), each command of the batch already
/// recorded, each token found revoked. A batch that went through answers no row: PostgresNIO hands a
/// prepared statement's rows over as a row sequence, whose answer must be small (PostgresRows.swift).
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
        SELECT NULL::uuid, NULL::bigint, NULL::text, NULL::uuid, NULL::bigint, NULL::bigint, NULL::text
            FROM (SELECT count(*) AS sent FROM n) notified WHERE notified.sent < 0
        UNION ALL
        SELECT e.household, h.head_seq, h.head_hash, NULL, NULL, NULL, NULL FROM e LEFT JOIN h ON h.household = e.household
            WHERE h.household IS NULL OR h.head_seq <> e.expected_seq OR h.head_hash <> e.expected_hash
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

/// A request's one look at the database before its work (its text sent each time: PostgresRows.swift): the live
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
