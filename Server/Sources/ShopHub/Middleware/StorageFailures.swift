import Hummingbird
import ShopEvents

/// Around the hub's routes: a failure of the storage is `unavailable` (503, `Retry-After`: try again), so a
/// route just calls its storage. A ``HubError`` stays itself, and so does Hummingbird's `HTTPError` (a body
/// over the limit, read by the server); anything else a route throws is its storage's.
struct StorageFailures: RouterMiddleware {
    typealias Context = HubRequestContext

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        do { return try await next(request, context) } catch let error as HTTPError { throw error } catch { throw Self.refusal(error) }
    }

    static func refusal(_ error: any Error) -> HubError {
        if let hub = error as? HubError { return hub }
        if let shop = error as? any ShopError { return HubError.unavailable("storage: \(shop.code): \(shop.message)") }
        return HubError.unavailable("storage: \(error)")
    }
}
