import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import ShopHub

/// `shop-hub serve`: the hub until SIGTERM or SIGINT; 0 once it has stopped, 3 if its storage cannot be used.
func serve(_ options: inout Options, level: Logger.Level) async throws -> Int32 {
    var configuration = try HubConfiguration(options: &options, level: level, environment: ProcessInfo.processInfo.environment)
    LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    configuration.metrics = registry
    do {
        let app = try await buildApplication(configuration)
        // At SIGTERM or SIGINT the server stops taking connections and answers what it holds (a long poll at
        // once); a shutdown that has not finished in 20 s is cancelled, one that ignores that too ends the
        // process 10 s later: a supervisor's stop never waits for ever (docs/HUB.md, SIGTERM).
        var group = ServiceGroupConfiguration(services: [.init(service: app)], gracefulShutdownSignals: [.sigterm, .sigint], logger: app.logger)
        group.maximumGracefulShutdownDuration = .seconds(20)
        group.maximumCancellationDuration = .seconds(10)
        try await ServiceGroup(configuration: group).run()
        app.logger.info("stopped")
    } catch let failure as StartFailure {
        fail(failure.message)
        return 3
    }
    return 0
}

extension HubConfiguration {
    /// `serve`'s arguments: a usage failure for a wrong one. The database is `--postgres`, else
    /// `$DATABASE_URL` unless `--data` names a folder.
    init(options: inout Options, level: Logger.Level, environment: [String: String]) throws {
        host = try options.value("--host") ?? "127.0.0.1"
        port = try options.int("--port") ?? 8080
        let data = try options.value("--data")
        let postgres = try options.value("--postgres")
        let layoutName = try options.value("--postgres-layout") ?? "plain"
        guard let layout = PostgresHubStorage.Layout(rawValue: layoutName) else {
            throw UsageFailure(message: "--postgres-layout is plain or partitioned, not \(layoutName)")
        }
        let cert = try options.value("--tls-cert"), key = try options.value("--tls-key")
        if let perHour = try options.int("--households-per-hour") { limits.householdsPerAddressPerHour = perHour }
        if let perSecond = try options.int("--requests-per-second") { limits.requestsPerTokenPerSecond = Double(perSecond) }
        if let perMinute = try options.int("--joins-per-minute") { limits.joinsPerAddressPerMinute = perMinute }
        if let wait = try options.int("--max-wait") {
            guard wait <= 60 else { throw UsageFailure(message: "--max-wait is at most 60 seconds") }
            limits.maxWaitSeconds = wait
        }
        if let seconds = try options.positive("--head-timeout") { connections.headSeconds = seconds }
        if let seconds = try options.positive("--body-timeout") { connections.bodySeconds = seconds }
        if let seconds = try options.positive("--idle-timeout") { connections.idleSeconds = seconds }
        if let count = try options.positive("--connections-per-address") { connections.perAddress = count }
        do { trustedProxies = try TrustedProxies(try options.values("--trusted-proxy")) } catch let refusal as HubError {
            throw UsageFailure(message: "--trusted-proxy: \(refusal.message)")
        }
        let appFolder = try options.value("--app")
        let noApp = options.flag("--no-app")
        try options.finish()
        guard appFolder == nil || !noApp else { throw UsageFailure(message: "--app and --no-app do not go together") }
        app = noApp ? .none : appFolder.map { .directory($0) } ?? .bundled
        guard (cert == nil) == (key == nil) else { throw UsageFailure(message: "--tls-cert and --tls-key go together") }
        if let cert, let key { tls = TLSFiles(certificate: cert, key: key) }
        self.level = level
        if let url = postgres ?? (data == nil ? environment["DATABASE_URL"] : nil) {
            storage = .postgres(url: url, layout: layout)
        } else {
            storage = .files(directory: data ?? "shop-hub-data")
        }
    }
}
