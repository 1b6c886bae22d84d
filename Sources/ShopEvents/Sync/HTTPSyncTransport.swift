import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hosted hub (`shop-hub`, docs/HUB.md) reached over HTTP(S) with
/// Foundation's `URLSession`: each request is one `POST …/sync` whose body is
/// the request line and whose answer is the response.
///
/// `url` is the household's address on the hub
/// (`https://HOST/v1/households/H`), `token` the device's. A `429`, a `503`
/// and a dropped connection are `hub_unreachable` (nothing was changed: run
/// the sync again); every other refusal is the hub's own error code
/// (`unauthorized`, `forbidden`, `diverged`, …).
///
/// ```swift
/// let hub = HTTPSyncTransport(household: URL(string: "https://hub.example/v1/households/\(household)")!,
///                             token: token)
/// let report = try await SyncClient(journal: "phone.ndjson", options: .init(actor: "cleo")).sync(over: hub)
/// print(report.pulled, report.accepted)
/// ```
public struct HTTPSyncTransport: SyncTransport {
    /// The household on the hub: `https://HOST/v1/households/H`.
    public let url: URL
    private let token: String
    private let session: URLSession
    /// Whether the hub has answered a request of this transport: a connection that fails after it has, dropped.
    /// Whether the hub has answered this transport once.
    private let reached = Locked(false)

    public init(household url: URL, token: String, session: URLSession = .shared) {
        self.url = url
        self.token = token
        self.session = session
    }

    public func send(_ request: SyncRequest) async throws -> SyncResponse {
        try await send(SyncWire.encode(request), timeout: 60, kind: request.kind)
    }

    /// A pull that waits up to `seconds` (at most 60) for a line after
    /// `after` when there is none yet: the hub answers as soon as another
    /// device's push lands, so that an app's views change live.
    ///
    /// ```swift
    /// func follow(_ hub: HTTPSyncTransport, from head: JournalHead) async throws -> [[UInt8]] {
    ///     guard case let .lines(lines, _) = try await hub.pull(after: head.seq, hash: head.hash, waiting: 30) else { return [] }
    ///     return lines
    /// }
    /// ```
    public func pull(after seq: Int, hash: SHA256Digest, waiting seconds: Int) async throws -> SyncResponse {
        let line = SyncWire.line(.object([("pull", .object([("after", .int(seq)), ("hash", .string(hash.hex)),
                                                             ("wait", .int(seconds))]))]))
        return try await send(line, timeout: TimeInterval(seconds) + 30, kind: "pull")
    }

    /// The actor the hub enrolled this device's token as: a hosted hub's
    /// `hello` names it (docs/SYNC.md, "The protocol"). A device given only its token
    /// (`shop-replay clone --token`) asks this first, and makes its commands
    /// as that actor: the hub takes no other's. Throws the hub's refusal
    /// (`unauthorized`, `forbidden`, …), `hub_unreachable`, or `bad_response`
    /// from a hub that names no actor (one older than v4).
    ///
    /// ```swift
    /// let hub = HTTPSyncTransport(household: URL(string: "https://hub.example/v1/households/\(household)")!, token: token)
    /// let actor = try await hub.enrolledActor(device: "ben-phone")     // "ben"
    /// let replica = SyncClient(journal: "phone.ndjson", options: .init(actor: actor))
    /// ```
    public func enrolledActor(device: String) async throws -> String {
        let answer = try await post(SyncWire.encode(.hello(protocol: SyncWire.protocolVersion, device: device, actor: "")), timeout: 60, kind: "hello")
        switch try response(answer) {
        case .hello:
            let first = Array(answer.data.prefix { $0 != 0x0A })
            guard let actor = SyncWire.enrolledActor(inHello: first) else {
                throw SyncFailure(code: "bad_response", message: "the hub at \(url.absoluteString) does not say which actor this token was enrolled as (its hello names none: an older hub)")
            }
            return actor
        case let .error(failure): throw failure
        default: throw SyncFailure(code: "bad_response", message: "the hub did not answer hello with hello")
        }
    }

    private func send(_ body: [UInt8], timeout: TimeInterval, kind: String) async throws -> SyncResponse {
        try response(try await post(body, timeout: timeout, kind: kind))
    }

    private func post(_ body: [UInt8], timeout: TimeInterval, kind: String) async throws -> (data: Data, status: Int) {
        var post = URLRequest(url: url.appendingPathComponent("sync"), timeoutInterval: timeout)
        post.httpMethod = "POST"
        post.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        post.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(body)
        let answer = try await HubHTTP.exchange(post, session: session, what: url.absoluteString, sending: kind, reachedBefore: reached.withLock { $0 })
        reached.withLock { $0 = true }
        return answer
    }

