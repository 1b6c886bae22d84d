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

/// One HTTP/1.1 exchange over a plain socket, byte for byte as given: what URLSession will not send
/// (a 500 KB URL, an `Authorization` header of any spelling). The connection is closed by the hub
/// (`Connection: close`), and the answer read to its end.
enum RawHTTP {
    /// `request` sent from `source` (another loopback address: 127.0.0.2 is another client), its answer read.
    static func exchange(port: Int, _ request: [UInt8], from source: String? = nil) throws -> Answer {
        let socket = try connectLoopback(port: port, from: source)
        defer { close(socket) }
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(socket, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { break }   // the hub answered and stopped reading: its answer is waiting
            sent += n
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress!, $0.count, 0) }
            if n <= 0 { break }
            received += buffer[0..<n]
        }
        return try parse(received)
    }

    /// An answer's bytes, read to the connection's end.
    static func parse(_ received: [UInt8]) throws -> Answer {
        guard let end = received.indices.first(where: { received[$0...].starts(with: Array("\r\n\r\n".utf8)) }) else {
            throw HubTestFailure("no HTTP answer: \(String(decoding: received, as: UTF8.self))")
        }
        let head = String(decoding: received[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        return Answer(status: status, headers: headers, body: Array(received[(end + 4)...]))
    }

    /// `METHOD PATH` with these headers, no body.
    static func call(port: Int, _ method: String, _ path: String, headers: [String: String] = [:], from source: String? = nil) throws -> Answer {
        var text = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return try exchange(port: port, Array((text + "\r\n").utf8), from: source)
    }

    /// `POST PATH` with a body.
    static func post(port: Int, _ path: String, headers: [String: String] = [:], body: [UInt8], from source: String? = nil) throws -> Answer {
        var text = "POST \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        return try exchange(port: port, Array((text + "\r\n").utf8) + body, from: source)
    }

    /// A TCP socket connected to 127.0.0.1:`port`, from `source` if given (any address of 127.0.0.0/8).
    static func connectLoopback(port: Int, from source: String? = nil) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw HubTestFailure("socket: \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(socket)
                throw HubTestFailure("bind \(source): \(errno)")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(socket)
            throw HubTestFailure("connect: \(errno)")
        }
        return socket
    }
}

/// `shop-hub ARGUMENTS`, killed if it has not exited within `seconds` (a command that should stop
/// must not hang the suite): its exit status (nil if it was killed), outputs and how long it took.
func shopHub(_ arguments: [String], environment: [String: String] = [:], within seconds: Double) throws
    -> (status: Int32?, stdout: String, stderr: String, took: Double) {
    let folder = Scratch.directory()
    defer { try? FileManager.default.removeItem(at: folder) }
    let output = folder.appendingPathComponent("stdout").path, errors = folder.appendingPathComponent("stderr").path
    let started = Date()
    let child = try ChildProcess(Programs.shopHub, arguments, environment: environment, stdout: .file(output), stderr: .file(errors))
    while child.isRunning, Date().timeIntervalSince(started) < seconds { usleep(50_000) }
    let killed = child.isRunning
    if killed { child.kill(SIGKILL) }
    let status = child.waitForExit()
    return (killed ? nil : status, String(decoding: Scratch.bytes(output), as: UTF8.self), String(decoding: Scratch.bytes(errors), as: UTF8.self),
            Date().timeIntervalSince(started))
}

/// A hub's error body, byte for byte.
func errorBody(_ code: String, _ message: String) -> [UInt8] {
    SyncWire.line(.object([("error", .object([("code", .string(code)), ("message", .string(message))]))]))
}

/// The JSON log lines of a hub's standard error, each parsed.
func logLines(_ path: String) -> [[String: String]] {
    String(decoding: Scratch.bytes(path), as: UTF8.self).split(separator: "\n").map { line in
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]) ?? ["unparsed": String(line)]
    }
}

/// A `shop-hub serve` over a new data folder, started with `environment` (LOG_LEVEL); its standard
/// error in `log`.
final class EnvironmentHub {
    let child: ChildProcess
    let port: Int
    let log: String
    let data: String

