import Hummingbird
import Logging
import NIOCore
import ShopEvents

/// Every answer's last stop: a refusal becomes its JSON error, an unknown
/// path `not_found` (404) and a known path with another method
/// `method_not_allowed` (405); then the device noted as seen if the request was
/// answered (2xx: a refused request writes nothing), one log line
/// and the request metrics.
struct HubMiddleware: RouterMiddleware {
    typealias Context = HubRequestContext
    let watch: HeadWatch
    let metrics: HubMetrics
    /// Notes that a device was seen.
    let seen: @Sendable (DeviceRecord) async -> Void

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        let started = ContinuousClock.now
        var response: Response
        var code: String?
        // A wrong method on a route that exists is counted and logged under that route (the router names none).
        var refusedRoute: String?
        do {
            response = try await next(request, context)
        } catch let error as HubError {
            response = Self.response(error)
            code = error.code
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path, allowed = Self.routes(at: path)
            let refusal = allowed.isEmpty
                ? HubError.notFound("no route \(request.method) \(HubError.bounded(path))")
                : HubError.methodNotAllowed("\(HubError.bounded(path)) takes \(allowed.map(\.method.rawValue).joined(separator: ", "))")
            response = Self.response(refusal)
            if let known = allowed.first {
                response.headers[.allow] = allowed.map(\.method.rawValue).joined(separator: ", ")
                refusedRoute = known.path
            }
            code = refusal.code
        } catch let error as HTTPError where error.status == .contentTooLarge {
            response = Self.response(.tooLarge(SyncWire.maxRequestBytes))
            code = "too_large"
        } catch {
            response = Self.response(.badRequest("the request could not be read: \(type(of: error))"))
            code = "bad_request"
        }
        // No answer is read as another type than the one it names (a JSON error as HTML, for one).
        response.headers[.xContentTypeOptions] = "nosniff"
        if (200..<300).contains(response.status.code), let device = context.seenDevice.get() { await seen(device) }
        let route = refusedRoute ?? context.endpointPath ?? "unmatched"
        metrics.requests(request.method.rawValue, route, response.status.code).increment()
        var metadata: Logger.Metadata = [
            "method": "\(request.method)", "route": "\(route)", "status": "\(response.status.code)",
            "ms": "\(HubMetrics.milliseconds(started.duration(to: .now)))", "client": "\(context.clientAddress)",
        ]
        if let household = context.parameters.get("household") { metadata["household"] = "\(HubError.bounded(household))" }
        if let device = context.logDevice.get() { metadata["device"] = "\(device)" }
        if let code { metadata["error"] = "\(code)" }
        context.logger.info("request", metadata: metadata)
        return response
    }

    static func response(_ error: HubError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let after = error.retryAfter { headers[.retryAfter] = "\(after)" }
        // RFC 9110: a 401 names the scheme that would be taken.
        if error.status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: error.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: error.body)))
    }

    /// The routes at `path`, whatever their methods.
    static func routes(at path: String) -> [(method: HTTPRequest.Method, path: String)] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return HubRoutes.routes.filter { route in
            let pattern = route.path.split(separator: "/")
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }
}
