import Foundation
import Hummingbird
import Logging
import Metrics
import NIOCore
import ServiceLifecycle
import ShopEvents
import ShopProjections
import Synchronization

/// The hub's routes (docs/HUB.md) over any ``HubStorage``.
///
/// ```swift
/// let storage = try FileHubStorage(directory: "shop-hub-data")
/// let router = HubRoutes(storage: storage).router()
/// let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 8080)))
/// _ = app
/// ```
public struct HubRoutes: Sendable {
    public let storage: any HubStorage
    public let limits: HubLimits
    let clock: Clock
    let watch = HeadWatch()
    let folds: HouseholdFolds
    let tokenLimiter: RateLimiter
    let joinLimiter: RateLimiter
    let metrics: (@Sendable () -> [UInt8])?
    let hubMetrics = HubMetrics()
    /// Whose requests name their client (`X-Forwarded-For`, `Forwarded`): the per-address limits count that client.
    let proxies: TrustedProxies

    /// `metricsText` renders `/metrics` (the Prometheus registry the process bootstrapped).
    public init(storage: any HubStorage, limits: HubLimits = HubLimits(), clock: Clock = .system,
                metricsText: (@Sendable () -> [UInt8])? = nil, proxies: TrustedProxies = TrustedProxies()) {
        self.storage = storage
        self.limits = limits
        self.proxies = proxies
        self.clock = clock
        folds = HouseholdFolds(storage: storage)
        tokenLimiter = RateLimiter(perSecond: limits.requestsPerTokenPerSecond, burst: limits.requestsPerTokenBurst)
        joinLimiter = RateLimiter(perSecond: Double(limits.joinsPerAddressPerMinute) / 60, burst: Double(max(1, limits.joinsPerAddressPerMinute)))
        metrics = metricsText
        // Pushes other processes committed wake this one's long polls too.
        if let pushes = storage.pushes() {
            Task { [watch] in for await household in pushes { watch.bump(household) } }
        }
    }

    /// Every route the hub answers, as `METHOD /path/{parameter}`: what the
    /// OpenAPI document describes, and what tells a wrong method (405) from
    /// an unknown path (404).
    public static let routes: [(method: HTTPRequest.Method, path: String)] = [
        (.post, "/v1/households"),
        (.post, "/v1/join"),
        (.post, "/v1/households/{household}/invites"),
        (.get, "/v1/households/{household}/invites"),
        (.delete, "/v1/households/{household}/invites/{invite}"),
        (.get, "/v1/households/{household}/devices"),
        (.delete, "/v1/households/{household}/devices/{device}"),
        (.post, "/v1/households/{household}/sync"),
        (.get, "/v1/households/{household}/report"),
        (.get, "/v1/households/{household}/journal"),
        (.get, "/v1/households/{household}/views/{view}"),
        (.get, "/healthz"),
        (.get, "/readyz"),
        (.get, "/metrics"),
    ]

    /// How long `/readyz` waits for the storage's answer before it answers 503.
    static let readyLimit: Duration = .milliseconds(500)

