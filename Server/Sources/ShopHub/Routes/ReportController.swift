import Hummingbird
import NIOCore
import ShopEvents
import ShopProjections

/// `GET …/report`: the household's report, an HTML page any device of the household may open.
struct ReportController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get(use: report)
        return routes
    }

    func report(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let household = try context.requireDevice().household
        let (views, head) = try await hub.folds.views(household)
        let html = HouseholdReport(views: views, head: head, journal: "\(household).ndjson").html
        // A page of the household's own words under the web app's policy (no script runs in it, nothing is loaded
        // from elsewhere), read as HTML only, and kept in no cache.
        var headers = WebApp.securityHeaders()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
