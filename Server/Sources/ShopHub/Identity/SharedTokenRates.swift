import Foundation
import PostgresNIO
import ShopEvents
import Synchronization

/// Each token's rate (docs/HUB.md: every token to 20 requests a second) where several hub
/// processes serve one database: the bucket of a token lives in the `rate_limits` table, and each
/// process keeps a copy of it in memory, counts its own requests there and adds them to the table
/// about once a second (``flush(_:)``), taking back the level every process left in it.
///
/// Why not one write a request: that write was half of what the database did for a push. What it
/// costs: between two flushes a process does not see the requests the others counted, so a token
/// spread over N processes may go past its rate by up to N − 1 seconds' worth for a second; one
/// process alone is held exactly. A crash forgets at most a second of counts, never an event.
final class SharedTokenRates: Sendable {
    struct Key: Hashable, Sendable {
        var household: UUID
        var token: String
    }

    private struct Bucket {
        /// The level at `at` (ms), this process's requests since the last flush taken off.
        var tokens: Double
        var at: Int64
        /// This process's requests not yet added to the table.
        var unflushed: Double
        var rate: Double
        var burst: Double
    }

    private let buckets = Mutex<[Key: Bucket]>([:])

    /// Takes one request from `key`'s bucket, if this process holds one: nil when it does not (the
    /// caller asks the table, and ``seed(_:level:at:rate:burst:)`` starts one).
    func take(_ key: Key, at now: Int64) -> RateDecision? {
        buckets.withLock { buckets -> RateDecision? in
            guard var bucket = buckets[key] else { return nil }
            bucket.tokens = min(bucket.burst, bucket.tokens + Double(max(0, now - bucket.at)) / 1000 * bucket.rate)
            bucket.at = max(bucket.at, now)
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / max(bucket.rate, 0.001)).rounded(.up))))
            }
            bucket.tokens -= 1
            bucket.unflushed += 1
            return .allowed
        }
    }

    /// The table's level for `key` after a request it counted itself (the authenticating
    /// statement's): this process's bucket starts or restarts from it, less what it has not flushed.
    /// Returns the level this process sees.
    func seed(_ key: Key, level: Double, at now: Int64, rate: Double, burst: Double) -> Double {
        buckets.withLock { buckets in
            let unflushed = buckets[key]?.unflushed ?? 0
            if buckets.count > 100_000 { buckets = buckets.filter { now - $0.value.at < 60_000 || $0.value.unflushed > 0 } }
            buckets[key] = Bucket(tokens: level - unflushed, at: now, unflushed: unflushed, rate: rate, burst: burst)
            return level - unflushed
        }
    }

    /// Adds every bucket's unflushed requests to the table in one statement and takes back each
    /// level (which holds the other processes' flushed requests too).
    func flush(_ client: PostgresClient, at now: Int64, logger: Logger) async throws {
        var statement = FlushStatement(at: now)
        var sent: [Key: Double] = [:]
        buckets.withLock { buckets in
            for (key, bucket) in buckets where bucket.unflushed > 0 {
                statement.households.append(key.household)
                statement.tokens.append(key.token)
                statement.used.append(bucket.unflushed)
                statement.bursts.append(bucket.burst)
                statement.rates.append(bucket.rate)
                sent[key] = bucket.unflushed
            }
        }
        guard !sent.isEmpty else { return }
        var levels: [Key: (Double, Int64)] = [:]
        for (household, token, level, at) in try await client.rows(statement, logger: logger) {
            levels[Key(household: household, token: token)] = (level, at)
        }
        buckets.withLock { buckets in
            for (key, used) in sent {
                guard var bucket = buckets[key] else { continue }
                bucket.unflushed -= used
                if let (level, at) = levels[key] {
                    bucket.tokens = level - bucket.unflushed
                    bucket.at = at
                }
                buckets[key] = bucket
            }
        }
    }

    /// Every flushed bucket's requests taken off its row (refilled since the row's time, at most its
    /// burst, never below −1), in one statement (its text sent each time: PostgresRows.swift). The row is there: the statement that
    /// authenticated the token's first request in this process wrote it.
    struct FlushStatement: PostgresPreparedStatement {
        static let sql = """
            UPDATE rate_limits AS r SET
                tokens = greatest(-1, least(u.burst, r.tokens + greatest(0, $6 - r.at_ms) / 1000.0 * u.rate) - u.used),
                at_ms = greatest(r.at_ms, $6)
            FROM unnest($1::uuid[], $2::text[], $3::float8[], $4::float8[], $5::float8[]) AS u(household, token_hash, used, burst, rate)
            WHERE r.household = u.household AND r.token_hash = u.token_hash
            RETURNING r.household, r.token_hash, r.tokens, r.at_ms
            """
        typealias Row = (UUID, String, Double, Int64)

        var households: [UUID] = []
        var tokens: [String] = []
        var used: [Double] = []
        var bursts: [Double] = []
        var rates: [Double] = []
        var at: Int64

        init(at: Int64) { self.at = at }

        static var bindingDataTypes: [PostgresDataType] { [.uuidArray, .textArray, .float8Array, .float8Array, .float8Array, .int8] }

        func makeBindings() throws -> PostgresBindings {
            var bindings = PostgresBindings(capacity: 6)
            bindings.append(households)
            bindings.append(tokens)
            bindings.append(used)
            bindings.append(bursts)
            bindings.append(rates)
            bindings.append(at)
            return bindings
        }

        func decodeRow(_ row: PostgresRow) throws -> Row { try row.decode(Row.self) }
    }
}