    init(folder: URL, environment: [String: String], arguments: [String] = []) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        log = folder.appendingPathComponent("hub.log").path
        data = folder.appendingPathComponent("data").path
        child = try ChildProcess(Programs.shopHub, ["serve", "--port", "0", "--data", data] + arguments,
                                 environment: environment, stdout: .pipe, stderr: .file(log))
        guard let line = child.readLine(timeout: 60), line.hasPrefix("listening on http://127.0.0.1:") else {
            child.kill(SIGKILL)
            _ = child.waitForExit()
            throw HubTestFailure("shop-hub did not start: \(String(decoding: Scratch.bytes(log), as: UTF8.self))")
        }
        port = Int(line.dropFirst("listening on http://127.0.0.1:".count).prefix { $0.isNumber }) ?? 0
    }

    func terminate() -> Int32 {
        if let status = child.stop(within: 60) { return status }
        Issue.record("shop-hub did not stop within 60 s of SIGTERM")
        return -1
    }
}

@Suite("the hub's HTTP face and its operation (what an operator and an attacker found)", .serialized)
struct HubHTTPOperationTests {
    static let zeros = String(repeating: "0", count: 64)
    static let emptyPull = Array(#"{"pull":{"after":0,"hash":"\#(zeros)"}}"#.utf8)

    /// A hub over a data folder in a new scratch folder (the caller removes it).
    static func filesHub(_ arguments: [String] = []) throws -> (URL, HubProcess) {
        let folder = Scratch.directory()
        return (folder, try HubProcess(data: folder.appendingPathComponent("data").path, arguments: arguments))
    }

    /// A new household on `hub` made over HTTP: its id and its first device's token.
    static func newHousehold(_ base: String) async throws -> (HouseholdID, String) {
        let made = try await HTTP.call("POST", base + "/v1/households", json: ["device": "phone", "actor": "ana"])
        guard made.status == 201, let id = (made.json["household"] as? String).flatMap(HouseholdID.init), let token = made.json["token"] as? String else {
            throw HubTestFailure("POST /v1/households: \(made.status) \(made.text)")
        }
        return (id, token)
    }

    // MARK: 23

    @Test("Authorization schemes are case-insensitive (bearer, BEARER); every 401 carries WWW-Authenticate: Bearer")
    func bearerSchemeAnyCaseAndTheChallenge() async throws {
        let (folder, hub) = try Self.filesHub()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, token) = try await Self.newHousehold(hub.base)
        let path = "/v1/households/\(household)/sync"
        for spelling in ["Bearer", "bearer", "BEARER", "bEaReR"] {
            let answer = try RawHTTP.post(port: hub.port, path, headers: ["Authorization": "\(spelling) \(token)"], body: Self.emptyPull)
            #expect(answer.status == 200 && answer.body == SyncWire.encode(SyncResponse.lines([], more: false)), "\(spelling): \(answer.status) \(answer.text)")
            #expect(answer.headers["www-authenticate"] == nil)
        }
        let refusals: [(String, [String: String], String)] = [
            ("no Authorization", [:], "this route takes Authorization: Bearer TOKEN"),
            ("another scheme", ["Authorization": "Basic \(token)"], "this route takes Authorization: Bearer TOKEN"),
            ("a scheme without a token", ["Authorization": "bearer "], "this route takes Authorization: Bearer TOKEN"),
            ("the scheme glued to the token", ["Authorization": "bearer\(token)"], "this route takes Authorization: Bearer TOKEN"),
            ("an unknown token", ["Authorization": "bearer she_unknown"], "the token is unknown or revoked"),
        ]
        for (what, headers, message) in refusals {
            let answer = try RawHTTP.post(port: hub.port, path, headers: headers, body: Self.emptyPull)
            #expect(answer.status == 401, "\(what): \(answer.status)")
            #expect(answer.headers["www-authenticate"] == "Bearer", "\(what): \(answer.headers)")
            #expect(answer.headers["content-type"] == "application/json", "\(what)")
            #expect(answer.body == errorBody("unauthorized", message), "\(what): \(answer.text)")
        }
        // Through URLSession too, as an app meets it.
        let refused = try await HTTP.call("GET", hub.base + "/v1/households/\(household)/devices")
        #expect(refused.status == 401 && refused.headers["www-authenticate"] == "Bearer")
        #expect(hub.terminate() == 0)
    }

