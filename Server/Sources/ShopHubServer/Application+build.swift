import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import NIOSSL
import ShopHub

/// The hub's application, as Hummingbird's examples build one: the routes over the storage
/// `configuration` names, the storage's services in the application's service group (PostgreSQL's pools
/// run from before the server starts to after it stops; its schema is migrated before the first request),
/// HTTP/1.1 or HTTPS. `shop-hub serve` runs it until SIGTERM; the tests drive it in process.
///
/// It prints `listening on http://HOST:PORT (STORAGE)` once the server listens, and logs `started`.
/// A storage that cannot be used throws ``StartFailure``: from here for a database that refuses its first
/// connection or a folder that cannot be used, from the run for a schema that cannot be migrated.
///
/// ```swift
/// var configuration = HubConfiguration()
/// configuration.storage = .files(directory: "hub-data")
/// let app = try await buildApplication(configuration)
/// try await app.runService()             // until SIGTERM or SIGINT
/// ```
func buildApplication(_ configuration: HubConfiguration) async throws -> some ApplicationProtocol {
    let logger = {
        var logger = Logger(label: "shop-hub")
        logger.logLevel = configuration.level
        return logger
    }()
    let (storage, description, database) = try await openStorage(configuration, logger: logger)
    var metrics: (@Sendable () -> [UInt8])?
    if let registry = configuration.metrics { metrics = { registry.emitToBuffer() } }
    let routes = HubRoutes(storage: storage, limits: configuration.limits, clock: configuration.clock, metricsText: metrics,
                           proxies: configuration.trustedProxies)
    let router = routes.router()
    let webApp = try loadWebApp(configuration.app)
    webApp?.add(to: router)
    let scheme = configuration.tls == nil ? "http" : "https"
    let host = configuration.host, port = configuration.port, level = configuration.level
    var app = Application(
        router: router,
        server: try serverBuilder(configuration, logger: logger),
        // A burst of connections (2,000 at once from one slow client) fits the accept queue: beyond it the kernel drops the
        // SYNs of everyone else, who wait a second for their retry (`hub-bench slow`, docs/BENCHMARKS.md).
        configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "shop-hub", backlog: 4096),
        onServerRunning: { channel in
            let bound = channel.localAddress?.port ?? port
            // Written at once (no buffering): a test or a supervisor waits for this line.
            FileHandle.standardOutput.write(Data("listening on \(scheme)://\(host):\(bound) (\(description))\n".utf8))
            logger.info("started", metadata: ["address": "\(scheme)://\(host):\(bound)", "storage": "\(description)", "level": "\(level)",
                                              "app": "\(webApp.map { "version \($0.version)" } ?? "none")"])
        },
        logger: logger
    )
    if let database {
        // The database's pools run beside the HTTP server and outlive it: requests in flight at SIGTERM still reach it.
        let service = PostgresStorageService(storage: database)
        app.addServices(service)
        app.beforeServerStarts { try await service.prepare() }
    }
    return app
}

/// The storage `configuration` names, what the `listening on` line says of it, and the database if it is one.
private func openStorage(_ configuration: HubConfiguration, logger: Logger) async throws
    -> (storage: any HubStorage, description: String, database: PostgresHubStorage?) {
    switch configuration.storage {
    case let .postgres(url, layout):
        // One connection first: a database that cannot be used is said so at once, in its own words.
        do { try await PostgresHubStorage.check(url: url, logger: logger) } catch let refusal as HubError {
            throw StartFailure(message: refusal.message)
        }
        let database = try PostgresHubStorage(url: url, layout: layout, clock: configuration.clock, logger: logger)
        return (database, "postgres, \(layout.rawValue) tables", database)
    case let .files(directory):
        do {
            let files = try FileHubStorage(directory: directory, clock: configuration.clock)
            return (files, "data \(files.directory)", nil)
        } catch let error as HubError {
            throw StartFailure(message: error.message)
        }
    }
}

/// The web app `choice` names; a folder that holds none stops the start (``StartFailure``).
private func loadWebApp(_ choice: HubConfiguration.App) throws -> WebApp? {
    do {
        switch choice {
        case .none: return nil
        case .bundled: return try WebApp.bundled()
        case let .directory(path): return try WebApp(directory: URL(fileURLWithPath: path))
        }
    } catch let error as HubError {
        throw StartFailure(message: "--app: \(error.message)")
    } catch {
        throw StartFailure(message: "--app: the web app cannot be read: \(error)")
    }
}

/// HTTP/1.1 (``HubChannel``: the connection limits, and a request the HTTP parser refuses — a 500 KB URL —
/// answered in JSON as every other refusal), inside TLS when the configuration names the files.
private func serverBuilder(_ configuration: HubConfiguration, logger: Logger) throws -> HTTPServerBuilder {
    let (limits, proxies, open) = (configuration.connections, configuration.trustedProxies, OpenConnections())
    guard let tls = configuration.tls else {
        return HTTPServerBuilder { responder in HubChannel(responder: responder, limits: limits, proxies: proxies, open: open, logger: logger) }
    }
    let chain = try NIOSSLCertificate.fromPEMFile(tls.certificate).map { NIOSSLCertificateSource.certificate($0) }
    let key = try NIOSSLPrivateKey(file: tls.key, format: .pem)
    let settings = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(key))
    return HTTPServerBuilder { responder in
        try TLSChannel(HubChannel(responder: responder, limits: limits, proxies: proxies, open: open, logger: logger), tlsConfiguration: settings)
    }
}
