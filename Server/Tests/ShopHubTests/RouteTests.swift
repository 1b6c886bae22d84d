import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
@testable import ShopHubServer
import ShopEvents
import ShopHub
import ShopProjections
import ShopTestSupport
import Testing

// The hub's routes in process: the application `shop-hub serve` runs, made by `buildApplication`
// on a store of the test's own and driven through HummingbirdTesting's router client (no socket, no
// process), beside the process tests that start `shop-hub`. Whole answers: status, headers, body.

/// One in-process hub: its application's client, and the fixed time its clock reads.
struct RouteHub {
    /// What the hub's clock reads, always: invites' expiry and devices' times are known to the millisecond.
    static let now = Timestamp(millisecondsSince1970: 1_790_000_000_000)

    let client: any TestClientProtocol

    /// The configuration `serve --data FOLDER` (or `--postgres URL`) would make, with a fixed clock, a
    /// quiet log and `limits`.
    static func configuration(_ backend: Backend, in folder: URL, limits: HubLimits = HubLimits()) throws -> HubConfiguration {
        var configuration = HubConfiguration()
        configuration.port = 0
        configuration.level = .critical
        configuration.clock = Clock { now }
        configuration.limits = limits
        let store = try backend.newStore(in: folder)
        configuration.storage = backend == .files ? .files(directory: store)
            : .postgres(url: store, layout: backend == .partitioned ? .partitioned : .plain)
        return configuration
    }

    /// `body` against the application built from `configuration` (its services running, its database migrated).
    static func run(_ configuration: HubConfiguration, _ body: @Sendable (RouteHub) async throws -> Void) async throws {
        let app = try await buildApplication(configuration)
        try await app.test(.router) { client in try await body(RouteHub(client: client)) }
    }

    /// `body` against a hub on a new store of `backend`, in a folder removed afterwards.
    static func run(_ backend: Backend, limits: HubLimits = HubLimits(), _ body: @Sendable (RouteHub) async throws -> Void) async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        try await run(try configuration(backend, in: folder, limits: limits), body)
    }

    func call(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, body: [UInt8]? = nil,
              contentType: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let token { headers[.authorization] = "Bearer \(token)" }
        if let contentType { headers[.contentType] = contentType }
        return try await client.execute(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
    }

    func call(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: JSONValue) async throws -> TestResponse {
        try await call(method, path, token: token, body: SyncWire.line(json), contentType: "application/json")
    }

    /// A sync request's answer, decoded.
    func sync(_ household: String, token: String, _ request: SyncRequest) async throws -> SyncResponse {
        let answer = try await call(.post, "/v1/households/\(household)/sync", token: token, body: SyncWire.encode(request))
        return try RouteHub.decode(answer.bytes)
    }

    static func decode(_ body: [UInt8]) throws -> SyncResponse {
        var lines = body.split(separator: 0x0A).map(Array.init).makeIterator()
        return try SyncWire.readResponse { lines.next() }
    }

    /// A household made by `POST /v1/households`: its id and its first device's token.
    func newHousehold(device: String = "phone", actor: String = "ann") async throws -> (household: String, token: String) {
        let answer = try await call(.post, "/v1/households", json: .object([("device", .string(device)), ("actor", .string(actor))]))
        guard case let .object(pairs)? = try? JSONValue.parse(answer.bytes),
              let household = pairs.first(where: { $0.0 == "household" })?.1.stringValue,
              let token = pairs.first(where: { $0.0 == "token" })?.1.stringValue else {
            throw HubTestFailure("no household in \(String(decoding: answer.bytes, as: UTF8.self))")
        }
        return (household, token)
    }
}

extension TestResponse {
    var bytes: [UInt8] { Array(body.readableBytesView) }
    /// The answer as the tests compare it: status, content type, `Retry-After`, `WWW-Authenticate`, `Allow`, body.
    var whole: Whole {
        Whole(status.code, headers[.contentType], bytes, retryAfter: headers[.retryAfter], challenge: headers[.wwwAuthenticate], allow: headers[.allow])
    }
}

/// An answer's status, the headers the hub sets, and its body.
struct Whole: Equatable, CustomStringConvertible {
    var status: Int
    var contentType: String?
    var body: [UInt8]
    var retryAfter: String?
    var challenge: String?
    var allow: String?