    private func response(_ answer: (data: Data, status: Int)) throws -> SyncResponse {
        let status = answer.status
        var lines = Array(answer.data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
        let response: SyncResponse
        do {
            response = try SyncWire.readResponse { lines.next() }
        } catch {
            throw SyncFailure(code: "bad_response", message: "the hub answered HTTP \(status) with a body that is not the protocol's")
        }
        if status != 200, case .error = response { return response }
        guard status == 200 else {
            throw SyncFailure(code: "bad_response", message: "the hub answered HTTP \(status) without an error")
        }
        return response
    }
}

/// A device's enrolment with a hosted hub (docs/SYNC.md, "Devices of a hosted hub"): a new household
/// for the first phone, or a join code for the next ones. Each returns the
/// household's address and the device's token, which is shown once: keep it
/// as a secret (the tool keeps it in `J.token`, mode 0600).
///
/// ```swift
/// func enrol(hub: URL) async throws -> HTTPSyncTransport {
///     let first = try await HubEnrolment.createHousehold(hub: hub, device: "ana-phone", actor: "ana")
///     return HTTPSyncTransport(household: first.url, token: first.token)
/// }
/// ```
public struct HubEnrolment: Hashable, Sendable {
    public var household: HouseholdID
    /// Who the token's commands are by.
    public var actor: String
    /// The household on the hub: `https://HOST/v1/households/H`.
    public var url: URL
    /// The device's bearer token: a secret, shown once.
    public var token: String

    public init(household: HouseholdID, actor: String, url: URL, token: String) {
        self.household = household; self.actor = actor; self.url = url; self.token = token
    }

    /// The household a household's address names: `H` of `https://HOST/v1/households/H`; `nil` for any other address.
    ///
    /// ```swift
    /// HubEnrolment.household(of: URL(string: "https://hub.example/v1/households/\(household)")!)   // household
    /// HubEnrolment.household(of: URL(string: "https://hub.example")!)                              // nil
    /// ```
    public static func household(of url: URL) -> HouseholdID? {
        guard ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil,
              url.deletingLastPathComponent().lastPathComponent == "households" else { return nil }
        return HouseholdID(url.lastPathComponent)
    }

    /// The hub's own address, given it or an address under its `/v1/`:
    /// `https://HOST/v1/households/H` (a household's address, as `clone
    /// --token` takes it) is the hub `https://HOST`; a hub behind a path
    /// (`https://HOST/shop/v1/…`) keeps its path. Enrolment takes either.
    ///
    /// ```swift
    /// HubEnrolment.hub(of: URL(string: "https://hub.example/v1/households/\(household)")!)   // https://hub.example
    /// ```
    public static func hub(of url: URL) -> URL {
        let parts = url.path.split(separator: "/", omittingEmptySubsequences: true)
        guard let v1 = parts.lastIndex(where: { $0 == "v1" }),
              v1 == parts.count - 1 || ["households", "join"].contains(parts[v1 + 1]),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return url }
        components.path = parts[..<v1].map { "/" + $0 }.joined()
        components.query = nil
        components.fragment = nil
        return components.url ?? url
    }

    /// `POST /v1/households`: a new household whose hub is empty; the device's
    /// first push creates it (`CreateHousehold` with ``household``). `hub` is
    /// the hub's address, or any under its `/v1/` (see ``hub(of:)``).
    public static func createHousehold(hub: URL, device: String, actor: String,
                                       session: URLSession = .shared) async throws -> HubEnrolment {
        let hub = Self.hub(of: hub)
        let answer = try await post(hub.appendingPathComponent("v1/households"),
                                    .object([("device", .string(device)), ("actor", .string(actor))]), session: session)
        return try enrolment(answer, hub: hub, actor: actor)
    }

    /// `POST /v1/join`: joins the household whose owner made `code` (it works once).
    /// `hub` is the hub's address, or any under its `/v1/`, such as the household's (see ``hub(of:)``).
    public static func join(hub: URL, code: String, device: String, session: URLSession = .shared) async throws -> HubEnrolment {
        let hub = Self.hub(of: hub)
        let answer = try await post(hub.appendingPathComponent("v1/join"),
                                    .object([("code", .string(code)), ("device", .string(device))]), session: session)
        return try enrolment(answer, hub: hub, actor: nil)
    }

