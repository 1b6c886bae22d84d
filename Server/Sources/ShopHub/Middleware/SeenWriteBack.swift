import Hummingbird
import ShopEvents

/// The device a request was authenticated as is noted as seen (`lastSeen`) once the request is answered
/// 2xx: a refused request writes nothing.
struct SeenWriteBack: RouterMiddleware {
    typealias Context = HubRequestContext
    let storage: any HubStorage
    let clock: Clock

    func handle(_ request: Request, context: HubRequestContext, next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        if (200..<300).contains(response.status.code), let device = context.seenDevice.get() { await storage.seen(device, at: clock.now()) }
        return response
    }
}
