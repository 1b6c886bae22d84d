import Foundation
import ShopEvents
import ShopTestSupport
import Testing
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

/// The built programs: `shop-hub` next to this test runner, `shop-replay` from
/// the root package's build (`swift build` at the repository's root first, as
/// the README says), or `$SHOP_REPLAY`.
enum Programs {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// `SHOP_HUB` if it names a program (another build's), else the `shop-hub` built beside the tests.
    static let shopHub: String = {
        if let given = ProcessInfo.processInfo.environment["SHOP_HUB"], FileManager.default.isExecutableFile(atPath: given) { return given }
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shop-hub").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return "shop-hub"
    }()

    /// Points ``ToolRunner`` at the root package's `shop-replay`; fails the test, saying how, if there is none.
    static func prepare() throws {
        if let given = ProcessInfo.processInfo.environment["SHOP_REPLAY"], FileManager.default.isExecutableFile(atPath: given) { return }
        for build in [".build/debug", ".build/release"] {
            let candidate = repository.appendingPathComponent(build).appendingPathComponent("shop-replay").path
            if FileManager.default.isExecutableFile(atPath: candidate) {
                setenv("SHOP_REPLAY", candidate, 1)
                return
            }
        }
        Issue.record("no shop-replay: run `swift build` at the repository's root before `swift test --package-path Server`, or set SHOP_REPLAY")
        throw CancellationError()
    }
}

/// Which storage a test's hubs use: the embedded files, or PostgreSQL with
/// plain or hash-partitioned tables (a database of the test's own in the
/// cluster `$PGHOST`/`$PGPORT`/`$PGUSER`/`$PGPASSWORD` name, as
/// `pg_virtualenv` sets them).
enum Backend: String, CustomStringConvertible, Sendable, CaseIterable {
    case files, postgres, partitioned
    var description: String { rawValue }

    /// The cluster's address, if the environment names one.
    static let cluster: (host: String, port: String, user: String, password: String)? = {
        let env = ProcessInfo.processInfo.environment
        guard let host = env["PGHOST"], let user = env["PGUSER"] else { return nil }
        return (host, env["PGPORT"] ?? "5432", user, env["PGPASSWORD"] ?? "")
    }()

    static var postgresAvailable: Bool { cluster != nil }
    static let noPostgres = "no PostgreSQL: run the tests under pg_virtualenv (it sets PGHOST, PGPORT, PGUSER, PGPASSWORD), as .ci/run does"

    /// A new, empty database's URL.
    static func newDatabase() throws -> String {
        guard let cluster else { throw HubTestFailure(noPostgres) }
        let name = "shop_hub_test_\(UUID().uuidString.prefix(8).lowercased())"
        let tool = ToolRunner()
        defer { tool.remove() }
        let made = try tool.run(["-c", "CREATE DATABASE \(name)"], environment: ["PGDATABASE": "postgres"], executable: "/usr/bin/psql")
        guard made.status == 0 else { throw HubTestFailure("psql CREATE DATABASE: \(made.stderr)") }
        return "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(name)"
    }

    /// `serve`'s storage arguments for a store at `place` (a folder, or a database's URL).
    func arguments(_ place: String) -> [String] {
        switch self {
        case .files: return ["--data", place]
        case .postgres: return ["--postgres", place]
        case .partitioned: return ["--postgres", place, "--postgres-layout", "partitioned"]
        }
    }

    /// A new store: a folder under `folder`, or a new database.
    func newStore(in folder: URL, _ name: String = "data") throws -> String {
        self == .files ? folder.appendingPathComponent(name).path : try Self.newDatabase()
    }
}

/// A `shop-hub serve` process on loopback over a data folder of its own.
final class HubProcess: @unchecked Sendable {
    // @unchecked: one task at a time drives it (a test, or the task that kills and restarts it while devices only send to its port).
    let data: String
    private(set) var port: Int
    private var child: ChildProcess
    let logPath: String
    var base: String { "http://127.0.0.1:\(port)" }

    let backend: Backend

    /// Starts the hub; `port` 0 takes a free one (kept across ``restart()``). `data` is the
    /// store: a folder with the files backend, a database's URL with PostgreSQL.
    init(data: String, backend: Backend = .files, port: Int = 0, arguments: [String] = []) throws {
        self.data = data
        self.backend = backend
        logPath = backend == .files ? data + ".log" : FileManager.default.temporaryDirectory.appendingPathComponent("shop-hub-\(UUID().uuidString.prefix(8)).log").path
        self.arguments = backend.arguments(data) + arguments
        (child, self.port) = try Self.start(port: port, arguments: self.arguments, log: logPath)
    }