    private static func post(_ url: URL, _ body: JSONValue, session: URLSession) async throws -> [(String, JSONValue)] {
        var post = URLRequest(url: url, timeoutInterval: 30)
        post.httpMethod = "POST"
        post.setValue("application/json", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(SyncWire.line(body))
        let (data, status) = try await HubHTTP.exchange(post, session: session, what: url.absoluteString)
        guard case let .object(pairs)? = try? JSONValue.parse(Array(data)) else {
            throw SyncFailure(code: "bad_response", message: "the hub answered HTTP \(status) with a body that is not JSON")
        }
        if case let .object(error)? = pairs.first(where: { $0.0 == "error" })?.1 {
            throw SyncFailure(code: error.first(where: { $0.0 == "code" })?.1.stringValue ?? "bad_response",
                              message: error.first(where: { $0.0 == "message" })?.1.stringValue ?? "HTTP \(status)")
        }
        guard status == 201 else { throw SyncFailure(code: "bad_response", message: "the hub answered HTTP \(status)") }
        return pairs
    }

    private static func enrolment(_ pairs: [(String, JSONValue)], hub: URL, actor: String?) throws -> HubEnrolment {
        func field(_ key: String) -> String? { pairs.first(where: { $0.0 == key })?.1.stringValue }
        guard let id = field("household"), let household = HouseholdID(id), let token = field("token"),
              let actor = field("actor") ?? actor else {
            throw SyncFailure(code: "bad_response", message: "the hub's answer lacks household, actor or token")
        }
        return HubEnrolment(household: household, actor: actor,
                            url: hub.appendingPathComponent("v1/households/\(household)"), token: token)
    }
}

/// One HTTP exchange with a hub: a dropped connection, a 429 and a 503 are
/// `hub_unreachable` (try again later; nothing was changed).
enum HubHTTP {
    /// `kind` names what is sent (`push`, …) and `reachedBefore` whether the hub answered
    /// the same transport before: a connection that then fails dropped, whatever the socket says.
    static func exchange(_ request: URLRequest, session: URLSession, what: String, sending kind: String? = nil,
                         reachedBefore: Bool = false) async throws -> (Data, Int) {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SyncFailure(code: "hub_unreachable", message: unreachable(what, error, sending: kind, reachedBefore: reachedBefore))
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 429 || status == 503 {
            let after = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").map { ", retry after \($0) s" } ?? ""
            throw SyncFailure(code: "hub_unreachable", message: "the hub at \(what) is \(status == 429 ? "rate limiting this device" : "unavailable")\(after)")
        }
        return (data, status)
    }

    /// Why `what` could not be reached, in words that say what happened. A
    /// connection the hub (or something between) closed before it answered —
    /// or, when the hub had answered before, one that fails in any way, as
    /// when it went away and the client's retry finds nothing listening — is
    /// "dropped", not "failed to connect": the request may or may not have
    /// been taken, which the next sync settles from the hub's record.
    static func unreachable(_ what: String, _ error: any Error, sending kind: String?, reachedBefore: Bool) -> String {
        let dropped = "the connection to \(what) dropped before the hub answered\(kind.map { " the \($0)" } ?? "")"
        guard let failure = error as? URLError else {
            return reachedBefore ? dropped : "could not reach \(what): \(error.localizedDescription)"
        }
        switch failure.code {
        case .networkConnectionLost, .zeroByteResource, .badServerResponse:   // curl's "Empty reply from server" is the last
            return dropped
        case .timedOut:
            return "the hub at \(what) did not answer\(kind.map { " the \($0)" } ?? "") in time"
        case _ where reachedBefore:
            // curl retries a request whose reused connection was closed; its "Failed to connect" (any code) is the hub gone since.
            return dropped
        case .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet:
            return "could not connect to \(what): \(failure.localizedDescription)"
        default:
            return "could not reach \(what): \(failure.localizedDescription)"
        }
    }
}

/// Where a replica keeps its token for a hosted hub: `<journal>.token`,
/// mode 0600, never in `<journal>.sync` or in any output.
public enum HubToken {
    public static func save(_ token: String, journal path: String) throws(JournalError) {
        try DurableFile.writeAtomically(Array((token + "\n").utf8), to: JournalPath.absolute(path) + ".token", mode: 0o600)
    }

    public static func load(journal path: String) throws(JournalError) -> String {
        let file = JournalPath.absolute(path) + ".token"
        guard let data = FileManager.default.contents(atPath: file),
              let token = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else {
            throw JournalError(.notFound, "\(file) is missing or empty: a replica of a hosted hub keeps its device's token there")
        }
        return token
    }
}

private extension SyncRequest {
    /// The request's name, for a message.
    var kind: String {
        switch self {
        case .hello: "hello"
        case .pull: "pull"
        case .push: "push"
        }
    }
}
