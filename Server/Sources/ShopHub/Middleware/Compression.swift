import CompressNIO
import Hummingbird
import NIOCore
import Synchronization

/// gzip for what a browser reads (docs/APP.md): the answers of `GET`
/// routes in JSON or HTML (the views, the report) of at least
/// ``minimumBytes``, to a client whose `Accept-Encoding` takes gzip. The web
/// app's own files come gzipped from ``WebApp`` (made once, at start); sync
/// answers are left as they are (`POST`, journal lines a device hashes).
///
/// ```swift
/// let router = Router(context: HubRequestContext.self)
/// router.add(middleware: Compression())
/// ```
public struct Compression: RouterMiddleware {
    public typealias Context = HubRequestContext
    /// Smaller answers go as they are: a packet either way.
    public static let minimumBytes = 1024
    /// Larger ones too: a whole journal is streamed, not held in memory twice.
    static let maximumBytes = 32 << 20

    public init() {}

    public func handle(_ request: Request, context: HubRequestContext,
                       next: (Request, HubRequestContext) async throws -> Response) async throws -> Response {
        var response = try await next(request, context)
        guard request.method == .get, response.status == .ok, response.headers[.contentEncoding] == nil,
              Self.acceptsGzip(request.headers[.acceptEncoding]),
              let type = response.headers[.contentType], type.hasPrefix("application/json") || type.hasPrefix("text/html") else {
            return response
        }
        // A body whose length is known and out of range goes as it is, unread.
        if let length = response.body.contentLength, length < Self.minimumBytes || length > Self.maximumBytes { return response }
        let collected = Collected()
        try await response.body.write(Collector(into: collected))
        let whole = collected.buffer.withLock { $0 }
        var body = whole
        response.headers[.vary] = "Accept-Encoding"
        if body.readableBytes >= Self.minimumBytes, body.readableBytes <= Self.maximumBytes, let packed = try? body.compress(with: .gzip()) {
            body = packed
            response.headers[.contentEncoding] = "gzip"
        } else {
            body = whole
        }
        response.headers[.contentLength] = "\(body.readableBytes)"
        response.body = ResponseBody(byteBuffer: body)
        return response
    }

    /// Whether an `Accept-Encoding` header takes gzip (`gzip`, `x-gzip` or `*`, with no `q=0`).
    public static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            let fields = part.split(separator: ";").map { $0.trimmingBlanks.lowercased() }
            guard let coding = fields.first, ["gzip", "x-gzip", "*"].contains(coding) else { continue }
            let refused = fields.dropFirst().contains { field in
                field.hasPrefix("q=") && (Double(field.dropFirst(2)) ?? 1) == 0
            }
            if !refused { return true }
        }
        return false
    }

    /// A response's body, taken whole.
    private final class Collected: Sendable {
        let buffer = Mutex(ByteBuffer())
    }

    /// Writes a response's body into a ``Collected``.
    private struct Collector: ResponseBodyWriter {
        let into: Collected
        mutating func write(_ buffer: ByteBuffer) async throws {
            into.buffer.withLock { whole in
                var buffer = buffer
                whole.writeBuffer(&buffer)
            }
        }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
    }
}
