import HTTPTypes
import Hummingbird

/// The first middleware: the request's client address (``HubRequestContext/clientAddress``) is what a
/// trusted proxy says it is (``TrustedProxies``); from any other peer, the peer's own.
struct ClientAddress: RouterMiddleware {
    typealias Context = HubRequestContext
    let proxies: TrustedProxies

    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let forwarded = HTTPField.Name("Forwarded")!

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        guard !proxies.isEmpty else { return try await next(request, context) }
        var context = context
        context.clientAddress = proxies.client(peer: context.remoteAddress?.ipAddress,
                                               forwardedFor: request.headers[values: Self.forwardedFor],
                                               forwarded: request.headers[values: Self.forwarded])
        return try await next(request, context)
    }
}
