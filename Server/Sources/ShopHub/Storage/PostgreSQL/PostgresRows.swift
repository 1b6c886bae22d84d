import Logging
import NIOCore
import PostgresNIO

/// Every statement of the hub's goes to PostgreSQL through here: its rows are collected whole on the
/// connection's event loop as they arrive, and only then handed to the caller.
///
/// Why not PostgresNIO's row sequences (`for try await row in try await connection.query(…)`): such
/// a sequence stops reading the socket after every batch of rows until its consumer, a task on
/// another thread, asks for more. When the server closes the connection in that moment (an
/// immediate restart of the cluster, a backend terminated), SwiftNIO reads what is left and
/// signals the end of that read, which PostgresNIO does not expect in that state: a precondition
/// failure in `RowStreamStateMachine.channelReadComplete()` that ends the process (1.33.2; the
/// newest source of it we could read has the same check). Collected on the event loop, a
/// statement's rows are asked for before the next read, always: a connection closed mid-result
/// fails its statement (the request is answered 503), nothing more. The cost: a statement's rows
/// are all in memory at once (they were collected into arrays anyway).
///
/// The one exception is the push statement (``PushStatement``), which PostgresNIO prepares once a
/// connection (planning it cost the database more than running it) and hands over only as a row
/// sequence: it answers rows only for what it did not write, usually none, and so few that the
/// answer is read from the socket in one go (see ``PostgresConnection/prepared(_:logger:)``).
extension PostgresConnection {
    /// All of `query`'s rows (none for a statement that returns none).
    @discardableResult
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        // PostgresNIO's EventLoopFuture form collects on the event loop (its async form streams).
        let result: EventLoopFuture<PostgresQueryResult> = self.query(query, logger: logger)
        return try await result.get().rows
    }

    /// All of `statement`'s rows, decoded: its text and bindings sent as a statement of their own
    /// (not prepared: PostgresNIO's prepared statements hand their rows over as a row sequence only).
    @discardableResult
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        try await rows(PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings()), logger: logger)
            .map { try statement.decodeRow($0) }
    }

    /// All of `statement`'s rows, decoded, as PostgresNIO's prepared statement (prepared on this
    /// connection the first time): for a statement whose answer is small, and so is read from the
    /// socket in one go. SwiftNIO reads up to four times a read event, each time into a buffer of at
    /// least 64 bytes that doubles when a read fills it (64 + 128 + 256 + 512): an answer of under
    /// 960 bytes, which PostgreSQL sends at once, is read whole before PostgresNIO hands over any of
    /// its rows, and the row sequence is finished before it could wait for its consumer.
    @discardableResult
    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        for try await row in try await execute(statement, logger: logger) { rows.append(row) }
        return rows
    }
}

extension PostgresClient {
    /// All of `query`'s rows, on a connection of the pool's (see ``PostgresConnection/rows(_:logger:)``).
    @discardableResult
    func rows(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await withConnection { try await $0.rows(query, logger: logger) }
    }

    /// All of `statement`'s rows, decoded, on a connection of the pool's, not prepared.
    @discardableResult
    func rows<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        try await withConnection { try await $0.rows(statement, logger: logger) }
    }

    /// All of `statement`'s rows, decoded, prepared, on a connection of the pool's (see
    /// ``PostgresConnection/prepared(_:logger:)``).
    @discardableResult
    func prepared<Statement: PostgresPreparedStatement>(_ statement: Statement, logger: Logger) async throws -> [Statement.Row] {
        try await withConnection { try await $0.prepared(statement, logger: logger) }
    }
}
