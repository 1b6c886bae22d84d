import Foundation
import ShopEvents
@testable import ShopHub
import ShopTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A connection held open by a test, byte by byte, as a slow or idle client holds one: real sockets on loopback.
final class HeldConnection: @unchecked Sendable {
    // @unchecked: one thread drives it.
    let socket: Int32
    let opened = Date()

    init(port: Int, from source: String? = nil) throws {
        socket = try RawHTTP.connectLoopback(port: port, from: source)
    }

    deinit { close(socket) }

    func send(_ text: String) {
        _ = Array(text.utf8).withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends `text` a byte every `seconds`, watching for the hub to close the connection: when it did
    /// (seconds since the connection was opened), or nil if it was still open once all was sent.
    func trickle(_ text: String, every seconds: Double) -> Double? {
        var buffer = [UInt8](repeating: 0, count: 16_384)
        for byte in text.utf8 {
            _ = [byte].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
            let until = Date().addingTimeInterval(seconds)
            while Date() < until {
                var one = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                guard poll(&one, 1, Int32(until.timeIntervalSinceNow * 1000) + 1) > 0 else { continue }
                let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
                if n <= 0 { return Date().timeIntervalSince(opened) }
            }
        }
        return nil
    }

    /// Reads until the hub closes the connection, at most `limit` seconds: what it sent, and when it closed
    /// (seconds since the connection was opened; nil if it was still open).
    func readUntilClosed(limit: Double) -> (bytes: [UInt8], closedAfter: Double?) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let left = limit - Date().timeIntervalSince(opened)
            guard left > 0 else { return (received, nil) }
            var one = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            guard poll(&one, 1, Int32(left * 1000) + 1) > 0 else { continue }
            let n = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return (received, Date().timeIntervalSince(opened)) }
            received += buffer[0..<n]
        }
    }
}

/// Runs each body on a thread of its own, all at once (each blocks on its socket): their results, in order.
func atOnce<T: Sendable>(_ bodies: [@Sendable () throws -> T]) throws -> [T] {
    let results = ThreadResults<T>(bodies.count)
    let group = DispatchGroup()
    for (index, body) in bodies.enumerated() {
        group.enter()
        Thread {
            let result = Result { try body() }
            results.lock.withLock { results.values[index] = result }
            group.leave()
        }.start()
    }
    group.wait()
    return try results.lock.withLock { results.values }.map { try $0!.get() }
}

/// The results of ``atOnce(_:)``'s threads.
final class ThreadResults<T: Sendable>: @unchecked Sendable {
    // @unchecked: each thread writes its own slot, under the lock; read once all have left the group.
    let lock = NSLock()
    var values: [Result<T, any Error>?]
    init(_ count: Int) { values = Array(repeating: nil, count: count) }
}

@Suite("the hub's connections: deadlines, a cap per address, trusted proxies, header limits", .serialized)
struct ConnectionTests {
    static let zeros = String(repeating: "0", count: 64)

