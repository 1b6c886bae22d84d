import Hummingbird

/// A request the router matched no route for: `method_not_allowed` (405, with `Allow`) if its path is a route's
/// with another method, else `not_found` (404). Which routes there are is the ``RouteTable`` the controllers filled.
struct UnknownRoutes: RouterMiddleware {
    typealias Context = HubRequestContext
    let table: RouteTable

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as HTTPError where error.status == .notFound {
            let path = request.uri.path, allowed = table.routes(at: path)
            let methods = allowed.map(\.method.rawValue).joined(separator: ", ")
            guard let known = allowed.first else { throw HubError.notFound("no route \(request.method) \(HubError.bounded(path))") }
            let refusal = HubError.methodNotAllowed("\(HubError.bounded(path)) takes \(methods)")
            var response = refusal.response
            response.headers[.allow] = methods
            // Counted and logged under the route whose method was wrong (the router names none).
            context.coreContext.endpointPath.value = known.path
            context.refusal.set(refusal.code)
            return response
        }
    }
}
