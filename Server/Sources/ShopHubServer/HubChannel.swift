import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTPTypes
import ShopHub
import Synchronization

/// What one connection may hold of the hub (`serve --head-timeout`, `--body-timeout`, `--idle-timeout`,
/// `--connections-per-address`). A connection that owes the hub bytes and does not send them is closed:
/// without these, a client that connects and sends nothing, or half a request, holds a socket and its
/// memory for as long as it likes.
struct ConnectionLimits: Sendable, Equatable {
    /// Seconds for a request's line and headers to arrive whole: from the connection's opening (a TLS
    /// handshake included), or from the first byte of a later request on it.
    var headSeconds = 10
    /// Seconds a request's body may go without a byte while the hub waits to read it.
    var bodySeconds = 30
    /// Seconds a connection may wait for its next request once its last answer is written. A request
    /// being answered is never idle: a long poll waits as long as it asked for.
    var idleSeconds = 75
    /// Connections open at once from one client address; the next is answered 503 `too_many_connections`
    /// and closed. A trusted proxy's connections are not counted: they carry every client's requests
    /// (the proxy limits its clients' connections itself).
    var perAddress = 100
}

/// The connections open from each client address, across the event loops; and the refusals not yet logged.
final class OpenConnections: Sendable {
    private let counts = Mutex<[String: Int]>([:])
    private let refusals = Mutex<(unlogged: Int, logged: ContinuousClock.Instant?)>((0, nil))

    /// One more refusal: how many to log now (this one and those not logged before it), or nil while a line was
    /// written less than a second ago. A flood of connections is a line a second in the log, not a line each.
    func refused() -> Int? {
        refusals.withLock { refusals in
            refusals.unlogged += 1
            let now = ContinuousClock.now
            if let logged = refusals.logged, logged.duration(to: now) < .seconds(1) { return nil }
            defer { refusals = (0, now) }
            return refusals.unlogged
        }
    }

    /// One more from `address`, unless it has `limit` open already (then nothing is counted): whether it was.
    func open(_ address: String, limit: Int) -> Bool {
        counts.withLock { counts in
            let open = counts[address, default: 0]
            guard open < limit else { return false }
            counts[address] = open + 1
            return true
        }
    }

    func close(_ address: String) {
        counts.withLock { counts in
            let left = counts[address, default: 1] - 1
            counts[address] = left > 0 ? left : nil
        }
    }

    func count(_ address: String) -> Int { counts.withLock { $0[address, default: 0] } }
}

/// Hummingbird's HTTP/1.1 channel, with the hub's watch over each connection: the per-address cap at
/// accept, and the deadlines of ``ConnectionDeadlines`` (a handler before the HTTP parser that sees the
/// bytes arrive and the hub ask for them, one after it that sees requests and answers begin and end).
/// Inside TLS when ``TLSChannel`` wraps it: then the deadlines see the bytes TLS has decrypted.
struct HubChannel: ServerChildChannel, HTTPChannelHandler {
    typealias Value = HTTP1Channel.Value

    let responder: HTTPChannelHandler.Responder
    let limits: ConnectionLimits
    let proxies: TrustedProxies
    let open: OpenConnections
    let logger: Logger

