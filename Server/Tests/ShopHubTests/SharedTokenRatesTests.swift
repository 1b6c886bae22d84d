import Foundation
import Logging
import PostgresNIO
import ShopEvents
import Testing
@testable import ShopHub

/// A token's rate where several hub processes serve one database (`SharedTokenRates`): two
/// instances stand for two processes; their counts meet in `rate_limits` at each flush. Times are
/// given, so every level is exact.
@Suite struct SharedTokenRatesTests {
    static let logger = Logger(label: "shared-token-rates-test")

    @Test("two processes' requests of one token meet in rate_limits at each flush; between flushes each holds its own bucket, and the row refills with time",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)))
    func twoProcessesShareABucket() async throws {
        let storage = try PostgresHubStorage(url: try Backend.newDatabase(), logger: Self.logger)
        let running = Task { await storage.run() }
        defer { running.cancel() }
        try await storage.migrate()
        let database = storage.bookkeeping
        let key = SharedTokenRates.Key(household: UUID(), token: String(repeating: "ab", count: 32))
        let start: Int64 = 1_700_000_000_000, rate = 20.0, burst = 20.0
        // The row as the authenticating statement leaves it: full, less the request it counted.
        try await database.query("""
            INSERT INTO rate_limits (household, token_hash, tokens, at_ms) VALUES (\(key.household), \(key.token), \(burst - 1), \(start))
            """, logger: Self.logger)
        func row() async throws -> [Double] {
            var levels: [Double] = []
            for try await (tokens, at) in try await database.query("""
                SELECT tokens, at_ms FROM rate_limits WHERE household = \(key.household) AND token_hash = \(key.token)
                """, logger: Self.logger).decode((Double, Int64).self) {
                levels.append(tokens)
                #expect(at >= start)
            }
            return levels
        }
        func take(_ rates: SharedTokenRates, _ count: Int, at time: Int64) -> [RateDecision?] {
            (0..<count).map { _ in rates.take(key, at: time) }
        }
        let allowed = { (count: Int) in [RateDecision?](repeating: .allowed, count: count) }

        let a = SharedTokenRates(), b = SharedTokenRates()
        #expect(a.take(key, at: start) == nil, "a process that has not authenticated the token asks the table")
        #expect(a.seed(key, level: burst - 1, at: start, rate: rate, burst: burst) == burst - 1)
        #expect(b.seed(key, level: burst - 1, at: start, rate: rate, burst: burst) == burst - 1)

        // In the same millisecond each process holds its own bucket: 19 each, no more.
        #expect(take(a, 14, at: start) == allowed(14))
        #expect(take(b, 3, at: start) == allowed(3))
        // A flushes its 14: 19 − 14 = 5. B flushes its 3 and learns A's: 5 − 3 = 2.
        try await a.flush(database, at: start, logger: Self.logger)
        #expect(try await row() == [5])
        try await b.flush(database, at: start, logger: Self.logger)
        #expect(try await row() == [2])
        #expect(take(b, 3, at: start) == allowed(2) + [.limited(retryAfter: 1)])

        // A has not flushed since B's requests: its bucket still says 5 (the overshoot
        // allowed between flushes, at most a second's worth a process). At its flush the row goes
        // negative, floored at −1, and both buckets are empty.
        #expect(take(a, 6, at: start) == allowed(5) + [.limited(retryAfter: 1)])
        try await a.flush(database, at: start, logger: Self.logger)
        try await b.flush(database, at: start, logger: Self.logger)
        #expect(try await row() == [-1])
        #expect(a.take(key, at: start) == .limited(retryAfter: 1))
        #expect(b.take(key, at: start) == .limited(retryAfter: 1))

        // Half a second later: 10 refilled, less the one below zero: 9 in each bucket; the row the same
        // at B's flush of 4 (−1 + 10 − 4 = 5).
        let later = start + 500
        #expect(take(b, 4, at: later) == allowed(4))
        try await b.flush(database, at: later, logger: Self.logger)
        #expect(try await row() == [5])
        #expect(take(b, 6, at: later) == allowed(5) + [.limited(retryAfter: 1)])
        // Nothing to flush writes nothing.
        try await SharedTokenRates().flush(database, at: later + 10_000, logger: Self.logger)
        #expect(try await row() == [5])
    }

    @Test("a bucket refills at its rate up to its burst, and says how long to wait when empty")
    func aBucketRefills() {
        let rates = SharedTokenRates()
        let key = SharedTokenRates.Key(household: UUID(), token: "t")
        #expect(rates.seed(key, level: 0.5, at: 0, rate: 2, burst: 4) == 0.5)
        #expect(rates.take(key, at: 0) == .limited(retryAfter: 1))
        #expect(rates.take(key, at: 250) == .allowed)            // 0.5 + 0.5
        #expect(rates.take(key, at: 250) == .limited(retryAfter: 1))
        #expect(rates.take(key, at: 60_000) == .allowed)         // refilled to the burst, not past it
        #expect((0..<4).map { _ in rates.take(key, at: 60_000) } == [.allowed, .allowed, .allowed, .limited(retryAfter: 1)])
        // A rate below one a second waits whole seconds.
        let slow = SharedTokenRates.Key(household: UUID(), token: "s")
        #expect(rates.seed(slow, level: 0, at: 0, rate: 0.25, burst: 1) == 0)
        #expect(rates.take(slow, at: 0) == .limited(retryAfter: 4))
        // A seed keeps what this process has not flushed (5 requests here): the table's level less it.
        #expect(rates.seed(key, level: 4, at: 60_000, rate: 2, burst: 4) == 4 - 5)
    }
}