    /// Another process over the same store (PostgreSQL: any number may serve one database).
    func sibling(arguments extra: [String] = []) throws -> HubProcess {
        try HubProcess(data: data, backend: backend, arguments: extra)
    }

    private let arguments: [String]

    /// The household's journal as the hub holds it: its file, or exported from the database.
    func journal(_ household: HouseholdID) throws -> [UInt8] {
        switch backend {
        case .files: return Scratch.bytes(data + "/households/\(household).ndjson")
        case .postgres, .partitioned:
            let tool = ToolRunner()
            defer { tool.remove() }
            let out = tool.path("export.ndjson")
            let exported = try tool.run(["household", "export", household.description, "--out", out] + backend.arguments(data),
                                        executable: Programs.shopHub)
            guard exported.status == 0 else { throw HubTestFailure("export: \(exported.stderr)") }
            return Scratch.bytes(out)
        }
    }

    /// The hub's own records (households, devices, invites, tokens) but for when devices were last seen:
    /// what a refused request must leave as it was.
    func records() throws -> [String] {
        switch backend {
        case .files:
            return String(decoding: Scratch.bytes(data + "/hub.ndjson"), as: UTF8.self).split(separator: "\n")
                .filter { !$0.contains(#""type":"seen""#) }.map(String.init)
        case .postgres, .partitioned:
            let tool = ToolRunner()
            defer { tool.remove() }
            let query = """
                SELECT 'h ' || household || ' ' || created_ms || ' ' || head_seq || ' ' || head_hash FROM households
                UNION ALL SELECT 'd ' || household || ' ' || token_hash || ' ' || name || ' ' || actor || ' ' || coalesce(revoked_ms::text, '-')
                    || ' ' || coalesce(revoked_why, '-') FROM devices
                UNION ALL SELECT 'i ' || household || ' ' || code_hash || ' ' || actor || ' ' || coalesce(used_ms::text, '-')
                    || ' ' || invite_id || ' ' || coalesce(cancelled_ms::text, '-') FROM invites
                UNION ALL SELECT 't ' || token_hash || ' ' || household FROM tokens
                UNION ALL SELECT 'c ' || code_hash || ' ' || household FROM invite_codes
                UNION ALL SELECT 'a ' || address_hash || ' ' || household FROM household_creations
                UNION ALL SELECT 'l ' || household || ' ' || seq || ' ' || hash FROM lines
                UNION ALL SELECT 'm ' || household || ' ' || command || ' ' || first_seq FROM commands
                ORDER BY 1
                """
            let result = try tool.run([data, "-At", "-c", query], executable: "/usr/bin/psql")
            guard result.status == 0 else { throw HubTestFailure("psql: \(result.stderr)") }
            return result.stdout.split(separator: "\n").map(String.init)
        }
    }

    private static func start(port: Int, arguments: [String], log: String) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(Programs.shopHub, ["serve", "--port", "\(port)"] + arguments,
                                     stdout: .pipe, stderr: .file(log))
        guard let line = child.readLine(timeout: 60), line.hasPrefix("listening on http://127.0.0.1:") else {
            child.kill(SIGKILL)
            _ = child.waitForExit()
            let errors = String(decoding: Scratch.bytes(log), as: UTF8.self)
            throw HubTestFailure("shop-hub did not start: \(errors)")
        }
        let digits = line.dropFirst("listening on http://127.0.0.1:".count).prefix { $0.isNumber }
        return (child, Int(digits) ?? port)
    }

    /// SIGTERM, then the exit status; a hub still running 60 seconds later (its shutdown is bounded at
    /// half that, docs/HUB.md) is killed and the test fails, saying so, with the end of its log.
    func terminate() -> Int32 {
        if let status = child.stop(within: 60) { return status }
        Issue.record("\(base) did not stop within 60 s of SIGTERM; its log ends: \(LifecycleTests.tail(of: logPath))")
        return -1
    }

    func kill() {
        child.kill(SIGKILL)
        _ = child.waitForExit()
    }

    /// Starts it again on the same port and folder.
    func restart() throws {
        var attempts = 0
        while true {
            do {
                (child, port) = try Self.start(port: port, arguments: arguments, log: logPath)
                return
            } catch where attempts < 20 {
                attempts += 1
                usleep(100_000)   // the old socket may linger for a moment
            }
        }
    }

    deinit {
        if child.isRunning {
            child.kill(SIGKILL)
            _ = child.waitForExit()
        }
    }
}

struct HubTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One HTTP answer.
struct Answer {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}

/// Requests through URLSession, as an app makes them.
enum HTTP {
    static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 120
        return URLSession(configuration: configuration)
    }()

