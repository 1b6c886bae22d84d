import HTTPTypes
import Hummingbird
import Synchronization

/// The hub's routes, as the controllers declare them: every route added through ``RouteTable/Recorder`` goes to the
/// router and is noted here, so the one declaration of a route both routes requests and tells a wrong method (405)
/// from an unknown path (404). Paths as the router names them: `/v1/households/{household}/sync`.
public final class RouteTable: Sendable {
    public typealias Route = (method: HTTPRequest.Method, path: String)
    private let noted = Mutex<[(method: HTTPRequest.Method, path: String)]>([])

    public init() {}

    /// Every route, in the order it was added.
    public var routes: [Route] { noted.withLock { $0 } }

    /// The routes at `path`, whatever their methods.
    func routes(at path: String) -> [Route] {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        return routes.filter { route in
            let pattern = route.path.split(separator: "/")
            return pattern.count == parts.count && zip(pattern, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }

    fileprivate func note(_ method: HTTPRequest.Method, _ path: RouterPath) {
        noted.withLock { $0.append((method, path.description)) }
    }

    /// Routes added through it (directly, by `addRoutes`, or by a `group` of it) are added to `parent` and noted in `table`.
    struct Recorder<Context: RequestContext>: RouterMethods {
        let parent: any RouterMethods<Context>
        let table: RouteTable

        @discardableResult func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
            where Responder.Context == Context {
            table.note(method, path)
            parent.on(path, method: method, responder: responder)
            return self
        }

        @discardableResult func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self {
            _ = parent.add(middleware: middleware)
            return self
        }
    }
}
