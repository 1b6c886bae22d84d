import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ShopHub

/// Answers a request that HTTP parsing refused — a request line and headers over 80 KiB (a 500 KB
/// URL), bytes that are not HTTP/1.1 — or whose head has more header fields than the hub takes, with
/// the hub's JSON error and one log line, then closes the connection. Without it the client gets an empty, non-JSON 400 and nothing is logged. One a
/// connection, after Hummingbird's HTTP codec (`HTTP1Channel.Configuration.additionalChannelHandlers`).
final class UnreadableRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    let logger: Logger
    /// Answered: what the client still sends is dropped, and so are the errors it makes the parser raise.
    private var answered = false

    /// The bytes the connection sent since its last request ended (``ConnectionDeadlines/headBytes``): fewer than
    /// 80 KiB, and a head the parser refused as too big was refused for its number of fields.
    let headBytes: (() -> Int)?

    init(logger: Logger, headBytes: (() -> Int)? = nil) {
        self.logger = logger
        self.headBytes = headBytes
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return }
        guard let failure = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        refuse(context, Self.refusal(failure, headBytes: headBytes?()))
    }

    /// A head with more header fields than the hub takes is refused here, naming that limit; what
    /// follows it on the connection is dropped.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        if case let .head(head) = unwrapInboundIn(data) {
            // The parser moved `Host` into the request's authority: it is a field the client sent all the same.
            let fields = head.headerFields.count + (head.authority == nil ? 0 : 1)
            if fields > HubChannel.maxHeaderFields {
                return refuse(context, .badRequest("the request has \(fields) header fields; at most \(HubChannel.maxHeaderFields)"))
            }
        }
        context.fireChannelRead(data)
    }

    private func refuse(_ context: ChannelHandlerContext, _ refusal: HubError) {
        answered = true
        let body = refusal.body
        let head = HTTPResponse(status: refusal.status, headerFields: [
            .contentType: "application/json", .contentLength: "\(body.count)", .connection: "close",
            .xContentTypeOptions: "nosniff",   // as every answer of the API (HubMiddleware), also before any route
        ])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.write(wrapOutboundOut(.body(ByteBuffer(bytes: body))), promise: nil)
        // The client may still be sending (the rest of a 500 KB URL): closing at once would reset the
        // connection and lose the answer. Our side is closed; what arrives is read and dropped, for a while.
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            _ = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
        // The request line was not read, or is not taken: nothing of it is logged, only what was wrong.
        logger.info("request", metadata: [
            "route": "unreadable", "status": "\(refusal.status.code)", "client": "\(context.remoteAddress?.ipAddress ?? "unknown")",
            "error": "\(refusal.code)",
        ])
    }

    /// `bad_request`, saying what was wrong.
    static func refusal(_ failure: HTTPParserError, headBytes: Int? = nil) -> HubError {
        switch failure {
        case .headerOverflow:
            // The parser has two limits (HubChannel) and one error for both: 80 KiB of URL and headers, and a bound
            // on header fields far above the hub's own (which ``channelRead(context:data:)`` names). A head sent in
            // fewer bytes than 80 KiB passed the second.
            if let headBytes, headBytes < HubChannel.maxHeadBytes {
                return .badRequest("the request has over \(HubChannel.parserHeaderFields) header fields; at most \(HubChannel.maxHeaderFields)")
            }
            return .badRequest("the request's URL and headers are over 80 KiB together; no route of this hub has a URL that long")
        default:
            return .badRequest("the request is not HTTP/1.1 this hub can read (\(failure))")
        }
    }
}