    static func call(_ method: String, _ url: String, token: String? = nil, body: [UInt8]? = nil) async throws -> Answer {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = Data(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return Answer(status: http.statusCode, headers: headers, body: Array(data))
    }

    static func call(_ method: String, _ url: String, token: String? = nil, json: Any) async throws -> Answer {
        try await call(method, url, token: token, body: Array(try JSONSerialization.data(withJSONObject: json)))
    }
}

/// A household on a running hub, made by its first device through `shop-replay`:
/// the owner `ana` with her replica, and what it takes to invite others.
struct HostedHousehold {
    let hub: HubProcess
    let id: HouseholdID
    let world: SyncWorld
    let ownerToken: String
    var url: String { "\(hub.base)/v1/households/\(id)" }

    /// `clone --new-household`, then the household made, with members, two items and a list, and synced.
    static func make(on hub: HubProcess, world: SyncWorld, members: [(String, Role)] = [("ben", .member), ("cleo", .member)],
                     items: [String] = ["Milk", "Bread"]) throws -> (HostedHousehold, list: ListID, items: [ItemID]) {
        let cloned = try world.tool.run(["clone", "--new-household", "--hub", hub.base, "--journal", world.path("ana"),
                                         "--device", "ana-phone", "--actor", "ana"])
        guard cloned.status == 0 else { throw HubTestFailure("clone --new-household: \(cloned.stderr)") }
        let settings = try SyncSettings.load(journal: world.path("ana"))
        guard let id = HouseholdID(String(settings.hub.split(separator: "/").last ?? "")) else { throw HubTestFailure("no household in \(settings.hub)") }
        let list = ListID(), ids = items.map { _ in ItemID() }
        var lines = [
            #"{"type":"CreateHousehold","data":{"household":"\#(id)","name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#,
            #"{"type":"AddMember","data":{"member":"ana","role":"owner"}}"#,
        ]
        for (member, role) in members { lines.append(#"{"type":"AddMember","data":{"member":"\#(member)","role":"\#(role.rawValue)"}}"#) }
        lines.append(#"{"type":"CreateList","data":{"list":"\#(list)","name":"Weekly"}}"#)
        for (name, item) in zip(items, ids) {
            lines.append(#"{"type":"CreateItem","data":{"item":"\#(item)","name":"\#(name)","unitPrice":199}}"#)
            lines.append(#"{"type":"AddItemToList","data":{"list":"\#(list)","item":"\#(item)"}}"#)
        }
        let answers = try world.apply("ana", actor: "ana", lines)
        guard answers.count == lines.count, answers.allSatisfy({ $0["ok"] as? Bool == true }) else { throw HubTestFailure("apply: \(answers)") }
        let synced = try world.sync("ana", actor: "ana")
        guard synced.status == 0 else { throw HubTestFailure("sync: \(synced.stderr)") }
        let token = try HubToken.load(journal: world.path("ana"))
        // The files backend's journal is read where it is; PostgreSQL's as exported, by `refresh()`.
        world.hub = hub.backend == .files ? hub.data + "/households/\(id).ndjson" : world.tool.path("hub-export.ndjson")
        let household = HostedHousehold(hub: hub, id: id, world: world, ownerToken: token)
        try household.refresh()
        return (household, list, ids)
    }

    /// Brings `world.hub` up to the hub's journal (an export, with PostgreSQL).
    func refresh() throws {
        guard hub.backend != .files else { return }
        Scratch.write(try hub.journal(id), to: world.hub)
    }

    /// An owner's join code for `actor`.
    func invite(_ actor: String) async throws -> String {
        let answer = try await HTTP.call("POST", "\(url)/invites", token: ownerToken, json: ["actor": actor])
        guard answer.status == 201, let code = answer.json["code"] as? String else { throw HubTestFailure("invite: \(answer.status) \(answer.text)") }
        return code
    }

    /// `shop-replay clone --join`, a device of its own, through `other` (another process over the same database) if given.
    func join(_ device: String, actor: String, through other: HubProcess? = nil) async throws {
        let code = try await invite(actor)
        let result = try world.tool.run(["clone", "--join", code, "--hub", (other ?? hub).base, "--journal", world.path(device), "--device", "\(device)-phone"])
        guard result.status == 0 else { throw HubTestFailure("clone --join: \(result.stderr)") }
    }
}

/// Every order of the elements.
func every<T>(_ permutationsOf: [T]) -> [[T]] {
    guard permutationsOf.count > 1 else { return [permutationsOf] }
    return permutationsOf.indices.flatMap { i -> [[T]] in
        var rest = permutationsOf
        let first = rest.remove(at: i)
        return every(rest).map { [first] + $0 }
    }
}
