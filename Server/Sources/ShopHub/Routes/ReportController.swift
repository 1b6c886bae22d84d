import Hummingbird
import NIOCore
import ShopEvents
import ShopProjections

/// `GET …/report[?lang=de]`: the household's report, an HTML page any device of the household may open, in English or German.
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
        var report = HouseholdReport(views: views, head: head, journal: "\(household).ndjson")
        // `?lang=de`: the page in German, as the web app asks for it in German; any other or none, English.
        report.language = request.uri.queryParameters.get("lang").flatMap(ReportLanguage.init(rawValue:)) ?? .english
        let html = report.html
        // A page of the household's own words under the web app's policy (no script runs in it, nothing is loaded
        // from elsewhere), read as HTML only, and kept in no cache.
        var headers = WebApp.securityHeaders()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }
}