    init(_ status: Int, _ contentType: String?, _ body: [UInt8], retryAfter: String? = nil, challenge: String? = nil, allow: String? = nil) {
        self.status = status; self.contentType = contentType; self.body = body
        self.retryAfter = retryAfter; self.challenge = challenge; self.allow = allow
    }

    /// A refusal as the hub answers it: its JSON error, and the headers its status carries.
    static func refusal(_ error: HubError, allow: String? = nil) -> Whole {
        Whole(Int(error.status.code), "application/json", error.body, retryAfter: error.retryAfter.map(String.init),
              challenge: error.status == .unauthorized ? "Bearer" : nil, allow: allow)
    }

    static func json(_ status: Int, _ value: JSONValue) -> Whole { Whole(status, "application/json", SyncWire.line(value)) }

    var description: String { "\(status) \(contentType ?? "-") \(String(decoding: body, as: UTF8.self))" }
}

@Suite("the hub's routes in process (buildApplication, HummingbirdTesting)", .serialized)
struct RouteTests {
    @Test("the probes and the metrics page; an unknown path 404, a known one with another method 405", arguments: [Backend.files])
    func probes(_ backend: Backend) async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = try RouteHub.configuration(backend, in: folder)
        let registry = PrometheusCollectorRegistry()
        PrometheusMetricsFactory(registry: registry).makeCounter(label: "route_tests_total", dimensions: []).increment(by: 3)
        configuration.metrics = registry
        try await RouteHub.run(configuration) { hub in
            #expect(try await hub.call(.get, "/healthz").whole == .json(200, .object([("status", "ok")])))
            #expect(try await hub.call(.get, "/readyz").whole == .json(200, .object([("status", "ready")])))
            let metrics = try await hub.call(.get, "/metrics").whole
            #expect(metrics == Whole(200, "text/plain; version=0.0.4", registry.emitToBuffer()))
            #expect(String(decoding: metrics.body, as: UTF8.self).contains("route_tests_total 3"))
            #expect(try await hub.call(.get, "/nothing/here").whole == .refusal(.notFound("no route GET /nothing/here")))
            #expect(try await hub.call(.put, "/healthz").whole == .refusal(.methodNotAllowed("/healthz takes GET"), allow: "GET"))
            #expect(try await hub.call(.get, "/v1/households").whole
                    == .refusal(.methodNotAllowed("/v1/households takes POST"), allow: "POST"))
        }
    }

    @Test("a household's life: create, hello, push, a retried push, pull, journal, report, invite, join, devices, revoke",
          arguments: [Backend.files])
    func aHouseholdsLife(_ backend: Backend) async throws { try await RouteTests.aHouseholdsLifeBody(backend) }

    @Test("a household's life — on PostgreSQL, plain and partitioned", .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [Backend.postgres, .partitioned])
    func aHouseholdsLifeOnPostgres(_ backend: Backend) async throws { try await RouteTests.aHouseholdsLifeBody(backend) }

    static func aHouseholdsLifeBody(_ backend: Backend) async throws {
        try await RouteHub.run(backend) { hub in
            let created = try await hub.call(.post, "/v1/households", json: .object([("device", "phone"), ("actor", "ann")]))
            let (household, token) = try Self.created(created, actor: "ann")
            let id = try #require(HouseholdID(household))

            // A new household's hello: no household in its journal yet, the empty head, the token's actor.
            let hello = try await hub.call(.post, "/v1/households/\(household)/sync", token: token,
                                           body: SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, device: "phone", actor: "ann")))
            #expect(hello.whole == Whole(200, "application/x-ndjson",
                                         SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, household: nil, head: .empty), enrolledActor: "ann")))

            // A push: answered as the stdio hub answers the same commands; the same push again, the same answer.
            let commands = [CommandEnvelope(.createHousehold(household: id, name: "Home", currency: "EUR", timeZone: "UTC"), id: CommandID()),
                            CommandEnvelope(.createItem(name: "Milk"), id: CommandID()),
                            CommandEnvelope(.addMember(member: "ann", role: .owner), id: CommandID()),
                            CommandEnvelope(.addMember(member: "ben", role: .member), id: CommandID())]
            let pushed = try await hub.sync(household, token: token, .push(commands: commands))
            let expected = try Self.stdioAnswer(.push(commands: commands), actor: "ann")
            #expect(pushed == expected)
            guard case let .results(results) = expected else { throw HubTestFailure("the stdio hub answered \(expected)") }
            #expect(results.map(\.command) == commands.map(\.id) && results.allSatisfy { $0.error == nil })
            #expect(results.flatMap(\.seqs) == Array(1...results.flatMap(\.seqs).count))
            #expect(try await hub.sync(household, token: token, .push(commands: commands)) == pushed)

            // The journal (an owner's), and a pull from the start: the same lines; the hello's head is the last one's.
            let journal = try await hub.call(.get, "/v1/households/\(household)/journal", token: token)
            let lines = journal.bytes.split(separator: 0x0A).map(Array.init)
            #expect(journal.whole == Whole(200, "application/x-ndjson", lines.flatMap { $0 + [0x0A] }))
            #expect(lines.count == results.flatMap(\.seqs).count)
            #expect(try await hub.sync(household, token: token, .pull(after: 0, hash: .zero)) == .lines(lines, more: false))
            let head = JournalHead(seq: lines.count, hash: SHA256.hash(try #require(lines.last)))
            #expect(try await hub.sync(household, token: token, .pull(after: head.seq, hash: head.hash)) == .lines([], more: false))
            let helloAgain = try await hub.call(.post, "/v1/households/\(household)/sync", token: token,
                                                body: SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, device: "phone", actor: "ann")))
            #expect(helloAgain.bytes == SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, household: id, head: head), enrolledActor: "ann"))

            // The report: the household's views folded from that journal, as `shop-replay report` folds a file.
            let report = try await hub.call(.get, "/v1/households/\(household)/report", token: token)
            #expect(report.whole == Whole(200, "text/html; charset=utf-8", Array(try Self.report(journal.bytes, head: head, household: household).utf8)))
            // In German where asked (as the web app asks in German); a language it has not, English.
            let german = try await hub.call(.get, "/v1/households/\(household)/report?lang=de", token: token)
            #expect(german.whole == Whole(200, "text/html; charset=utf-8", Array(try Self.report(journal.bytes, head: head, household: household, .german).utf8)))
            #expect(try await hub.call(.get, "/v1/households/\(household)/report?lang=fr", token: token).whole == report.whole)

            try await Self.inviteJoinAndRevoke(hub, household: household, owner: token)
        }
    }

    /// An owner invites ben, ben's tablet joins; the owner lists the devices, ben may not; the owner
    /// revokes the tablet, whose token is then refused.
    static func inviteJoinAndRevoke(_ hub: RouteHub, household: String, owner: String) async throws {
        let invited = try await hub.call(.post, "/v1/households/\(household)/invites", token: owner, json: .object([("actor", "ben")]))
        let week = Timestamp(millisecondsSince1970: RouteHub.now.millisecondsSince1970 + 7 * 24 * 3600 * 1000)
        let code = try #require(Self.field(invited.bytes, "code"))
        #expect(code.count == 11 && Secrets.canonicalCode(code) == code)
        #expect(invited.whole == .json(201, .object([("code", .string(code)), ("expires", .string(week.description))])))

        let joined = try await hub.call(.post, "/v1/join", json: .object([("code", .string(code.lowercased())), ("device", "tablet")]))
        let (joinedHousehold, tablet) = try Self.created(joined, actor: "ben")
        #expect(joinedHousehold == household)
        #expect(try await hub.call(.post, "/v1/join", json: .object([("code", .string(code)), ("device", "again")])).whole == .refusal(.unknownInvite))

        let devices = try await hub.call(.get, "/v1/households/\(household)/devices", token: owner)
        func device(_ name: String, _ actor: String, seen: Bool) -> JSONValue {
            .object([("device", .string(name)), ("actor", .string(actor)), ("created", .string(RouteHub.now.description)),
                     ("lastSeen", seen ? .string(RouteHub.now.description) : .null)])
        }
        #expect(devices.whole == .json(200, .object([("devices", .array([device("phone", "ann", seen: true), device("tablet", "ben", seen: false)]))])))
        #expect(try await hub.call(.get, "/v1/households/\(household)/devices", token: tablet).whole
                == .refusal(.forbidden("only an owner of the household may do this; ben is not one")))

        #expect(try await hub.call(.delete, "/v1/households/\(household)/devices/zed", token: owner).whole
                == .refusal(HubError(.notFound, "unknown_device", "household \(household) has no device named zed")))
        #expect(try await hub.call(.delete, "/v1/households/\(household)/devices/tablet", token: owner).whole == Whole(204, nil, []))
        #expect(try await hub.call(.get, "/v1/households/\(household)/report", token: tablet).whole == .refusal(.unknownToken))
    }

    @Test("the refusals: status, code, message and headers, byte for byte", arguments: [Backend.files])
    func refusals(_ backend: Backend) async throws {
        try await RouteHub.run(backend) { hub in
            let (household, token) = try await hub.newHousehold()
            let (other, otherToken) = try await hub.newHousehold(device: "laptop", actor: "cleo")
            let sync = "/v1/households/\(household)/sync"
            let create = CommandEnvelope(.createHousehold(household: try #require(HouseholdID(household)), name: "Home", currency: "EUR", timeZone: "UTC"),
                                         id: CommandID())
            guard case .results = try await hub.sync(household, token: token, .push(commands: [create])) else { throw HubTestFailure("the first push was refused") }
            // A pull that waits 61 seconds: the wire's pull with "wait" added.
            let pull = String(decoding: SyncWire.encode(.pull(after: 0, hash: .zero)), as: UTF8.self)
            let waitTooLong = Array(pull.replacingOccurrences(of: "}}\n", with: ",\"wait\":61}}\n").utf8)
            let cases: [(String, RouteHub.Request, HubError)] = [
                ("a body that is no object", .init(.post, "/v1/households", body: Array("nope".utf8), contentType: "application/json"),
                 .badRequest("the body is a JSON object")),
                ("a body sent as a form", .init(.post, "/v1/households", body: Array(#"{"device":"d","actor":"a"}"#.utf8), contentType: "text/plain"),
                 .unsupportedMediaType("text/plain")),
                ("a body sent with no type", .init(.post, "/v1/join", body: Array(#"{"code":"AAAAA-BBBBB","device":"d"}"#.utf8)),
                 .unsupportedMediaType(nil)),
                ("no device", .init(.post, "/v1/households", json: .object([("actor", "ann")])), .badRequest("\"device\" is required, a string")),
                ("a blank actor", .init(.post, "/v1/households", json: .object([("device", "d"), ("actor", "  ")])),
                 .badRequest("\"actor\" is 1 to 100 characters with no control characters")),
                ("a join with no code", .init(.post, "/v1/join", json: .object([("device", "d")])), .badRequest("join needs \"code\", a string")),
                ("a code never given", .init(.post, "/v1/join", json: .object([("code", "AAAAA-BBBBB"), ("device", "d")])), .unknownInvite),
                ("no token", .init(.get, "/v1/households/\(household)/devices"), .unauthorized("this route takes Authorization: Bearer TOKEN")),
                ("an unknown token", .init(.get, "/v1/households/\(household)/devices", token: "she_unknown"), .unknownToken),
                ("a household that is no id", .init(.get, "/v1/households/not-an-id/devices", token: token), .unknownHousehold("not-an-id")),
                ("another household's token", .init(.get, "/v1/households/\(other)/devices", token: token), .forbidden("the token is another household's")),
                ("an invite's life out of range", .init(.post, "/v1/households/\(other)/invites", token: otherToken, json: .object([("actor", "x"), ("expiresIn", .int(0))])),
                 .badRequest("\"expiresIn\" is a number of seconds from 1 to 2592000 (30 days)")),
                ("two request lines", .init(.post, sync, token: token, body: SyncWire.encode(.pull(after: 0, hash: .zero)) + SyncWire.encode(.pull(after: 0, hash: .zero))),
                 .badRequest("the body is one request line (hello, pull or push)")),
                ("an older protocol", .init(.post, sync, token: token, body: SyncWire.encode(.hello(protocol: 0, device: "phone", actor: "ann"))),
                 HubError(.badRequest, "unsupported_protocol", "this hub speaks protocol \(SyncWire.protocolVersion), the device 0: update the older one")),
                ("a history the hub does not have", .init(.post, sync, token: token, body: SyncWire.encode(.pull(after: 0, hash: SHA256.hash([1])))),
                 .conflict("diverged", "the device's history is not a prefix of the hub's: before seq 1 the hash is all zeros")),
                ("a pull waiting too long", .init(.post, sync, token: token, body: waitTooLong),
                 .badRequest("pull's \"wait\" is a number of seconds from 0 to 60")),
                ("a body over 1 MiB", .init(.post, sync, token: token, body: [UInt8](repeating: 0x20, count: SyncWire.maxRequestBytes + 1)),
                 .tooLarge(SyncWire.maxRequestBytes)),
            ]
            for (what, request, refusal) in cases {
                #expect(try await hub.call(request).whole == .refusal(refusal), "\(what)")
            }
        }
    }

    @Test("past a limit: 429 rate_limited with Retry-After", arguments: [Backend.files])
    func limits(_ backend: Backend) async throws {
        var limits = HubLimits()
        limits.householdsPerAddressPerHour = 1
        limits.joinsPerAddressPerMinute = 1
        try await RouteHub.run(backend, limits: limits) { hub in
            _ = try await hub.newHousehold()
            #expect(try await hub.call(.post, "/v1/households", json: .object([("device", "d"), ("actor", "a")])).whole
                    == .refusal(.rateLimited("1 households were created from this address in the last hour; at most 1", retryAfter: 3600)))
            let join = JSONValue.object([("code", "AAAAA-BBBBB"), ("device", "d")])
            #expect(try await hub.call(.post, "/v1/join", json: join).whole == .refusal(.unknownInvite))
            #expect(try await hub.call(.post, "/v1/join", json: join).whole
                    == .refusal(.rateLimited("too many join attempts from this address", retryAfter: 60)))
        }
    }

    // MARK: Helpers

    /// A `201` that enrolled a device: its household and token, the answer checked whole.
    static func created(_ answer: TestResponse, actor: String) throws -> (String, String) {
        let household = try #require(field(answer.bytes, "household")), token = try #require(field(answer.bytes, "token"))
        #expect(HouseholdID(household) != nil && token.hasPrefix("she_") && token.count == 47)
        #expect(answer.whole == .json(201, .object([("household", .string(household)), ("actor", .string(actor)), ("token", .string(token))])))
        return (household, token)
    }

    static func field(_ body: [UInt8], _ key: String) -> String? {
        guard case let .object(pairs)? = try? JSONValue.parse(body) else { return nil }
        return pairs.first { $0.0 == key }?.1.stringValue
    }

    /// What the stdio hub (`shop-replay hub`) answers `request` on a new journal.
    static func stdioAnswer(_ request: SyncRequest, actor: String) throws -> SyncResponse {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        return SyncHub(journal: folder.appendingPathComponent("hub.ndjson").path, as: actor, createsJournal: true).respond(to: request)
    }

    /// The report of a journal's bytes, folded as `shop-replay report` folds a file.
    static func report(_ journal: [UInt8], head: JournalHead, household: String, _ language: ReportLanguage = .english) throws -> String {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("copy.ndjson").path
        try Data(journal).write(to: URL(fileURLWithPath: path))
        let views = try ViewEngine.views(journal: path, useSnapshot: false).0
        var report = HouseholdReport(views: views, head: head, journal: "\(household).ndjson")
        report.language = language
        return report.html
    }
}

extension RouteHub {
    /// A request of a table of them.
    struct Request {
        var method: HTTPRequest.Method
        var path: String
        var token: String?
        var body: [UInt8]?
        var contentType: String?

        init(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, body: [UInt8]? = nil, contentType: String? = nil) {
            self.method = method; self.path = path; self.token = token; self.body = body; self.contentType = contentType
        }

        init(_ method: HTTPRequest.Method, _ path: String, token: String? = nil, json: JSONValue) {
            self.init(method, path, token: token, body: SyncWire.line(json), contentType: "application/json")
        }
    }

    func call(_ request: Request) async throws -> TestResponse {
        try await call(request.method, request.path, token: request.token, body: request.body, contentType: request.contentType)
    }
}
