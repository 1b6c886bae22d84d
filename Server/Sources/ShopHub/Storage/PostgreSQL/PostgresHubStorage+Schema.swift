import Foundation
import Logging
import Metrics
import NIOCore
import PostgresNIO
import ShopEvents
import Synchronization

/// The schema: versioned migrations, and the hub's secret.
extension PostgresHubStorage {
    // MARK: Schema

    /// Creates or migrates the schema: versioned, idempotent, and safe when
    /// several hubs start at once (an advisory lock orders them).
    public func migrate() async throws {
        try await transaction { connection in
            try await connection.rows("SELECT pg_advisory_xact_lock(72707)", logger: logger)
            try await connection.rows("""
                CREATE TABLE IF NOT EXISTS shop_hub_schema (version integer PRIMARY KEY, layout text NOT NULL,
                                                            applied_at timestamptz NOT NULL DEFAULT now())
                """, logger: logger)
            let applied = try await connection.rows("SELECT version, layout FROM shop_hub_schema ORDER BY version", logger: logger)
                .map { try $0.decode((Int, String).self) }
            if let existing = applied.first?.1, existing != layout.rawValue {
                throw HubError.unavailable("the database's tables are laid out \(existing), not \(layout.rawValue)")
            }
            for (version, statements) in Self.migrations(layout).enumerated() where !applied.contains(where: { $0.0 == version + 1 }) {
                for statement in statements { try await connection.rows(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.rows("INSERT INTO shop_hub_schema (version, layout) VALUES (\(version + 1), \(layout.rawValue))", logger: logger)
            }
            // The hub's secret for the per-address limits, made once, by the first hub to start.
            try await connection.rows("""
                INSERT INTO shop_hub_secrets (name, secret) VALUES ('address', \(AddressKey.random().hex)) ON CONFLICT (name) DO NOTHING
                """, logger: logger)
        }
    }

    /// The keyed hash of a client's address (``AddressKey``), under the key `migrate()` made.
    func keyedAddress(_ address: String) async throws -> TokenHash {
        if let key = addressKey.withLock({ $0 }) { return key.hash(address) }
        for row in try await client.rows("SELECT secret FROM shop_hub_secrets WHERE name = 'address'", logger: logger) {
            let hex = try row.decode(String.self)
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
            // 4: why a device was revoked (a member removed), an invite's id (random; older invites get one) and its cancellation.
            [
                "ALTER TABLE devices ADD COLUMN revoked_why text",
                "ALTER TABLE invites ADD COLUMN invite_id text",
                "ALTER TABLE invites ADD COLUMN cancelled_ms bigint",
                "UPDATE invites SET invite_id = substr(md5(random()::text || code_hash), 1, 16) WHERE invite_id IS NULL",
            ],
        ]
    }
}
