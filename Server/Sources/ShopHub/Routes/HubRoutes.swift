import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import ShopEvents
import ShopProjections
import Synchronization

/// The hub (docs/HUB.md) over any ``HubStorage``: what its routes share (the storage, the limits, the clock,
/// the long polls' wake-ups, the views kept current, the rates, the metrics), and its router.
///
/// ```swift
/// let storage = try FileHubStorage(directory: "shop-hub-data")
/// let router = HubRoutes(storage: storage).router()
/// let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
/// _ = app
/// ```
public struct HubRoutes: Sendable {
    public let storage: any HubStorage
    public let limits: HubLimits
    let clock: Clock
    let watch = HeadWatch()
    let folds: HouseholdFolds
    let tokenLimiter: RateLimiter
    let joinLimiter: RateLimiter
    let metrics: (@Sendable () -> [UInt8])?
    let hubMetrics = HubMetrics()
    /// Whose requests name their client (`X-Forwarded-For`, `Forwarded`): the per-address limits count that client.
    let proxies: TrustedProxies

    /// `metricsText` renders `/metrics` (the Prometheus registry the process bootstrapped).
    public init(storage: any HubStorage, limits: HubLimits = HubLimits(), clock: Clock = .system,
                metricsText: (@Sendable () -> [UInt8])? = nil, proxies: TrustedProxies = TrustedProxies()) {
        self.storage = storage
        self.limits = limits
        self.proxies = proxies
        self.clock = clock
        folds = HouseholdFolds(storage: storage)
        tokenLimiter = RateLimiter(perSecond: limits.requestsPerTokenPerSecond, burst: limits.requestsPerTokenBurst)
        joinLimiter = RateLimiter(perSecond: Double(limits.joinsPerAddressPerMinute) / 60, burst: Double(max(1, limits.joinsPerAddressPerMinute)))
        metrics = metricsText
        // Pushes other processes committed wake this one's long polls too.
        if let pushes = storage.pushes() {
            Task { [watch] in for await household in pushes { watch.bump(household) } }
        }
    }

    /// Every route the hub answers, `METHOD /path/{parameter}`, as the controllers declare them (each once):
    /// what routes requests, what tells a wrong method (405) from an unknown path (404), and what the OpenAPI
    /// document describes.
    public static var routes: [RouteTable.Route] {
        let table = RouteTable()
        _ = HubRoutes(storage: MemoryHubStorage()).router(table: table)
        return table.routes
    }

    /// The router: the middleware, each with a job of its own (outermost first), then each resource's routes.
    /// A household's routes sit in the group that ``Authentication`` guards: their handlers find the device
    /// in the context.
    public func router() -> Router<HubRequestContext> { router(table: RouteTable()) }

    /// The router, its routes noted in `table` as they are added.
    func router(table: RouteTable) -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: ClientAddress(proxies: proxies))
        router.add(middleware: RequestLog(metrics: hubMetrics))
        router.add(middleware: SeenWriteBack(storage: storage, clock: clock))
        router.add(middleware: ErrorAnswers())
        router.add(middleware: UnknownRoutes(table: table))
        // Before the routes: a Hummingbird router's middleware wraps the routes added after it (the web app's too).
        router.add(middleware: Compression())
        let api = RouteTable.Recorder(parent: router.group().add(middleware: StorageFailures()), table: table)
        api.addRoutes(HouseholdsController(hub: self).routes, atPath: "/v1")
        let household = api.group("/v1/households/:household").add(middleware: Authentication(hub: self))
        household.addRoutes(InvitesController(hub: self).routes, atPath: "invites")
        household.addRoutes(DevicesController(hub: self).routes, atPath: "devices")
        household.addRoutes(ReportController(hub: self).routes, atPath: "report")
        household.addRoutes(JournalController(hub: self).routes, atPath: "journal")
        household.addRoutes(ViewsController(hub: self).routes, atPath: "views")
        // A sync's token is checked again as the storage answers it: it may be found in memory first.
        api.group("/v1/households/:household/sync").add(middleware: Authentication(hub: self, forSync: true))
            .addRoutes(SyncController(hub: self).routes)
        api.addRoutes(HealthController(hub: self).routes)
        return router
    }

    /// `forbidden` unless the device's actor is an owner of its household.
    func requireOwner(_ device: AuthenticatedDevice) async throws {
        guard try await folds.isOwner(device.actor, of: device.household) else {
            throw HubError.forbidden("only an owner of the household may do this; \(device.actor) is not one")
        }
    }

    /// The refusal of a token that is not live: `member_removed` if its device was revoked because its member
    /// was removed from the household, `unauthorized` for any other (unknown, revoked, or not to be looked up now).
    func deadToken(_ hash: TokenHash) async -> HubError {
        guard let device = try? await storage.device(tokenHash: hash), device.revoked != nil, device.memberRemoved else { return .unknownToken }
        return .memberRemoved
    }

    static func seconds(_ clock: Clock) -> Double { Double(clock.now().millisecondsSince1970) / 1000 }
}