    /// Header fields a request may have (Hummingbird's parser refuses more than 1000 with the same error as
    /// 80 KiB of headers; the hub counts them itself so that its answer can say which limit was passed).
    static let maxHeaderFields = 1000
    /// The parser's own bound on header fields, above the hub's: it only keeps a request of many tiny fields
    /// from costing more than a few MiB of memory while it is parsed.
    static let parserHeaderFields = 10_000
    /// The URL and header fields together, in bytes (Hummingbird's parser's limit, kept).
    static let maxHeadBytes = 80 * 1024

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let peer = channel.remoteAddress?.ipAddress ?? "unknown"
        let (limits, open, hubLogger) = (self.limits, self.open, self.logger)
        let admitted: Bool
        if proxies.contains(peer) {
            admitted = true
        } else if open.open(peer, limit: limits.perAddress) {
            admitted = true
            channel.closeFuture.whenComplete { _ in open.close(peer) }
        } else {
            admitted = false
        }
        return channel.eventLoop.makeCompletedFuture { () -> NIOLoopBound<ConnectionDeadlines>? in
            guard admitted else {
                // No HTTP parser for a connection refused at once (it costs an attacker's flood nothing more).
                try channel.pipeline.syncOperations.addHandler(
                    TooManyConnections(refusal: Self.tooMany(limits.perAddress), client: peer, logged: open.refused(), logger: hubLogger))
                return nil
            }
            let deadlines = ConnectionDeadlines(limits: limits, channel: channel, client: peer, logger: hubLogger)
            try channel.pipeline.syncOperations.addHandler(ConnectionBytes(deadlines))
            return NIOLoopBound(deadlines, eventLoop: channel.eventLoop)
        }.flatMap { deadlines in
            guard let deadlines else {
                // Nothing reaches it (TooManyConnections drops what arrives): Hummingbird's handler sees the connection end.
                return channel.eventLoop.makeCompletedFuture { try Value(wrappingChannelSynchronously: channel) }
            }
            let configuration = HTTP1Channel.Configuration(
                additionalChannelHandlers: [UnreadableRequestHandler(logger: hubLogger, headBytes: { deadlines.value.headBytes }),
                                            ConnectionParts(deadlines.value)],
                httpDecoderConfiguration: .init(maxHeaderFieldSize: Self.maxHeadBytes, maxHeaderListSize: Self.maxHeadBytes,
                                                 maxHeaderFieldCount: Self.parserHeaderFields))
            return HTTP1Channel(responder: responder, configuration: configuration).setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: value, logger: logger)
    }

    /// The answer to a connection over the per-address cap.
    static func tooMany(_ limit: Int) -> HubError {
        HubError(.serviceUnavailable, "too_many_connections",
                 "this address has \(limit) connections open to the hub, the most it may: close one, or try again later", retryAfter: 10)
    }
}

/// A connection's clock: what it owes the hub and by when. A request's head is owed within
/// ``ConnectionLimits/headSeconds`` of the connection's opening (or of its first byte, on a kept-alive
/// connection); its body's next byte within ``ConnectionLimits/bodySeconds`` of the hub asking for it; the
/// next request within ``ConnectionLimits/idleSeconds`` of the last answer's end. While the hub answers,
/// nothing is owed. Past due, the connection is closed. Used on its channel's event loop only.
final class ConnectionDeadlines {
    enum Stall: String {
        case head = "head_timeout", body = "body_timeout", idle = "idle_timeout"
    }

    private let limits: ConnectionLimits
    private let channel: any Channel
    private let client: String
    private let logger: Logger
    /// A request's head arrived and its end has not.
    private var reading = false
    /// Requests whose head arrived and whose answer's end is not written yet.
    private var answering = 0
    /// When the head that is owed began to be: the connection's opening, then a later request's first byte.
    private var headSince: NIODeadline?
    /// When the last answer ended.
    private var idleSince: NIODeadline
    /// When the hub asked for bytes it has not had since (nil: it has had them, or asks for none).
    private var readSince: NIODeadline?
    private var timer: Scheduled<Void>?
    private var timerAt: NIODeadline?

    init(limits: ConnectionLimits, channel: any Channel, client: String, logger: Logger) {
        self.limits = limits
        self.channel = channel
        self.client = client
        self.logger = logger
        let now = NIODeadline.now()
        headSince = now
        idleSince = now
    }

    /// The first deadline: the head, from now.
    func start() { arm() }

    func readAsked() {
        if readSince == nil { readSince = .now() }
        arm()
    }

    /// Bytes that arrived since the last request's end: what the next head can be made of, at most.
    private(set) var headBytes = 0

    func bytesArrived(_ count: Int) {
        readSince = nil
        headBytes += count
        if !reading, headSince == nil { headSince = .now() }
        arm()
    }

    func headArrived() {
        reading = true
        answering += 1
        headSince = nil
        arm()
    }

    func endArrived() {
        reading = false
        headBytes = 0
        arm()
    }

    func answerEnded() {
        answering = max(0, answering - 1)
        if answering == 0 {
            let now = NIODeadline.now()
            idleSince = now
            // A request sent while the last was answered (pipelined) is owed from now: the hub reads it now.
            if headSince != nil { headSince = now }
        }
        arm()
    }

    func stop() {
        timer?.cancel()
        timer = nil
        timerAt = nil
    }

