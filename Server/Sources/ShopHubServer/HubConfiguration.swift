import Logging
import Prometheus
import ShopEvents
import ShopHub

/// What `shop-hub serve` was asked for: all ``buildApplication(_:)`` needs to make the hub's application.
/// A value, so that the tests build the same application as the process, on a folder of theirs.
///
/// ```swift
/// var configuration = HubConfiguration()
/// configuration.port = 0                                  // any free port
/// configuration.storage = .files(directory: "hub-data")
/// configuration.limits.maxWaitSeconds = 25
/// ```
struct HubConfiguration: Sendable {
    /// Where the hub keeps its households.
    enum Storage: Sendable, Equatable {
        /// The embedded storage: a folder, made if missing.
        case files(directory: String)
        /// PostgreSQL at `url`, its schema made or migrated before the server takes a request.
        case postgres(url: String, layout: PostgresHubStorage.Layout)
    }

    /// The PEM files of a certificate chain and its private key: HTTPS in the process.
    struct TLSFiles: Sendable, Equatable {
        var certificate: String
        var key: String
    }

    /// Which copy of the web app the hub serves at `/` (docs/APP.md).
    enum App: Sendable, Equatable {
        /// The one built into the hub (its resources beside the executable); none if they were not copied with it.
        case bundled
        /// The one in a folder, read at start.
        case directory(String)
        /// None: the API alone.
        case none
    }

    var host = "127.0.0.1"
    /// 0: any free port (the `listening on` line says which).
    var port = 8080
    var storage = Storage.files(directory: "shop-hub-data")
    var tls: TLSFiles?
    var app = App.bundled
    var limits = HubLimits()
    /// How long a connection may owe the hub a request's head or body, or idle; how many one address may hold.
    var connections = ConnectionLimits()
    /// The proxies whose requests name their client (`--trusted-proxy`).
    var trustedProxies = TrustedProxies()
    /// The least level logged.
    var level = Logger.Level.info
    /// What `/metrics` renders: the registry the process bootstrapped `MetricsSystem` with; none, an empty page.
    var metrics: PrometheusCollectorRegistry?
    /// The time the hub reads: of its records (devices, invites, rates) and of the lines it writes.
    var clock = Clock.system
}
