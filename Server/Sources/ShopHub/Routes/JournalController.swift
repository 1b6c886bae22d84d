import Hummingbird
import NIOCore

/// `GET …/journal` (owners): the household's journal, its lines as they are kept (NDJSON).
struct JournalController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get(use: journal)
        return routes
    }

    func journal(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let device = try context.requireDevice()
        try await hub.requireOwner(device)
        let bytes = try await hub.storage.journal(device.household)
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
