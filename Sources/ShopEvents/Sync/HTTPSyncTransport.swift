import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A hosted hub (`shop-hub`, SPEC section 9) reached over HTTP(S) with
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

    public init(household url: URL, token: String, session: URLSession = .shared) {
        self.url = url
        self.token = token
        self.session = session
    }

    public func send(_ request: SyncRequest) async throws -> SyncResponse {
        try await send(SyncWire.encode(request), timeout: 60)
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
        return try await send(line, timeout: TimeInterval(seconds) + 30)
    }

    private func send(_ body: [UInt8], timeout: TimeInterval) async throws -> SyncResponse {
        var post = URLRequest(url: url.appendingPathComponent("sync"), timeoutInterval: timeout)
        post.httpMethod = "POST"
        post.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        post.setValue("application/x-ndjson", forHTTPHeaderField: "Content-Type")
        post.httpBody = Data(body)
        let (data, status) = try await HubHTTP.exchange(post, session: session, what: url.absoluteString)
        var lines = Array(data).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
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

/// A device's enrolment with a hosted hub (SPEC section 9): a new household
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

    /// `POST /v1/households`: a new household whose hub is empty; the device's
    /// first push creates it (`CreateHousehold` with ``household``).
    public static func createHousehold(hub: URL, device: String, actor: String,
                                       session: URLSession = .shared) async throws -> HubEnrolment {
        let answer = try await post(hub.appendingPathComponent("v1/households"),
                                    .object([("device", .string(device)), ("actor", .string(actor))]), session: session)
        return try enrolment(answer, hub: hub, actor: actor)
    }

    /// `POST /v1/join`: joins the household whose owner made `code` (it works once).
    public static func join(hub: URL, code: String, device: String, session: URLSession = .shared) async throws -> HubEnrolment {
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
    static func exchange(_ request: URLRequest, session: URLSession, what: String) async throws -> (Data, Int) {
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw SyncFailure(code: "hub_unreachable", message: "could not reach \(what): \(error.localizedDescription)")
        }
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        if status == 429 || status == 503 {
            let after = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Retry-After").map { ", retry after \($0) s" } ?? ""
            throw SyncFailure(code: "hub_unreachable", message: "the hub at \(what) is \(status == 429 ? "rate limiting this device" : "unavailable")\(after)")
        }
        return (data, status)
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
