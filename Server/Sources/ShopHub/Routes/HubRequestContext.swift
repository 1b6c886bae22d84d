import Hummingbird
import NIOCore
import ShopEvents

/// The request context: Hummingbird's, with the client's address (for the
/// per-address limits: the connection's, or the one a trusted proxy names, set by ``ClientAddress``)
/// and a 1 MiB body limit.
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

    /// The client's address without its port: what the per-address limits count and the log names.
    /// The connection's, until ``ClientAddress`` reads what a trusted proxy says of it.
    var clientAddress: String

    public init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        remoteAddress = source.channel.remoteAddress
        clientAddress = remoteAddress?.ipAddress ?? "unknown"
    }

    public var maxUploadSize: Int { SyncWire.maxRequestBytes }
}
