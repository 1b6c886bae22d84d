import Hummingbird
import NIOCore
import ShopEvents

/// Every answer leaves as a response: a refusal (``HubError``) as its JSON error, a body the server would not
/// read whole `too_large` (413), any other failure to read the request `bad_request`; and no answer is read
/// as another type than the one it names (`X-Content-Type-Options: nosniff`).
struct ErrorAnswers: RouterMiddleware {
    typealias Context = HubRequestContext

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            let refusal = Self.refusal(error)
            response = refusal.response
            context.refusal.set(refusal.code)
        }
        // No answer is read as another type than the one it names (a JSON error as HTML, for one).
        response.headers[.xContentTypeOptions] = "nosniff"
        return response
    }

    static func refusal(_ error: any Error) -> HubError {
        switch error {
        case let refusal as HubError: refusal
        case let error as HTTPError where error.status == .contentTooLarge: .tooLarge(SyncWire.maxRequestBytes)
        default: .badRequest("the request could not be read: \(type(of: error))")
        }
    }
}

extension HubError {
    /// The refusal as it is answered: its JSON, `Retry-After` if it has one, and for a 401 the scheme that would be taken.
    var response: Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let after = retryAfter { headers[.retryAfter] = "\(after)" }
        // RFC 9110: a 401 names the scheme that would be taken.
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
