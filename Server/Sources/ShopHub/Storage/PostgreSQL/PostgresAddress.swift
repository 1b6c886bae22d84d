import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// What a `postgres://USER:PASSWORD@HOST:PORT/DATABASE` URL names (`postgresql://` too; a host
/// starting with `/`, or none, is a Unix socket's folder, `?host=FOLDER`). No TLS: put the database
/// on a private network or a socket.
struct PostgresAddress: Sendable {
    enum Place: Sendable { case tcp(host: String, port: Int), socket(path: String) }
    let place: Place
    let user: String
    let password: String?
    let database: String?

    init(url: String) throws {
        guard let parts = URLComponents(string: url), ["postgres", "postgresql"].contains(parts.scheme ?? "") else {
            throw HubError.unavailable("\(HubError.bounded(url)) is not a postgres:// URL")
        }
        user = parts.user ?? ProcessInfo.processInfo.environment["PGUSER"] ?? "postgres"
        password = parts.password ?? ProcessInfo.processInfo.environment["PGPASSWORD"]
        database = parts.path.isEmpty || parts.path == "/" ? nil : String(parts.path.dropFirst())
        if let host = parts.host, !host.isEmpty {
            place = .tcp(host: host, port: parts.port ?? 5432)
        } else {
            let folder = parts.queryItems?.first(where: { $0.name == "host" })?.value ?? "/var/run/postgresql"
            place = .socket(path: "\(folder)/.s.PGSQL.\(parts.port ?? 5432)")
        }
    }

    /// A pool's configuration.
    var client: PostgresClient.Configuration {
        switch place {
        case let .tcp(host, port):
            return PostgresClient.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        case let .socket(path):
            return PostgresClient.Configuration(unixSocketPath: path, username: user, password: password, database: database)
        }
    }

    /// One connection's configuration.
    var connection: PostgresConnection.Configuration {
        switch place {
        case let .tcp(host, port):
            return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
        case let .socket(path):
            return PostgresConnection.Configuration(unixSocketPath: path, username: user, password: password, database: database)
        }
    }
}

extension PostgresHubStorage {
    /// Connects once to the database `url` names, and closes the connection: `unavailable`, with the
    /// database's own reason (`database "x" does not exist`, `password authentication failed for user
    /// "y"`, a refused connection), when it cannot be used, or when it has not answered within `limit`.
    /// A pool (``run()``) keeps trying such a database for a minute before it gives up; a process that
    /// is starting asks this first.
    ///
    /// ```swift
    /// do { try await PostgresHubStorage.check(url: "postgres://hub@db/shop") } catch let refusal as HubError {
    ///     print(refusal.message)   // the database "shop" cannot be used: database "shop" does not exist
    /// }
    /// ```
    public static func check(url: String, within limit: Duration = .seconds(8), logger: Logger = Logger(label: "shop-hub")) async throws {
        let address = try PostgresAddress(url: url)
        let configuration = {
            var configuration = address.connection
            configuration.options.connectTimeout = .seconds(limit.components.seconds + 1)   // ours answers first, in its words
            return configuration
        }()
        let name = address.database ?? address.user
        let late = HubError.unavailable("the database \"\(name)\" did not answer within \(limit)")
        do {
            try await within(limit, else: late) {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                try? await connection.close()
            }
        } catch let refusal as HubError {
            throw refusal
        } catch {
            throw HubError.unavailable("the database \"\(name)\" cannot be used: \(reason(error))")
        }
    }

    /// The database's own words for `error` (its message), or the connection's failure.
    static func reason(_ error: any Error) -> String {
        guard let failure = error as? PSQLError else { return String(describing: error) }
        if let message = failure.serverInfo?[.message] { return message }
        if let underlying = failure.underlying { return String(describing: underlying) }
        return failure.code.description
    }
}

/// `body`'s value, or `late` thrown once `limit` has passed; `body` is cancelled then, and left to end
/// on its own (a database that does not answer must not hold the caller).
func within<T: Sendable>(_ limit: Duration, else late: HubError, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
    let once = Once()
    return try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let work = Mutex<Task<Void, Never>?>(nil)
        let timer = Task {
            try? await Task.sleep(for: limit)
            guard once.claim() else { return }
            work.withLock { $0?.cancel() }
            continuation.resume(throwing: late)
        }
        work.withLock { work in
            work = Task {
                do {
                    let value = try await body()
                    if once.claim() { continuation.resume(returning: value) }
                } catch {
                    if once.claim() { continuation.resume(throwing: error) }
                }
                timer.cancel()
            }
        }
    }
}
