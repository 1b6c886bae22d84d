import Hummingbird
import NIOCore
import ShopEvents

/// The request context: Hummingbird's, with the client's address (for the
/// per-address limits: the connection's, or the one a trusted proxy names, set by ``ClientAddress``),
/// the device a household's route was authenticated as (set by ``Authentication``), a 1 MiB body limit,
/// and answers written as ``AnswerEncoder`` writes them.
///
/// ```swift
/// let router = Router(context: HubRequestContext.self)
/// router.get("/hello") { _, context in "hello, \(context.remoteAddress?.ipAddress ?? "someone")" }
/// ```
public struct HubRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    /// Filled in by the routes for the request's log line: never a token, never command data.
    let logDevice = RequestField<String>()
    /// The device the request was authenticated as: noted as seen once the request is answered, unless it is refused.
    let seenDevice = RequestField<DeviceRecord>()
    /// The refusal's code, for the log line (set by ``ErrorAnswers`` and ``UnknownRoutes``).
    let refusal = RequestField<String>()
    /// On a household's routes, the device whose token the request carries (``Authentication``).
    var device: AuthenticatedDevice?

    /// The client's address without its port: what the per-address limits count and the log names.
    /// The connection's, until ``ClientAddress`` reads what a trusted proxy says of it.
    var clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { SyncWire.maxRequestBytes }
    public var responseEncoder: AnswerEncoder { AnswerEncoder() }

    /// The authenticated device; a route outside the group ``Authentication`` guards has none (a mistake of the router's
    /// making: refused as a request without a token).
    func requireDevice() throws -> AuthenticatedDevice {
        guard let device else { throw HubError.unauthorized("this route takes Authorization: Bearer TOKEN") }
        return device
    }
}
