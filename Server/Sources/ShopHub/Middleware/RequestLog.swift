import Hummingbird
import Logging

/// The outermost of the hub's own middleware: each answer counted in the request metrics under its route,
/// and one log line (method, route, status, time, client; the household, the device and the refusal's code
/// when there are).
struct RequestLog: RouterMiddleware {
    typealias Context = HubRequestContext
    let metrics: HubMetrics

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        let response = try await next(request, context)
        // A wrong method on a route that exists is counted and logged under that route (``UnknownRoutes`` names it).
        let route = context.endpointPath ?? "unmatched"
        metrics.requests(request.method.rawValue, route, response.status.code).increment()
        var metadata: Logger.Metadata = [
            "method": "\(request.method)", "route": "\(route)", "status": "\(response.status.code)",
            "ms": "\(HubMetrics.milliseconds(started.duration(to: .now)))", "client": "\(context.clientAddress)",
        ]
        if let household = context.parameters.get("household") { metadata["household"] = "\(HubError.bounded(household))" }
        if let device = context.logDevice.get() { metadata["device"] = "\(device)" }
        if let code = context.refusal.get() { metadata["error"] = "\(code)" }
        context.logger.info("request", metadata: metadata)
        return response
    }
}
