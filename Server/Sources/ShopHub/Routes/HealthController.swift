import Hummingbird
import NIOCore

/// `/healthz` (the process answers), `/readyz` (and its storage, within half a second) and `/metrics`
/// (Prometheus' text).
struct HealthController {
    let hub: HubRoutes

    /// How long `/readyz` waits for the storage's answer before it answers 503.
    static let readyLimit: Duration = .milliseconds(500)

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get("healthz") { _, _ in HealthStatus(status: "ok") }
        routes.get("readyz") { _, _ in try await ready() }
        routes.get("metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: hub.metrics?() ?? [])))
        }
        return routes
    }

    func ready() async throws -> HealthStatus {
        // Within a second, also when the database is down (a pool waits for a connection far longer);
        // half of it for the storage, the rest for a busy machine.
        let late = HubError.unavailable("the storage did not answer within \(Self.readyLimit)")
        try await within(Self.readyLimit, else: late) { [storage = hub.storage] in try await storage.checkReady() }
        return HealthStatus(status: "ready")
    }
}