    public func router() -> Router<HubRequestContext> {
        let router = Router(context: HubRequestContext.self)
        router.add(middleware: ClientAddress(proxies: proxies))
        router.add(middleware: HubMiddleware(watch: watch, metrics: hubMetrics) { [storage, clock] device in
            await storage.seen(device, at: clock.now())
        })
        // Before the routes: a Hummingbird router's middleware wraps the routes added after it.
        router.add(middleware: Compression())
        router.post("/v1/households") { request, context in try await createHousehold(request, context) }
        router.post("/v1/join") { request, context in try await join(request, context) }
        router.post("/v1/households/:household/invites") { request, context in try await invite(request, context) }
        router.get("/v1/households/:household/invites") { request, context in try await listInvites(request, context) }
        router.delete("/v1/households/:household/invites/:invite") { request, context in try await cancelInvite(request, context) }
        router.get("/v1/households/:household/devices") { request, context in try await listDevices(request, context) }
        router.delete("/v1/households/:household/devices/:device") { request, context in try await revoke(request, context) }
        router.post("/v1/households/:household/sync") { request, context in try await sync(request, context) }
        router.get("/v1/households/:household/report") { request, context in try await report(request, context) }
        router.get("/v1/households/:household/journal") { request, context in try await journal(request, context) }
        router.get("/v1/households/:household/views/:view") { request, context in try await view(request, context) }
        router.get("/healthz") { _, _ in Self.json(.ok, .object([("status", "ok")])) }
        router.get("/readyz") { _, _ in
            // Within a second, also when the database is down (a pool waits for a connection far longer);
            // half of it for the storage, the rest for a busy machine.
            let late = HubError.unavailable("the storage did not answer within \(Self.readyLimit)")
            do { try await within(Self.readyLimit, else: late) { try await storage.checkReady() } } catch { throw Self.storageError(error) }
            return Self.json(.ok, .object([("status", "ready")]))
        }
        router.get("/metrics") { _, _ in
            Response(status: .ok, headers: [.contentType: "text/plain; version=0.0.4"],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: metrics?() ?? [])))
        }
        return router
    }

    // MARK: Households and devices

    private func createHousehold(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        try Self.requireJSON(request)
        let body = try await Self.object(request, context, limit: limits.maxBodyBytes)
        let device = try Self.name(body, "device"), actor = try Self.name(body, "actor")
        let now = clock.now()
        let hourAgo = Timestamp(millisecondsSince1970: now.millisecondsSince1970 - 3_600_000)
        let created = try await storageCall { try await storage.householdsCreated(from: context.clientAddress, since: hourAgo) }
        guard created < limits.householdsPerAddressPerHour else {
            throw HubError.rateLimited("\(created) households were created from this address in the last hour; at most \(limits.householdsPerAddressPerHour)", retryAfter: 3600)
        }
        let household = HouseholdID(), token = Secrets.token()
        let record = DeviceRecord(household: household, name: device, actor: actor, tokenHash: TokenHash(of: token), created: now)
        try await storageCall { try await storage.createHousehold(household, firstDevice: record, from: context.clientAddress) }
        Counter(label: "shop_hub_households_created_total").increment()
        return Self.json(.created, .object([("household", .string(household.description)), ("actor", .string(actor)), ("token", .string(token))]),
                         keptNowhere: true)
    }

    private func join(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        // Before the join's quota is spent: another website's form post spends none.
        try Self.requireJSON(request)
        if let wait = joinLimiter.take(context.clientAddress, now: Self.seconds(clock)) {
            throw HubError.rateLimited("too many join attempts from this address", retryAfter: wait)
        }
        let body = try await Self.object(request, context, limit: limits.maxBodyBytes)
        guard let typed = body["code"]?.stringValue else { throw HubError.badRequest("join needs \"code\", a string") }
        let device = try Self.name(body, "device")
        let token = Secrets.token(), now = clock.now()
        let redeemed = try await storageCall {
            try await storage.redeemInvite(codeHash: TokenHash(of: Secrets.canonicalCode(typed)), at: now) { invite in
                DeviceRecord(household: invite.household, name: device, actor: invite.actor, tokenHash: TokenHash(of: token), created: now)
            }
        }
        guard let (invite, _) = redeemed else { throw HubError.unknownInvite }
        return Self.json(.created, .object([("household", .string(invite.household.description)), ("actor", .string(invite.actor)),
                                            ("token", .string(token))]), keptNowhere: true)
    }

    private func invite(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        // After the token (no form of another website carries one): a request without one is told so first.
        try Self.requireJSON(request)
        try await requireOwner(device, household)
        let body = try await Self.object(request, context, limit: limits.maxBodyBytes)
        let actor = try Self.name(body, "actor")
        var seconds = limits.defaultInviteSeconds
        if let given = body["expiresIn"] {
            guard let value = given.intValue, value > 0, value <= limits.maxInviteSeconds else {
                throw HubError.badRequest("\"expiresIn\" is a number of seconds from 1 to \(limits.maxInviteSeconds) (30 days)")
            }
            seconds = value
        }
        let code = Secrets.joinCode(), now = clock.now()
        let expires = Timestamp(millisecondsSince1970: now.millisecondsSince1970 + Int64(seconds) * 1000)
        try await storageCall {
            try await storage.addInvite(InviteRecord(household: household, codeHash: TokenHash(of: code), actor: actor, expires: expires, by: device.name))
        }
        return Self.json(.created, .object([("code", .string(code)), ("expires", .string(expires.description))]))
    }

    /// The outstanding invites (owners): who each is for, which device made it, when it expires; never its code.
    private func listInvites(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        try await requireOwner(device, household)
        let invites = try await storageCall { try await storage.invites(of: household, at: clock.now()) }
        return Self.json(.ok, .object([("invites", .array(invites.map { i in
            .object([("id", .string(i.id)), ("actor", .string(i.actor)), ("by", .string(i.by)), ("expires", .string(i.expires.description))])
        }))]))
    }

    /// Cancels an outstanding invite (owners): its code is refused at join from then on, as an unknown one.
    private func cancelInvite(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        try await requireOwner(device, household)
        let sent = context.parameters.get("invite") ?? ""
        let id = sent.removingPercentEncoding ?? sent
        guard try await storageCall({ try await storage.cancelInvite(id, of: household, at: clock.now()) }) else {
            throw HubError(.notFound, "unknown_invite", "household \(household) has no outstanding invite \(HubError.bounded(id))")
        }
        return Response(status: .noContent)
    }

    private func listDevices(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        try await requireOwner(device, household)
        let devices = try await storageCall { try await storage.devices(of: household) }
        return Self.json(.ok, .object([("devices", .array(devices.map { d in
            .object([("device", .string(d.name)), ("actor", .string(d.actor)), ("created", .string(d.created.description)),
                     ("lastSeen", d.lastSeen.map { .string($0.description) } ?? .null)])
        }))]))
    }

    private func revoke(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        // The router hands the path's segment over as sent: "Ana's phone" arrives as Ana's%20phone.
        guard let sent = context.parameters.get("device") else { throw HubError.badRequest("no device named") }
        let name = sent.removingPercentEncoding ?? sent
        if name != device.name { try await requireOwner(device, household) }
        let now = clock.now()
        guard try await storageCall({ try await storage.revokeDevice(name, of: household, at: now) }) else {
            throw HubError(.notFound, "unknown_device", "household \(household) has no device named \(HubError.bounded(name))")
        }
        // The household's waiting polls wake and check their tokens: the revoked device's answers 401 now, not when its wait ends.
        watch.bump(household)
        return Response(status: .noContent)
    }

    // MARK: Sync

    private func sync(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context, forSync: true)
        let bytes = try await Self.body(request, limit: limits.maxBodyBytes)
        var line = bytes
        if line.last == 0x0A { line.removeLast() }
        if line.contains(0x0A) { throw HubError.badRequest("the body is one request line (hello, pull or push)") }
        let syncRequest: SyncRequest
        do { syncRequest = try SyncWire.decodeRequest(line) } catch { throw HubError.badRequest(error.message) }
        // Read again only for a pull (a push's body may be a MiB): the wire checked `wait`, and keeps none.
        let wait: Double = if case .pull = syncRequest { min(try Self.wait(line, max: 60), Double(limits.maxWaitSeconds)) } else { 0 }
        let started = ContinuousClock.now
        var answer: SyncResponse
        let generation = watch.generation(household)
        do {
            answer = try await storageCall { try await storage.sync(household, syncRequest, as: device.actor, token: device.tokenHash) }
            if case let .pull(after, hash) = syncRequest, wait > 0 {
                answer = try await longPoll(household, after: after, hash: hash, device: device, until: started + .seconds(wait),
                                            seen: generation, first: answer)
            }
        } catch let refusal as HubError where refusal.code == HubError.unknownToken.code {
            // Found revoked by the statement that answered: why, as the token's record says.
            throw await deadToken(device.tokenHash)
        }
        if case let .push(commands) = syncRequest, case let .results(results) = answer {
            try await removeMembers(commands, results, of: household)
        }
        let seconds = started.duration(to: .now).seconds
        switch answer {
        case let .results(results):
            let accepted = results.filter(\.ok).count
            hubMetrics.commandsAccepted.increment(by: accepted)
            hubMetrics.commandsRejected.increment(by: results.count - accepted)
            hubMetrics.pushSeconds.recordSeconds(seconds)
            if accepted > 0 { watch.bump(household) }
        case let .lines(lines, _):
            hubMetrics.linesPulled.increment(by: lines.count)
            if wait == 0 { hubMetrics.pullSeconds.recordSeconds(seconds) }
        case let .error(failure):
            throw Self.syncError(failure)
        case .hello:
            break
        }
        // A hello names the token's actor: a device given only its token learns whose commands it makes.
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: SyncWire.encode(answer, enrolledActor: device.actor))))
    }

    /// A pull whose `first` answer has no line waits for one after `after` (docs/HUB.md): it answers with
    /// such lines, or with none once `deadline` has passed or the server stops. A wake-up that brings no line
    /// (a late `NOTIFY` of lines the device has read already, a retried push answered from its record) waits
    /// again. The token is checked again when the answer is given, on every storage: a device revoked while
    /// it waited is answered `unauthorized`.
    private func longPoll(_ household: HouseholdID, after: Int, hash: SHA256Digest, device: DeviceRecord, until deadline: ContinuousClock.Instant,
                          seen: Int, first: SyncResponse) async throws -> SyncResponse {
        var answer = first, generation = seen
        while case let .lines(lines, _) = answer, lines.isEmpty, !watch.isStopped {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { break }
            await withGracefulShutdownHandler {
                await watch.wait(household, after: generation, seconds: left.seconds)
            } onGracefulShutdown: {
                watch.stop()
            }
            generation = watch.generation(household)
            // Every wake-up checks the token again: a revoke wakes the household's polls, so a revoked phone hears at once.
            try await requireLive(device)
            answer = try await storageCall { try await storage.sync(household, .pull(after: after, hash: hash), as: device.actor, token: device.tokenHash) }
            // Its own member's removal, committed while it waited (on any process, whose revocation may still be on its
            // way): the device is out from that line on.
            if case let .lines(lines, _) = answer, Self.removes(device.actor, in: lines) { throw HubError.memberRemoved }
        }
        // Every wait ended in the token's check above: the answer goes to a live token.
        return answer
    }

    /// `unauthorized` (or `member_removed`) unless the device's token is still enrolled and not revoked.
    private func requireLive(_ device: DeviceRecord) async throws {
        guard let current = try await storageCall({ try await storage.device(tokenHash: device.tokenHash) }), current.revoked == nil else {
            throw await deadToken(device.tokenHash)
        }
    }

    /// The refusal of a token that is not live: `member_removed` if its device was revoked because its member
    /// was removed from the household, `unauthorized` for any other (unknown, revoked, or not to be looked up now).
    func deadToken(_ hash: TokenHash) async -> HubError {
        guard let device = try? await storage.device(tokenHash: hash), device.revoked != nil, device.memberRemoved else { return .unknownToken }
        return .memberRemoved
    }

    /// After a push: every member an accepted `RemoveMember` removed loses every device at once, on every
    /// process (their polls wake and are refused), and their outstanding invites; adding them again takes a
    /// new invite. Done before the push is answered: a push whose answer is lost is sent again, answered from
    /// its record, and removes again.
    private func removeMembers(_ commands: [CommandEnvelope], _ results: [PushResult], of household: HouseholdID) async throws {
        let accepted = Set(results.filter(\.ok).map(\.command))
        var removed: [String] = []
        for envelope in commands {
            guard let id = envelope.id, accepted.contains(id), case let .removeMember(member) = envelope.command, !removed.contains(member) else { continue }
            removed.append(member)
        }
        guard !removed.isEmpty else { return }
        let now = clock.now()
        for member in removed {
            _ = try await storageCall { try await storage.removeMember(member, of: household, at: now) }
        }
        watch.bump(household)
    }

    /// Whether `lines` record the removal of `actor` from the household (a `MemberRemoved` of it).
    static func removes(_ actor: String, in lines: [[UInt8]]) -> Bool {
        lines.contains { line in
            guard String(decoding: line, as: UTF8.self).contains("\"MemberRemoved\""),
                  case let .event(recorded)? = try? EventLineCodec.decodeLine(line), case let .memberRemoved(member) = recorded.event else { return false }
            return member == actor
        }
    }

    /// `"wait"` of a pull, any number of seconds from 0 to `max` (`1.5` too): 0 when absent.
    private static func wait(_ line: [UInt8], max: Double) throws -> Double {
        guard case let .object(pairs)? = try? JSONValue.parse(line), case let .object(pull)? = pairs.first(where: { $0.0 == "pull" })?.1,
              let given = pull.first(where: { $0.0 == "wait" })?.1 else { return 0 }
        guard let seconds = given.doubleValue, seconds >= 0, seconds <= max else {
            throw HubError.badRequest("pull's \"wait\" is a number of seconds from 0 to \(Int(max))")
        }
        return seconds
    }

    private static func syncError(_ failure: SyncFailure) -> HubError {
        switch failure.code {
        case "diverged": return HubError(.conflict, failure.code, failure.message)
        case "bad_request", "unsupported_protocol": return HubError(.badRequest, failure.code, failure.message)
        default: return HubError.unavailable("the household's journal cannot be used now (\(failure.code): \(failure.message))")
        }
    }

    // MARK: Report and journal

    private func report(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, _) = try await authenticate(request, &context)
        let (views, head) = try await storageCall { try await folds.views(household) }
        let html = HouseholdReport(views: views, head: head, journal: "\(household).ndjson").html
        // A page of the household's own words under the web app's policy (no script runs in it, nothing is loaded
        // from elsewhere), read as HTML only, and kept in no cache.
        var headers = WebApp.securityHeaders()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers,
                        body: ResponseBody(byteBuffer: ByteBuffer(string: html)))
    }

    private func journal(_ request: Request, _ context: HubRequestContext) async throws -> Response {
        var context = context
        let (household, device) = try await authenticate(request, &context)
        try await requireOwner(device, household)
        let bytes = try await storageCall { try await storage.journal(household) }
        return Response(status: .ok, headers: [.contentType: "application/x-ndjson"],
                        body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    // MARK: Identity

    /// The household of the path and the device whose bearer token the request carries:
    /// `unauthorized` without a live token, `unknown_household`, `forbidden` for another household's token,
    /// `rate_limited` past the token's rate.
    /// `forSync`: the storage may answer from memory, and checks the token again as it answers the sync.
    func authenticate(_ request: Request, _ context: inout HubRequestContext, forSync: Bool = false) async throws -> (HouseholdID, DeviceRecord) {
        // A path's household that is no id is no household: nothing is looked up for it.
        guard let text = context.parameters.get("household"), let household = HouseholdID(text) else {
            throw HubError.unknownHousehold(context.parameters.get("household") ?? "")
        }
        guard let token = Self.bearerToken(request.headers[.authorization]) else {
            throw HubError.unauthorized("this route takes Authorization: Bearer TOKEN")
        }
        let hash = TokenHash(of: String(token))
        let rate = limits.requestsPerTokenPerSecond, burst = limits.requestsPerTokenBurst
        guard let (device, decision) = try await storageCall({
                  forSync ? try await storage.authenticateForSync(tokenHash: hash, rate: rate, burst: burst, at: clock.now())
                          : try await storage.authenticate(tokenHash: hash, rate: rate, burst: burst, at: clock.now())
              }),
              device.tokenHash.matches(hash), device.revoked == nil else {
            throw await deadToken(hash)
        }
        let wait: Int?
        switch decision {
        case .notKept: wait = tokenLimiter.take(hash.hex, now: Self.seconds(clock))
        case .allowed: wait = nil
        case let .limited(retryAfter): wait = retryAfter
        }
        if let wait {
            throw HubError.rateLimited("more than \(Int(rate)) requests a second from this device", retryAfter: wait)
        }
        if device.household != household {
            // Asked only then: a device's own household exists.
            guard try await storageCall({ try await storage.householdExists(household) }) else { throw HubError.unknownHousehold(text) }
            throw HubError.forbidden("the token is another household's")
        }
        context.logDevice.set(device.name)
        context.seenDevice.set(device)
        return (household, device)
    }

    /// The token of an `Authorization` header of the Bearer scheme, whose name is case-insensitive
    /// (RFC 9110): `Bearer T`, `bearer T`, `BEARER T`; nil for any other header or none.
    static func bearerToken(_ header: String?) -> Substring? {
        guard let header, let space = header.firstIndex(where: { $0 == " " || $0 == "\t" }),
              header[..<space].lowercased() == "bearer" else { return nil }
        let token = header[space...].trimmingBlanks
        return token.isEmpty ? nil : token
    }

    private func requireOwner(_ device: DeviceRecord, _ household: HouseholdID) async throws {
        guard try await storageCall({ try await folds.isOwner(device.actor, of: household) }) else {
            throw HubError.forbidden("only an owner of the household may do this; \(device.actor) is not one")
        }
    }

    // MARK: Bodies and answers

    static func body(_ request: Request, limit: Int) async throws -> [UInt8] {
        var buffer: ByteBuffer
        do { buffer = try await request.body.collect(upTo: limit) } catch { throw HubError.tooLarge(limit) }
        return buffer.readBytes(length: buffer.readableBytes) ?? []
    }

    /// The body as a JSON object; `bad_request` if it is not one.
    static func object(_ request: Request, _ context: HubRequestContext, limit: Int) async throws -> [String: JSONValue] {
        let bytes = try await body(request, limit: limit)
        guard case let .object(pairs)? = try? JSONValue.parse(bytes) else { throw HubError.badRequest("the body is a JSON object") }
        return Dictionary(pairs, uniquingKeysWith: { first, _ in first })
    }

    /// A device's or an actor's name: 1 to 100 characters, no control characters.
    static func name(_ body: [String: JSONValue], _ key: String) throws -> String {
        guard let text = body[key]?.stringValue else { throw HubError.badRequest("\"\(key)\" is required, a string") }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 100, !trimmed.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw HubError.badRequest("\"\(key)\" is 1 to 100 characters with no control characters")
        }
        return trimmed
    }

    /// A JSON answer; `keptNowhere` for one that carries a token: no cache keeps it (`Cache-Control: no-store`).
    static func json(_ status: HTTPResponse.Status, _ value: JSONValue, keptNowhere: Bool = false) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if keptNowhere { headers[.cacheControl] = "no-store" }
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: SyncWire.line(value))))
    }

    /// `unsupported_media_type` (415) unless the body is declared `application/json` (parameters such as
    /// `; charset=utf-8` allowed): a plain form another website posts is refused before any work.
    static func requireJSON(_ request: Request) throws {
        let sent = request.headers[.contentType]
        let type = sent?.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?.trimmingBlanks.lowercased()
        guard type == "application/json" else { throw HubError.unsupportedMediaType(sent) }
    }

    static func seconds(_ clock: Clock) -> Double { Double(clock.now().millisecondsSince1970) / 1000 }

    /// A storage call: a ``HubError`` stays itself, anything else is `unavailable` (503: try again).
    func storageCall<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch { throw Self.storageError(error) }
    }

    static func storageError(_ error: any Error) -> HubError {
        if let hub = error as? HubError { return hub }
        if let shop = error as? any ShopError { return HubError.unavailable("storage: \(shop.code): \(shop.message)") }
        return HubError.unavailable("storage: \(error)")
    }
}
