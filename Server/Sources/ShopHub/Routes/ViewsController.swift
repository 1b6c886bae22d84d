import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ShopEvents
import ShopProjections

/// `GET /v1/households/{H}/views/{NAME}` (docs/HUB.md, "Views over HTTP"): any view of the household, the JSON
/// `shop-replay view NAME --json` prints on its journal, byte for byte, from the views the hub keeps
/// (``HouseholdFolds``: only lines new since the last request are folded). Any device of the household,
/// viewers too. The JSON is made outside the actor that keeps the views. `as-of` folds the household's
/// lines anew up to that point (rare: a look back). An `ETag` names the household's head; a request whose
/// `If-None-Match` names it is answered 304 with no body.
struct ViewsController {
    let hub: HubRoutes

    var routes: RouteCollection<HubRequestContext> {
        let routes = RouteCollection(context: HubRequestContext.self)
        routes.get(":view", use: view)
        return routes
    }

    func view(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        let device = try context.requireDevice(), household = device.household
        let options = try Self.viewOptions(request.uri.query)
        let query: ViewQuery
        // The device's actor is who asks: whose running trip the list by location, share-text and household follow.
        do { query = try ViewQuery(name: context.parameters.get("view") ?? "", options: options, shopper: device.actor) } catch { throw Self.viewError(error) }
        // The suggestions' index is kept beside the views once asked for (a view asked on every keystroke).
        let kept = query.view == .suggestions && query.asOf == .end
        var (views, head, index): (HouseholdViews, JournalHead, SuggestionIndex?)
        if kept { (views, head, index) = try await hub.folds.viewsAndSuggestions(household) } else {
            (views, head) = try await hub.folds.views(household)
            index = nil
        }
        // A view that counts to the clock (due, suggestions, a running trip's time) changes with no new line:
        // without `now` it has no tag, and is never answered 304.
        let clocked = [.due, .suggestions, .household].contains(query.view) && options["now"] == nil
        let tag = clocked ? nil : "\"\(head.seq)\""
        if let tag, Self.matches(request.headers[.ifNoneMatch], tag) {
            return Response(status: .notModified, headers: [.eTag: tag, .cacheControl: "private, no-cache"])
        }
        if query.asOf != .end {
            let journal = try await hub.storage.journal(household)
            guard let stop = query.asOf.replayStop(calendar: views.calendar) else {
                throw HubError(.badRequest, ViewQueryError.Code.badOption.rawValue, "as-of names a day the household's calendar has not")
            }
            // A journal line that cannot be read answers 400, as it always has (not the storage's 503).
            do { (views, index) = (try Self.fold(journal, to: stop), nil) } catch { throw ErrorAnswers.refusal(error) }
        }
        let bytes: [UInt8]
        do { bytes = try query.bytes(views, clock: hub.clock.now(), suggestions: index) } catch { throw Self.viewError(error) }
        var headers: HTTPFields = [.contentType: "application/json", .cacheControl: "private, no-cache"]
        if let tag { headers[.eTag] = tag }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// The query's options by name: `a=b&c=d`, `+` a space and `%XX` an escaped byte as a form encodes
    /// them. A name the view route does not take, or one given twice, is `bad_request` naming it.
    static func viewOptions(_ query: String?) throws -> [String: String] {
        var options: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let decode = { (text: Substring) in String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding }
            guard let key = decode(parts[0]), let value = parts.count > 1 ? decode(parts[1]) : "" else {
                throw HubError.badRequest("the query parameter \"\(HubError.bounded(pair))\" is not percent-encoded text")
            }
            guard ViewQuery.optionNames.contains(key) else {
                throw HubError.badRequest("there is no query parameter \"\(HubError.bounded(key))\"; a view takes \(ViewQuery.optionNames.joined(separator: ", "))")
            }
            guard options[key] == nil else { throw HubError.badRequest("the query parameter \"\(key)\" is given twice") }
            options[key] = value
        }
        return options
    }

    /// A view's refusal in the hub's shape: 404 for a view or a thing named that is not there, 400 for the rest.
    static func viewError(_ error: ViewQueryError) -> HubError {
        HubError(error.code.isUnknown ? .notFound : .badRequest, error.code.rawValue, error.message)
    }

    /// Whether `If-None-Match` names `tag` (or is `*`); a weak tag (`W/"12"`) matches too (RFC 9110's weak comparison).
    static func matches(_ header: String?, _ tag: String) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            var candidate = item.trimmingBlanks
            if candidate.hasPrefix("W/") { candidate = candidate.dropFirst(2) }
            return candidate == "*" || candidate == tag
        }
    }

    /// Views folded anew from `journal`'s lines up to `stop`, as `--as-of` folds them; every record kept, as the kept views.
    static func fold(_ journal: [UInt8], to stop: ReplayStop) throws -> HouseholdViews {
        var views = HouseholdViews()
        for line in journal.split(separator: 0x0A) {
            guard case let .event(recorded) = try EventLineCodec.decodeLine(Array(line)) else { continue }
            switch stop {
            case .end: break
            case let .seq(last): if recorded.seq > last { return views }
            case let .time(last): if recorded.at > last { return views }
            }
            views.apply(recorded)
        }
        return views
    }
}