    /// What is owed next, and by when; nil while nothing is (an answer is being given, or the hub reads no body).
    private var due: (at: NIODeadline, stall: Stall)? {
        if reading { return readSince.map { ($0 + .seconds(Int64(limits.bodySeconds)), .body) } }
        if answering > 0 { return nil }
        if let headSince { return (headSince + .seconds(Int64(limits.headSeconds)), .head) }
        return (idleSince + .seconds(Int64(limits.idleSeconds)), .idle)
    }

    /// A timer at the next deadline, unless one is set for earlier (it looks again when it fires).
    private func arm() {
        guard channel.isActive, let due else { return }
        if let timerAt, timerAt <= due.at { return }
        timer?.cancel()
        timerAt = due.at
        timer = channel.eventLoop.assumeIsolated().scheduleTask(deadline: due.at) { [self] in fire() }
    }

    private func fire() {
        timer = nil
        timerAt = nil
        guard channel.isActive, let due else { return }
        guard due.at <= .now() else { return arm() }
        // A kept-alive connection closed when idle is ordinary; a head or a body that stalls is worth a line.
        logger.log(level: due.stall == .idle ? .debug : .info, "connection closed",
                   metadata: ["client": "\(client)", "error": "\(due.stall.rawValue)"])
        channel.close(promise: nil)
    }
}

/// Before the HTTP parser: tells ``ConnectionDeadlines`` when bytes arrive and when the hub asks for more.
final class ConnectionBytes: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let deadlines: ConnectionDeadlines
    init(_ deadlines: ConnectionDeadlines) { self.deadlines = deadlines }

    func handlerAdded(context: ChannelHandlerContext) { deadlines.start() }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        deadlines.bytesArrived(unwrapInboundIn(data).readableBytes)
        context.fireChannelRead(data)
    }

    func read(context: ChannelHandlerContext) {
        deadlines.readAsked()
        context.read()
    }

    func channelInactive(context: ChannelHandlerContext) {
        deadlines.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) { deadlines.stop() }
}

/// After the HTTP parser: tells ``ConnectionDeadlines`` when a request's head and end arrive and when an answer ends.
final class ConnectionParts: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let deadlines: ConnectionDeadlines
    init(_ deadlines: ConnectionDeadlines) { self.deadlines = deadlines }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadlines.headArrived()
        case .body: break
        case .end: deadlines.endArrived()
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { deadlines.answerEnded() }
        context.write(data, promise: promise)
    }
}

/// A connection over the per-address cap: answered 503 `too_many_connections` in the hub's JSON at once,
/// whatever it sends (read and dropped), and closed — by the client once it has the answer, or 2 s later.
final class TooManyConnections: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let refusal: HubError
    private let client: String
    /// The refusals this one's log line stands for (nil: none, one was logged less than a second ago).
    private let logged: Int?
    private let logger: Logger

    init(refusal: HubError, client: String, logged: Int?, logger: Logger) {
        self.refusal = refusal
        self.client = client
        self.logged = logged
        self.logger = logger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard context.channel.isActive else { return }
        answer(context)
    }

    func channelActive(context: ChannelHandlerContext) {
        answer(context)
        context.fireChannelActive()
    }

    private var answered = false

    private func answer(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let body = refusal.body
        // nosniff, as every answer of the API (HubMiddleware), though this one comes before any parser.
        var head = "HTTP/1.1 \(refusal.status.code) \(refusal.status.reasonPhrase)\r\nContent-Type: application/json\r\nX-Content-Type-Options: nosniff\r\n"
        head += "Content-Length: \(body.count)\r\n"
        if let after = refusal.retryAfter { head += "Retry-After: \(after)\r\n" }
        head += "Connection: close\r\n\r\n"
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(bytes: Array(head.utf8) + body))).whenComplete { _ in
            // Our side closed; what the client still sends is read and dropped, so that it gets the answer whole.
            channel.close(mode: .output).whenFailure { _ in channel.close(promise: nil) }
            _ = channel.eventLoop.scheduleTask(in: .seconds(2)) { channel.close(promise: nil) }
        }
        if let logged {
            logger.info("connection refused", metadata: ["client": "\(client)", "status": "\(refusal.status.code)", "error": "\(refusal.code)",
                                                         "count": "\(logged)"])
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { context.close(promise: nil) }
    }
}