    // MARK: 24

    @Test("a household id that is no UUID is 404 before any lookup (even without a token); a 70 KB id is neither echoed nor logged whole; a 500 KB URL is a JSON 400")
    func unboundedInputIsBounded() async throws {
        let (folder, hub) = try Self.filesHub()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, token) = try await Self.newHousehold(hub.base)
        let records = try hub.records()
        let long = String(repeating: "a", count: 70_000)
        let unknown = errorBody("unknown_household", "there is no household \(String(repeating: "a", count: 64))… on this hub")
        for (what, headers) in [("no token", [:]), ("an unknown token", ["Authorization": "Bearer she_unknown"]),
                                ("the household's own token", ["Authorization": "Bearer \(token)"])] {
            for route in ["devices", "report", "journal", "devices/phone"] {
                let method = route == "devices/phone" ? "DELETE" : "GET"
                let answer = try RawHTTP.call(port: hub.port, method, "/v1/households/\(long)/\(route)", headers: headers)
                #expect(answer.status == 404 && answer.body == unknown, "\(what), \(method) \(route): \(answer.status) \(answer.text.prefix(300))")
            }
            let short = try RawHTTP.post(port: hub.port, "/v1/households/not-a-uuid/sync", headers: headers, body: Self.emptyPull)
            #expect(short.status == 404 && short.body == errorBody("unknown_household", "there is no household not-a-uuid on this hub"), "\(what): \(short.text)")
        }
        // A device's name in a path is bounded as well.
        let device = try RawHTTP.call(port: hub.port, "DELETE", "/v1/households/\(household)/devices/\(long)", headers: ["Authorization": "Bearer \(token)"])
        #expect(device.status == 404 && device.body == errorBody("unknown_device", "household \(household) has no device named \(String(repeating: "a", count: 64))…"))
        // An unknown route of any length.
        let route = try RawHTTP.call(port: hub.port, "GET", "/v2/\(long)")
        #expect(route.status == 404 && route.body == errorBody("not_found", "no route GET /v2/\(String(repeating: "a", count: 60))…"))
        // Over the parser's 80 KiB: the hub's JSON error, not an empty 400.
        let huge = try RawHTTP.call(port: hub.port, "GET", "/v1/households/\(String(repeating: "b", count: 500_000))/devices", headers: ["Authorization": "Bearer \(token)"])
        #expect(huge.status == 400 && huge.headers["content-type"] == "application/json", "\(huge.status) \(huge.headers)")
        #expect(huge.body == errorBody("bad_request", "the request's URL and headers are over 80 KiB together; no route of this hub has a URL that long"))
        // The hub still answers, and nothing was written.
        let fine = try RawHTTP.post(port: hub.port, "/v1/households/\(household)/sync", headers: ["Authorization": "Bearer \(token)"], body: Self.emptyPull)
        #expect(fine.status == 200)
        #expect(try hub.records() == records)
        #expect(hub.terminate() == 0)
        // Every log line is short; the 70 KB id's requests are logged under their route with the id's prefix.
        let lines = String(decoding: Scratch.bytes(hub.logPath), as: UTF8.self).split(separator: "\n")
        #expect(lines.allSatisfy { $0.utf8.count < 1_000 }, "a log line of \(lines.map(\.utf8.count).max() ?? 0) bytes")
        let logged = logLines(hub.logPath).filter { $0["status"] == "404" && $0["error"] == "unknown_household" && $0["household"] != "not-a-uuid" }
        #expect(logged.count == 12 && logged.allSatisfy { $0["household"] == String(repeating: "a", count: 64) + "…" }, "\(logged)")
        let unreadable = logLines(hub.logPath).filter { $0["route"] == "unreadable" }
        #expect(unreadable.map { [$0["status"], $0["error"], $0["client"], $0["msg"]] } == [["400", "bad_request", "127.0.0.1", "request"]])
    }

    // MARK: 25

    @Test("a pull's wait takes any number from 0 to 60 (1.5 waits a second and a half); beyond, or below, is bad_request")
    func waitTakesAnyNumber() async throws {
        let (folder, hub) = try Self.filesHub()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, token) = try await Self.newHousehold(hub.base)
        let url = "\(hub.base)/v1/households/\(household)/sync"
        for wait in ["1.5", "0.25", "0", "0.0", "1e0"] {
            let started = Date()
            let answer = try await HTTP.call("POST", url, token: token, body: Array(#"{"pull":{"after":0,"hash":"\#(Self.zeros)","wait":\#(wait)}}"#.utf8))
            let waited = Date().timeIntervalSince(started)
            #expect(answer.status == 200 && answer.body == SyncWire.encode(SyncResponse.lines([], more: false)), "wait \(wait): \(answer.text)")
            let asked = Double(wait)!
            #expect(waited >= asked - 0.05 && waited < asked + 2, "wait \(wait) answered after \(waited) s")
        }
        for wait in ["60.5", "-0.5", "61", "\"1\"", "true"] {
            let answer = try await HTTP.call("POST", url, token: token, body: Array(#"{"pull":{"after":0,"hash":"\#(Self.zeros)","wait":\#(wait)}}"#.utf8))
            #expect(answer.status == 400 && answer.body == errorBody("bad_request", "pull's \"wait\" is a number of seconds from 0 to 60"), "wait \(wait): \(answer.text)")
        }
        #expect(hub.terminate() == 0)
    }

    // MARK: 26

    @Test("at --requests-per-second 1 a device syncs (the burst is at least 10 requests); the eleventh request at once is 429")
    func aSyncFitsInTheBurstAtAnyRate() async throws {
        try Programs.prepare()
        let (folder, hub) = try Self.filesHub(["--requests-per-second", "1"])
        defer { try? FileManager.default.removeItem(at: folder) }
        // `clone --new-household`, then the household's first commands and a `sync`, back to back (make() fails if either does).
        let world = SyncWorld()
        let (household, _, _) = try HostedHousehold.make(on: hub, world: world, members: [("ben", .member)])
        try household.refresh()
        #expect(Scratch.bytes(world.path("ana")) == Scratch.bytes(world.hub), "the replica is the hub's journal")
        // A fresh token: ten requests at once, then the eleventh is refused.
        let (other, token) = try await Self.newHousehold(hub.base)
        // Sent together, so that a busy machine's slowness does not refill the bucket between them.
        let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<11 {
                group.addTask { try await HTTP.call("POST", "\(hub.base)/v1/households/\(other)/sync", token: token, body: Self.emptyPull).status }
            }
            return try await group.reduce(into: []) { $0.append($1) }.sorted()
        }
        #expect(statuses == Array(repeating: 200, count: 10) + [429], "\(statuses)")
        let limited = try await HTTP.call("POST", "\(hub.base)/v1/households/\(other)/sync", token: token, body: Self.emptyPull)
        #expect(limited.status == 429 && limited.headers["retry-after"] == "1")
        #expect(limited.body == errorBody("rate_limited", "more than 1 requests a second from this device"))
        #expect(hub.terminate() == 0)
    }

    // MARK: 27

    /// `shop-hub ARGUMENTS` exits 3 within 10 seconds, `expected` its whole standard error, nothing on its output.
    static func expectStopsInTime(_ arguments: [String], saying expected: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try shopHub(arguments, within: 15)
        #expect(result.status == 3 && result.took < 10, "\(arguments): exit \(result.status.map(String.init) ?? "none") after \(result.took) s", sourceLocation: sourceLocation)
        #expect(result.stderr == expected, sourceLocation: sourceLocation)
        #expect(result.stdout == "", sourceLocation: sourceLocation)
    }

    @Test("a database that never answers stops serve and household list within 10 seconds, exit 3, saying so")
    func aSilentDatabaseStopsServeInTime() throws {
        // A socket that takes connections (the kernel's backlog) and never says a word.
        let listener = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
        #expect(listen(listener, 16) == 0)
        let port = Int(UInt16(bigEndian: address.sin_port))
        let url = "postgres://hub:secret@127.0.0.1:\(port)/silent"
        for (arguments, expected) in [
            (["serve", "--port", "0", "--postgres", url], "shop-hub: the database \"silent\" did not answer within 8.0 seconds\n"),
            (["household", "list", "--postgres", url], "shop-hub: unavailable: the database \"silent\" did not answer within 8.0 seconds\n"),
        ] {
            try Self.expectStopsInTime(arguments, saying: expected)
        }
    }

    @Test("a wrong database name stops serve and household list within 10 seconds, exit 3, in the database's own words — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)))
    func aWrongDatabaseStopsServeInTime() throws {
        let cluster = try #require(Backend.cluster)
        let name = "shop_hub_missing_\(UUID().uuidString.prefix(8).lowercased())"
        let url = "postgres://\(cluster.user):\(cluster.password)@\(cluster.host):\(cluster.port)/\(name)"
        let reason = "the database \"\(name)\" cannot be used: database \"\(name)\" does not exist"
        for (arguments, expected) in [
            (["serve", "--port", "0", "--postgres", url], "shop-hub: \(reason)\n"),
            (["household", "list", "--postgres", url], "shop-hub: unavailable: \(reason)\n"),
            (["household", "list", "--postgres", url, "--json"], "shop-hub: unavailable: \(reason)\n"),
        ] {
            try Self.expectStopsInTime(arguments, saying: expected)
        }
    }

    @Test("/readyz answers within a second, 503 unavailable with Retry-After, while the database is gone — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)))
    func readyzAnswersInTimeWithTheDatabaseDown() async throws {
        let database = try Backend.newDatabase()
        let hub = try HubProcess(data: database, backend: .postgres)
        #expect(try await HTTP.call("GET", hub.base + "/readyz").body == Array("{\"status\":\"ready\"}\n".utf8))
        let tool = ToolRunner()
        defer { tool.remove() }
        let name = String(database.split(separator: "/").last!)
        let dropped = try tool.run(["-c", "DROP DATABASE \(name) WITH (FORCE)"], environment: ["PGDATABASE": "postgres"], executable: "/usr/bin/psql")
        #expect(dropped.status == 0, "\(dropped.stderr)")
        for attempt in 0..<3 {
            let started = Date()
            let answer = try await HTTP.call("GET", hub.base + "/readyz")
            let took = Date().timeIntervalSince(started)
            // What a busy machine adds to any answer: a /healthz (no storage) asked right after.
            let asked = Date()
            _ = try await HTTP.call("GET", hub.base + "/healthz")
            let machine = Date().timeIntervalSince(asked)
            // Within a second and what the machine adds (twice a /healthz's time: a loaded machine's delays come in bursts);
            // without the limit it waits for a connection the pool cannot make, 10 s and more.
            #expect(took < 1 + 2 * machine + 1, "attempt \(attempt): \(took) s (a /healthz took \(machine) s)")
            #expect(answer.status == 503 && answer.headers["retry-after"] == "5", "attempt \(attempt): \(answer.status)")
            // The first may meet a pooled connection the drop closed; then the pool waits for one it cannot make.
            if attempt > 0 {
                #expect(answer.body == errorBody("unavailable", "the storage did not answer within 0.5 seconds"), "\(answer.text)")
            }
        }
        #expect(hub.terminate() == 0)
    }

    // MARK: 28

    @Test("LOG_LEVEL sets the level (any case; a wrong one is exit 2); start and stop are logged; a 405 is logged under its route")
    func logLevelStartStopAnd405() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let tool = ToolRunner()
        defer { tool.remove() }
        let help = try tool.run(["serve", "--help"], executable: Programs.shopHub)
        let wrong = try shopHub(["serve", "--port", "0", "--data", folder.appendingPathComponent("never").path], environment: ["LOG_LEVEL": "loud"], within: 10)
        #expect(wrong.status == 2 && wrong.stdout == "")
        #expect(wrong.stderr == "shop-hub: LOG_LEVEL is one of trace, debug, info, notice, warning, error, critical, not loud\n" + help.stdout)
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("never").path), "nothing was started")

        // info (as unset): the start, a line a request, the stop.
        let info = try EnvironmentHub(folder: folder.appendingPathComponent("info"), environment: ["LOG_LEVEL": "INFO"])
        let (household, token) = try await Self.newHousehold("http://127.0.0.1:\(info.port)")
        let put = try await HTTP.call("PUT", "http://127.0.0.1:\(info.port)/v1/households/\(household)/sync", token: token)
        #expect(put.status == 405 && put.headers["allow"] == "POST")
        let unknown = try await HTTP.call("GET", "http://127.0.0.1:\(info.port)/v2/nothing")
        #expect(unknown.status == 404)
        #expect(info.terminate() == 0)
        let lines = logLines(info.log).filter { ["started", "request", "stopped"].contains($0["msg"] ?? "") }
        let summary = lines.map { line in ["msg", "method", "route", "status", "error"].map { line[$0] ?? "-" }.joined(separator: " ") }
        #expect(summary == [
            "started - - - -",
            "request POST /v1/households 201 -",
            "request PUT /v1/households/{household}/sync 405 method_not_allowed",
            "request GET NotFound 404 not_found",
            "stopped - - - -",
        ], "\(summary)")
        let started = try #require(lines.first)
        #expect(started.keys.sorted() == ["address", "app", "level", "msg", "storage", "time"], "\(started)")
        #expect(started["address"] == "http://127.0.0.1:\(info.port)" && started["level"] == "info" && started["storage"] == "data \(info.data)", "\(started)")
        // The web app served, by its version.
        #expect(started["app"]?.wholeMatch(of: /version [0-9a-f]{12}/) != nil, "\(started)")

        // warning: none of that.
        let quiet = try EnvironmentHub(folder: folder.appendingPathComponent("quiet"), environment: ["LOG_LEVEL": "warning"])
        _ = try await Self.newHousehold("http://127.0.0.1:\(quiet.port)")
        #expect(quiet.terminate() == 0)
        #expect(logLines(quiet.log).filter { ["info", "debug", "trace", "notice"].contains($0["level"] ?? "") } == [])

        // debug: what info logs, and the debug lines besides.
        let loud = try EnvironmentHub(folder: folder.appendingPathComponent("loud"), environment: ["LOG_LEVEL": "debug"])
        _ = try await Self.newHousehold("http://127.0.0.1:\(loud.port)")
        #expect(loud.terminate() == 0)
        let levels = Set(logLines(loud.log).compactMap { $0["level"] })
        #expect(levels == ["debug", "info"], "\(levels)")
    }

    @Test("every command answers --help: exit 0, its usage on standard output, nothing on standard error")
    func everyCommandAnswersHelp() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let serve = try tool.run(["serve", "--help"], executable: Programs.shopHub)
        let household = try tool.run(["household", "--help"], executable: Programs.shopHub)
        #expect(serve.status == 0 && serve.stderr == "" && serve.stdout.hasPrefix("Usage: shop-hub serve [--host 127.0.0.1]"), "\(serve.stdout)")
        #expect(household.status == 0 && household.stderr == "" && household.stdout.hasPrefix("Usage: shop-hub household list [--data DIR] [--json]"), "\(household.stdout)")
        #expect(serve.stdout.contains("LOG_LEVEL") && household.stdout.contains("LOG_LEVEL") && serve.stdout != household.stdout)
        for arguments in [["serve", "--port", "0", "--help"], ["serve", "-h"], ["household", "list", "--help"], ["household", "show", "--help"],
                          ["household", "export", "--help"], ["household", "verify", "--help"], ["household", "import", "--help"],
                          ["household", "show", "not-an-id", "--help"], ["household", "-h"]] {
            let result = try tool.run(arguments, executable: Programs.shopHub)
            #expect(result.status == 0 && result.stderr == "", "\(arguments): exit \(result.status) \(result.stderr)")
            #expect(result.stdout == (arguments[0] == "serve" ? serve.stdout : household.stdout), "\(arguments)")
        }
        let all = try tool.run(["--help"], executable: Programs.shopHub)
        #expect(all.status == 0 && all.stdout.hasPrefix("Usage: shop-hub serve") && all.stdout.contains("shop-hub household import"))
    }
}
