import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import ShopHub

/// Answers a request that HTTP parsing refused — a request line and headers over 80 KiB (a 500 KB
/// URL), bytes that are not HTTP/1.1 — with the hub's JSON error and one log line, then closes the
/// connection. Without it the client gets an empty, non-JSON 400 and nothing is logged. One a
/// connection, after Hummingbird's HTTP codec (`HTTP1Channel.Configuration.additionalChannelHandlers`).
final class UnreadableRequestHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundOut = HTTPResponsePart

    let logger: Logger
    /// Answered: what the client still sends is dropped, and so are the errors it makes the parser raise.
    private var answered = false

    init(logger: Logger) { self.logger = logger }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard !answered else { return }
        guard let failure = error as? HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        let refusal = Self.refusal(failure)
        let body = refusal.body
        let head = HTTPResponse(status: refusal.status, headerFields: [
            .contentType: "application/json", .contentLength: "\(body.count)", .connection: "close",
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
        // The request line was not read: nothing of it is logged, only what the parser found wrong.
        logger.info("request", metadata: [
            "route": "unreadable", "status": "\(refusal.status.code)", "client": "\(context.remoteAddress?.ipAddress ?? "unknown")",
            "error": "\(refusal.code)",
        ])
    }

    /// `bad_request`, saying what was wrong.
    static func refusal(_ failure: HTTPParserError) -> HubError {
        switch failure {
        case .headerOverflow:
            return .badRequest("the request's URL and headers are over 80 KiB together; no route of this hub has a URL that long")
        default:
            return .badRequest("the request is not HTTP/1.1 this hub can read (\(failure))")
        }
    }
}