    /// A hub over a new store of `backend` with these arguments.
    static func hub(_ arguments: [String], on backend: Backend = .files) throws -> (URL, HubProcess) {
        let folder = Scratch.directory()
        return (folder, try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: arguments))
    }

    /// `POST /v1/households` from `source` with these headers: the answer.
    static func create(_ hub: HubProcess, from source: String, headers: [String: String] = [:]) throws -> Answer {
        try RawHTTP.post(port: hub.port, "/v1/households", headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                         body: Array(#"{"device":"phone","actor":"ana"}"#.utf8), from: source)
    }

    // MARK: deadlines

    @Test("a connection that sends nothing, half a head, a head byte by byte, half a body, or idles after its answer is closed when its limit passes; the others are answered meanwhile")
    func everyStallIsClosed() throws {
        let (folder, hub) = try Self.hub(["--head-timeout", "1", "--body-timeout", "2", "--idle-timeout", "3"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = hub.port
        let healthz = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        let closings = try atOnce([
            // Nothing at all: the head is owed 1 s after the connection opened.
            { let held = try HeldConnection(port: port); return held.readUntilClosed(limit: 10).closedAfter },
            // Half a head.
            { let held = try HeldConnection(port: port); held.send("GET /healthz HTTP/1.1\r\nHo"); return held.readUntilClosed(limit: 10).closedAfter },
            // A head a byte every 0.3 s: bytes arriving do not put the head's limit off.
            { let held = try HeldConnection(port: port)
              return held.trickle("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n", every: 0.3) ?? held.readUntilClosed(limit: 10).closedAfter },
            // Content-Length: 100 and one byte: the body stalls, 2 s.
            { let held = try HeldConnection(port: port)
              held.send("POST /v1/households HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{")
              return held.readUntilClosed(limit: 10).closedAfter },
            // Kept alive after its answer: idle, 3 s.
            { let held = try HeldConnection(port: port); held.send(healthz); return held.readUntilClosed(limit: 10).closedAfter },
            // Kept alive, then half a second head 0.5 s after the first: owed 1 s from its first byte, not the idle 3 s.
            { let held = try HeldConnection(port: port)
              held.send(healthz)
              usleep(500_000)
              held.send("GET /hea")
              return held.readUntilClosed(limit: 10).closedAfter },
        ] as [@Sendable () throws -> Double?])
        let expected: [Double] = [1, 1, 1, 2, 3, 1.5]
        for (index, (closed, due)) in zip(closings, expected).enumerated() {
            let closed = try #require(closed, "connection \(index) was still open after 10 s")
            #expect(closed >= due - 0.1 && closed < due + 1.5, "connection \(index) closed after \(closed) s, due at \(due) s")
        }
        // Meanwhile, and after, the hub answers.
        #expect(try RawHTTP.call(port: port, "GET", "/healthz").status == 200)
        #expect(hub.terminate() == 0)
        // A stalled head or body is logged (the client and what it owed); an idle connection's close is not worth a line.
        let closed = logLines(hub.logPath).filter { $0["msg"] == "connection closed" }.map { [$0["client"], $0["error"]] }
        #expect(closed.sorted { "\($0)" < "\($1)" } == [["127.0.0.1", "body_timeout"]] + Array(repeating: ["127.0.0.1", "head_timeout"], count: 4))
    }

    @Test("a long poll that waits longer than the idle and head limits is answered when its wait is up, not cut", arguments: [Backend.files])
    func longPollIsNotIdle(_ backend: Backend) throws { try Self.longPollIsNotIdleBody(backend) }

    @Test("a long poll that waits longer than the idle and head limits is answered when its wait is up, not cut — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)), arguments: [Backend.postgres])
    func longPollIsNotIdleOnPostgres(_ backend: Backend) throws { try Self.longPollIsNotIdleBody(backend) }

    static func longPollIsNotIdleBody(_ backend: Backend) throws {
        let (folder, hub) = try Self.hub(["--head-timeout", "1", "--body-timeout", "1", "--idle-timeout", "1"], on: backend)
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try Self.create(hub, from: "127.0.0.1")
        let household = try #require(made.json["household"] as? String), token = try #require(made.json["token"] as? String)
        let started = Date()
        let answer = try RawHTTP.post(port: hub.port, "/v1/households/\(household)/sync", headers: ["Authorization": "Bearer \(token)"],
                                      body: Array(#"{"pull":{"after":0,"hash":"\#(zeros)","wait":3}}"#.utf8))
        let waited = Date().timeIntervalSince(started)
        #expect(answer.status == 200 && answer.body == SyncWire.encode(SyncResponse.lines([], more: false)), "\(answer.status) \(answer.text)")
        #expect(waited >= 2.95 && waited < 5, "answered after \(waited) s")
        #expect(hub.terminate() == 0)
    }

    // MARK: the cap per address

    @Test("one address holds at most --connections-per-address connections: the next is answered 503 too_many_connections in JSON and closed; other addresses and a trusted proxy are not held back")
    func connectionsPerAddress() throws {
        let (folder, hub) = try Self.hub(["--connections-per-address", "3", "--trusted-proxy", "127.0.0.3"])
        defer { try? FileManager.default.removeItem(at: folder) }
        let port = hub.port
        var held = try (0..<3).map { _ in try HeldConnection(port: port, from: "127.0.0.2") }
        usleep(200_000)   // accepted by the hub
        let refused = try RawHTTP.call(port: port, "GET", "/healthz", from: "127.0.0.2")
        #expect(refused.status == 503 && refused.headers["content-type"] == "application/json" && refused.headers["retry-after"] == "10"
                && refused.headers["connection"] == "close" && refused.headers["x-content-type-options"] == "nosniff", "\(refused.status) \(refused.headers)")
        #expect(refused.body == errorBody("too_many_connections",
                                          "this address has 3 connections open to the hub, the most it may: close one, or try again later"))
        // Another client is answered; so is a trusted proxy, on as many connections as it likes.
        #expect(try RawHTTP.call(port: port, "GET", "/healthz", from: "127.0.0.1").status == 200)
        let proxied = try (0..<5).map { _ in try HeldConnection(port: port, from: "127.0.0.3") }
        #expect(try RawHTTP.call(port: port, "GET", "/healthz", from: "127.0.0.3").status == 200)
        // One of the three closed: the address may open another.
        held.removeLast()
        usleep(200_000)
        #expect(try RawHTTP.call(port: port, "GET", "/healthz", from: "127.0.0.2").status == 200)
        _ = (held, proxied)
        #expect(hub.terminate() == 0)
        let refusals = logLines(hub.logPath).filter { $0["msg"] == "connection refused" }.map { [$0["client"], $0["status"], $0["error"], $0["count"]] }
        #expect(refusals == [["127.0.0.2", "503", "too_many_connections", "1"]])
    }

    // MARK: trusted proxies

    @Test("behind a trusted proxy, new households and joins are counted per forwarded client; X-Forwarded-For and Forwarded from any other peer are ignored", arguments: [Backend.files])
    func forwardedClients(_ backend: Backend) throws { try Self.forwardedClientsBody(backend) }

    @Test("behind a trusted proxy, new households and joins are counted per forwarded client; X-Forwarded-For and Forwarded from any other peer are ignored — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)), arguments: [Backend.postgres, .partitioned])
    func forwardedClientsOnPostgres(_ backend: Backend) throws { try Self.forwardedClientsBody(backend) }

    static func forwardedClientsBody(_ backend: Backend) throws {
        let (folder, hub) = try Self.hub(["--trusted-proxy", "127.0.0.1", "--trusted-proxy", "10.0.0.0/8",
                                           "--households-per-hour", "2", "--joins-per-minute", "2"], on: backend)
        defer { try? FileManager.default.removeItem(at: folder) }
        // (from, headers) → status: each client may create two households an hour.
        let creations: [(String, [String: String], Int)] = [
            // 127.0.0.2 is not trusted: whatever it says, it is 127.0.0.2.
            ("127.0.0.2", ["X-Forwarded-For": "198.51.100.1"], 201),
            ("127.0.0.2", ["X-Forwarded-For": "198.51.100.2"], 201),
            ("127.0.0.2", ["X-Forwarded-For": "198.51.100.3", "Forwarded": "for=198.51.100.4"], 429),
            ("127.0.0.2", ["Forwarded": "for=198.51.100.5"], 429),
            // Through the trusted proxy: each forwarded client is counted on its own.
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.7"], 201),
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.7"], 201),
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.7"], 429),
            // What the client put in front is not taken: the right-most address no proxy of ours wrote is.
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.8, 198.51.100.7"], 429),
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.7, 198.51.100.9"], 201),
            // A trusted hop on the way is passed over.
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.7, 10.1.2.3"], 429),
            ("127.0.0.1", ["X-Forwarded-For": "203.0.113.5, 10.1.2.3"], 201),
            // Forwarded, when there is no X-Forwarded-For; IPv6 as RFC 7239 writes it.
            ("127.0.0.1", ["Forwarded": #"for="[2001:db8::1]:4711";proto=https"#], 201),
            ("127.0.0.1", ["Forwarded": "for=198.51.100.7;proto=https"], 429),
            // Nothing forwarded: the proxy itself.
            ("127.0.0.1", [:], 201),
        ]
        var statuses: [Int] = []
        for (source, headers, _) in creations { statuses.append(try Self.create(hub, from: source, headers: headers).status) }
        #expect(statuses == creations.map(\.2))
        // Join attempts (a code that is no one's): two a minute per client.
        let joins: [(String, [String: String], Int)] = [
            ("127.0.0.2", ["X-Forwarded-For": "198.51.100.1"], 404), ("127.0.0.2", ["X-Forwarded-For": "198.51.100.2"], 404),
            ("127.0.0.2", ["X-Forwarded-For": "198.51.100.3"], 429),
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.1"], 404), ("127.0.0.1", ["X-Forwarded-For": "198.51.100.1"], 404),
            ("127.0.0.1", ["X-Forwarded-For": "198.51.100.1"], 429), ("127.0.0.1", ["X-Forwarded-For": "198.51.100.2"], 404),
        ]
        statuses = []
        for (source, headers, _) in joins {
            statuses.append(try RawHTTP.post(port: hub.port, "/v1/join", headers: headers.merging(["Content-Type": "application/json"]) { a, _ in a },
                                             body: Array(#"{"code":"ABCDE-FGHJK","device":"phone"}"#.utf8), from: source).status)
        }
        #expect(statuses == joins.map(\.2))
        #expect(hub.terminate() == 0)
        // The log names the client each request was counted under.
        let clients = logLines(hub.logPath).filter { $0["msg"] == "request" && ["/v1/households", "/v1/join"].contains($0["route"] ?? "") }.map { $0["client"] }
        #expect(clients == [
            "127.0.0.2", "127.0.0.2", "127.0.0.2", "127.0.0.2", "198.51.100.7", "198.51.100.7", "198.51.100.7", "198.51.100.7",
            "198.51.100.9", "198.51.100.7", "203.0.113.5", "2001:db8::1", "198.51.100.7", "127.0.0.1",
            "127.0.0.2", "127.0.0.2", "127.0.0.2", "198.51.100.1", "198.51.100.1", "198.51.100.1", "198.51.100.2",
        ])
    }

    @Test("the client a trusted proxy names: the right-most address not trusted, IPv4 and IPv6, with ports and quotes; networks as --trusted-proxy takes them")
    func trustedProxyRules() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "192.0.2.7", "2001:db8:cafe::/48", "::1"])
        #expect(proxies.networks.map(\.description) == ["10.0.0.0/8", "192.0.2.7/32", "2001:db8:cafe::/48", "::1/128"])
        let cases: [(peer: String?, forwardedFor: [String], forwarded: [String], client: String)] = [
            ("198.51.100.4", ["203.0.113.9"], [], "198.51.100.4"),                        // not a proxy: its headers are ignored
            ("198.51.100.4", [], ["for=203.0.113.9"], "198.51.100.4"),
            ("10.0.0.7", [], [], "10.0.0.7"),                                             // a proxy that names no one
            ("10.0.0.7", ["203.0.113.9"], [], "203.0.113.9"),
            ("10.0.0.7", ["1.2.3.4, 203.0.113.9"], [], "203.0.113.9"),                    // the client's own claim is on the left
            ("10.0.0.7", ["203.0.113.9, 10.9.9.9, 192.0.2.7"], [], "203.0.113.9"),        // trusted hops passed over
            ("10.0.0.7", ["203.0.113.9", "10.9.9.9"], [], "203.0.113.9"),                 // the header on two lines
            ("10.0.0.7", ["10.1.1.1, 10.2.2.2"], [], "10.1.1.1"),                         // all trusted: the left-most
            ("10.0.0.7", ["203.0.113.9:5555"], [], "203.0.113.9"),
            ("10.0.0.7", ["[2001:db8::5]:5555"], [], "2001:db8::5"),
            ("10.0.0.7", ["2001:DB8:0:0::5"], [], "2001:db8::5"),
            ("10.0.0.7", ["203.0.113.9, unknown"], [], "10.0.0.7"),                       // not an address: counted as the proxy
            ("10.0.0.7", ["203.0.113.9"], ["for=198.51.100.1"], "203.0.113.9"),           // X-Forwarded-For first
            ("10.0.0.7", [], [#"for=192.0.2.60;proto=http;by=203.0.113.43, For="[2001:db8::17]:4711""#], "2001:db8::17"),
            ("10.0.0.7", [], ["for=198.51.100.1, for=10.3.3.3"], "198.51.100.1"),
            ("10.0.0.7", [], ["proto=https"], "10.0.0.7"),
            ("::1", ["203.0.113.9"], [], "203.0.113.9"),
            ("::ffff:10.0.0.7", ["203.0.113.9"], [], "203.0.113.9"),                     // an IPv4 peer on a dual-stack socket
            ("2001:db8:cafe:1::9", ["2001:db8:beef::1, 2001:db8:cafe:2::1"], [], "2001:db8:beef::1"),
            (nil, ["203.0.113.9"], [], "unknown"),
        ]
        for one in cases {
            #expect(proxies.client(peer: one.peer, forwardedFor: one.forwardedFor, forwarded: one.forwarded) == one.client, "\(one)")
        }
        // With no proxy trusted, the peer as it is given.
        #expect(TrustedProxies().client(peer: "::ffff:10.0.0.7", forwardedFor: ["203.0.113.9"], forwarded: []) == "::ffff:10.0.0.7")
        for wrong in ["10.0.0.0/33", "::1/129", "10.0.0.0/", "10.0.0/8", "hub.example.org", "10.0.0.0/8x", ""] {
            #expect(throws: HubError.badRequest("\(wrong) is not an address or a network (10.0.0.0/8, 192.0.2.7, 2001:db8::/32, ::1)")) {
                try TrustedProxies([wrong])
            }
        }
    }

    @Test("serve's connection options: whole numbers ≥ 1 and networks, else a usage error (exit 2) that names the option")
    func connectionOptions() throws {
        for (arguments, message) in [
            (["--head-timeout", "0"], "--head-timeout takes a whole number ≥ 1, not 0"),
            (["--idle-timeout", "x"], "--idle-timeout takes a whole number ≥ 0, not x"),
            (["--connections-per-address", "0"], "--connections-per-address takes a whole number ≥ 1, not 0"),
            (["--trusted-proxy", "10.0.0.0/40"], "--trusted-proxy: 10.0.0.0/40 is not an address or a network (10.0.0.0/8, 192.0.2.7, 2001:db8::/32, ::1)"),
            (["--trusted-proxy"], "--trusted-proxy needs a value"),
        ] {
            let run = try shopHub(["serve", "--port", "0", "--data", "/nonexistent/never"] + arguments, within: 20)
            #expect(run.status == 2 && run.stderr.hasPrefix("shop-hub: \(message)\n"), "\(arguments): \(run.status.map(String.init) ?? "killed") \(run.stderr.prefix(200))")
        }
        let help = try shopHub(["serve", "--help"], within: 20)
        for option in ["--head-timeout 10", "--body-timeout 30", "--idle-timeout 75", "--connections-per-address 100", "--trusted-proxy CIDR"] {
            #expect(help.stdout.contains(option), "\(option) in serve --help")
        }
    }

    // MARK: header limits

    @Test("a head of too many header fields is refused naming the count; one of too many bytes naming the size; 1000 fields are taken")
    func headerLimitsAreNamed() throws {
        let (folder, hub) = try Self.hub([])
        defer { try? FileManager.default.removeItem(at: folder) }
        func headers(_ count: Int, _ field: (Int) -> String) -> String {
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + (0..<count).map { field($0) + "\r\n" }.joined() + "\r\n"
        }
        // 1,000 small headers, 10 KB with Host and Connection: the count is over, not the size.
        let many = try RawHTTP.exchange(port: hub.port, Array(headers(999) { "X-Filler-\($0): v" }.utf8))
        #expect(many.status == 400 && many.headers["content-type"] == "application/json" && many.headers["x-content-type-options"] == "nosniff")
        #expect(many.body == errorBody("bad_request", "the request has 1001 header fields; at most 1000"))
        // 998 and Host and Connection: 1,000, taken.
        #expect(try RawHTTP.exchange(port: hub.port, Array(headers(998) { "X-Filler-\($0): v" }.utf8)).status == 200)
        // More fields than the parser takes at all, in fewer than 80 KiB: still the count.
        let tiny = try RawHTTP.exchange(port: hub.port, Array(headers(10_001) { _ in "a:b" }.utf8))
        #expect(tiny.body == errorBody("bad_request", "the request has over 10000 header fields; at most 1000"))
        // 90 KiB in 30 fields: the size.
        let big = try RawHTTP.exchange(port: hub.port, Array(headers(30) { "X-Big-\($0): " + String(repeating: "b", count: 3_000) }.utf8))
        #expect(big.status == 400 && big.body == errorBody("bad_request", "the request's URL and headers are over 80 KiB together; no route of this hub has a URL that long"))
        #expect(hub.terminate() == 0)
        let refused = logLines(hub.logPath).filter { $0["route"] == "unreadable" }.map { [$0["status"], $0["error"]] }
        #expect(refused == Array(repeating: ["400", "bad_request"], count: 3))
    }
}
