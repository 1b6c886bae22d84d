import Foundation
import ShopEvents
import ShopTestSupport
import Testing

/// The OpenAPI document in the repository, read as JSON.
struct OpenAPIDocument {
    /// `METHOD /path/{param}` → the statuses it documents, with the content type of each.
    let statuses: [String: [String: String?]]

    init() throws {
        let url = Programs.repository.appendingPathComponent("Server/openapi.json")
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any] ?? [:]
        var statuses: [String: [String: String?]] = [:]
        for (path, value) in document["paths"] as? [String: Any] ?? [:] {
            for (method, operation) in value as? [String: Any] ?? [:] {
                let responses = (operation as? [String: Any])?["responses"] as? [String: Any] ?? [:]
                statuses["\(method.uppercased()) \(path)"] = responses.mapValues { response in
                    ((response as? [String: Any])?["content"] as? [String: Any])?.keys.first
                }
            }
        }
        self.statuses = statuses
    }

    /// The route template a concrete path answers to.
    func route(_ method: String, _ path: String) -> String? {
        let parts = path.split(separator: "?")[0].split(separator: "/")
        return statuses.keys.first { key in
            let (m, template) = (key.split(separator: " ")[0], key.split(separator: " ")[1].split(separator: "/"))
            return m == method && template.count == parts.count && zip(template, parts).allSatisfy { $0.hasPrefix("{") || $0 == $1 }
        }
    }
}

/// Holds every answer of a run to the document, and counts which documented answers were seen.
final class Conformance {
    let document: OpenAPIDocument
    private(set) var seen: Set<String> = []
    init() throws { document = try OpenAPIDocument() }

    func call(_ method: String, _ base: String, _ path: String, token: String? = nil, body: [UInt8]? = nil,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> Answer {
        check(try await HTTP.call(method, base + path, token: token, body: body), method, path, sourceLocation: sourceLocation)
    }

    /// Holds `answer`, given to `method` `path`, to the document, and counts it as seen.
    @discardableResult
    func check(_ answer: Answer, _ method: String, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> Answer {
        guard let route = document.route(method, path) else { return answer }   // an unknown route: 404/405, checked by the caller
        guard let documented = document.statuses[route]?["\(answer.status)"] else {
            Issue.record("\(route) answered \(answer.status), which the document does not describe: \(answer.text)", sourceLocation: sourceLocation)
            return answer
        }
        seen.insert("\(route) \(answer.status)")
        if let type = documented {
            #expect(answer.headers["content-type"]?.hasPrefix(type) == true, "\(route) \(answer.status): content type \(answer.headers["content-type"] ?? "none"), documented \(type)", sourceLocation: sourceLocation)
            if type == "application/json" {
                #expect((try? JSONSerialization.jsonObject(with: Data(answer.body))) is [String: Any], "\(route) \(answer.status): not a JSON object", sourceLocation: sourceLocation)
                if answer.status >= 400 { #expect(answer.errorCode != nil, "\(route) \(answer.status): no error code", sourceLocation: sourceLocation) }
            }
        }
        if answer.status == 429 || answer.status == 503 { #expect(answer.headers["retry-after"] != nil, "\(route) \(answer.status) without Retry-After", sourceLocation: sourceLocation) }
        return answer
    }

    func call(_ method: String, _ base: String, _ path: String, token: String? = nil, json: Any,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> Answer {
        try await call(method, base, path, token: token, body: Array(try JSONSerialization.data(withJSONObject: json)), sourceLocation: sourceLocation)
    }

    /// The documented answers no test here produced.
    var unseen: [String] {
        document.statuses.flatMap { route, statuses in statuses.keys.map { "\(route) \($0)" } }.filter { !seen.contains($0) }.sorted()
    }
}

@Suite("hosted hub: bad input, limits and the OpenAPI document", .serialized)
struct BadInputTests {
    static let zeros = String(repeating: "0", count: 64)

    @Test("every refusal has its status and code and writes nothing; every answer is one the document describes; every documented answer but storage failures is produced", arguments: [Backend.files])
    func refusalsAndTheDocument(_ backend: Backend) async throws { try await Self.refusalsAndTheDocumentBody(backend) }

    @Test("every refusal has its status and code and writes nothing; every answer is one the document describes; every documented answer but storage failures is produced — on PostgreSQL", .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [(Backend.postgres, 1), (.partitioned, 1), (.postgres, 2), (.partitioned, 3)])
    func refusalsAndTheDocumentOnPostgres(_ backend: Backend, processes: Int) async throws {
        try await Self.refusalsAndTheDocumentBody(backend, processes: processes)
    }

    /// With several `processes` over one database, the household is made through the first and every
    /// request asked of the last; what must stay unchanged is read from the database.
    static func refusalsAndTheDocumentBody(_ backend: Backend, processes: Int = 1) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: ["--households-per-hour", "4", "--requests-per-second", "500"])
        let api = try Conformance()
        var siblings: [HubProcess] = []
        for _ in 1..<processes { siblings.append(try hub.sibling(arguments: ["--households-per-hour", "4", "--requests-per-second", "500"])) }
        let asked = siblings.last ?? hub
        let base = asked.base
        let (household, _, _) = try HostedHousehold.make(on: hub, world: SyncWorld(), members: [("ben", .member)])
        let h = "/v1/households/\(household.id)", owner = household.ownerToken
        // The journal and the hub's records but for when devices were last seen (bookkeeping, not a request's effect).
        func files() -> [String] {
            ((try? hub.records()) ?? ["unreadable"]) + [String(decoding: (try? hub.journal(household.id)) ?? [], as: UTF8.self)]
        }
        var before = files()
        func unchanged(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            let same = files() == before
            #expect(same, "\(what) wrote something", sourceLocation: sourceLocation)
        }
        func refused(_ answer: Answer, _ status: Int, _ code: String, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(answer.status == status && answer.errorCode == code, "\(what): \(answer.status) \(answer.text)", sourceLocation: sourceLocation)
            unchanged(what, sourceLocation: sourceLocation)
        }

        // Sync: each malformed request is 400; over a MiB 413; a pull from a non-prefix 409.
        let hello = Array(#"{"hello":{"protocol":1,"device":"d","actor":"ana"}}"#.utf8)
        var malformed: [(String, [UInt8])] = [("garbage", Array("}{ not json".utf8)), ("an empty body", [])]
        malformed.append(("wrong types", Array(#"{"pull":{"after":"one","hash":5}}"#.utf8)))
        malformed.append(("a negative seq", Array(#"{"pull":{"after":-1,"hash":"\#(Self.zeros)"}}"#.utf8)))
        malformed.append(("an unknown request", Array(#"{"merge":{}}"#.utf8)))
        malformed.append(("two requests", hello + [0x0A] + hello))
        malformed.append(("a wait over 60 s", Array(#"{"pull":{"after":0,"hash":"\#(Self.zeros)","wait":61}}"#.utf8)))
        malformed.append(("a command without an id", Array(#"{"push":{"commands":[{"type":"CreateItem","data":{"name":"X"}}]}}"#.utf8)))
        for (what, body) in malformed {
            refused(try await api.call("POST", base, "\(h)/sync", token: owner, body: body), 400, "bad_request", what)
        }
        let many = (0...1000).map { _ in ["type": "CreateItem", "id": UUID().uuidString, "data": ["name": UUID().uuidString]] as [String: Any] }
        refused(try await api.call("POST", base, "\(h)/sync", token: owner, json: ["push": ["commands": many]]), 400, "bad_request", "1,001 commands")
        let huge = Array(#"{"push":{"commands":[{"type":"CreateItem","id":"\#(UUID())","data":{"name":"\#(String(repeating: "x", count: 1 << 20))"}}]}}"#.utf8)
        refused(try await api.call("POST", base, "\(h)/sync", token: owner, body: huge), 413, "too_large", "a body over 1 MiB")
        refused(try await api.call("POST", base, "\(h)/sync", token: owner, json: ["pull": ["after": 3, "hash": Self.zeros]]), 409, "diverged", "a pull from a non-prefix")
        refused(try await api.call("POST", base, "\(h)/sync", token: owner, json: ["pull": ["after": 999, "hash": Self.zeros]]), 409, "diverged", "a pull past the end")
        #expect(try await api.call("POST", base, "\(h)/sync", token: owner, json: ["hello": ["protocol": 1, "device": "d", "actor": "ana"]]).status == 200)

        // Unknown routes and methods, an unknown household, tokens.
        refused(try await HTTP.call("GET", base + "/v2/anything"), 404, "not_found", "an unknown route")
        refused(try await HTTP.call("GET", base + "/v1/households"), 405, "method_not_allowed", "a wrong method")
        let put = try await HTTP.call("PUT", base + "\(h)/sync", token: owner)
        #expect(put.status == 405 && put.headers["allow"] == "POST")
        refused(try await api.call("GET", base, "/v1/households/\(HouseholdID())/devices", token: owner), 404, "unknown_household", "an unknown household")
        refused(try await api.call("GET", base, "/v1/households/not-a-uuid/devices", token: owner), 404, "unknown_household", "a household that is no id")
        refused(try await api.call("GET", base, "\(h)/devices"), 401, "unauthorized", "no token")
        refused(try await api.call("GET", base, "\(h)/devices", token: "she_nope"), 401, "unauthorized", "an unknown token")

        // Every route of a household: no token, another household's token, an unknown household.
        let (stranger, _, _) = try HostedHousehold.make(on: hub, world: SyncWorld(), members: [])
        before = files()
        let routes: [(String, String, Any?)] = [
            ("POST", "/invites", ["actor": "eve"]), ("GET", "/devices", nil), ("DELETE", "/devices/ana-phone", nil),
            ("POST", "/sync", ["pull": ["after": 0, "hash": Self.zeros]]), ("GET", "/report", nil), ("GET", "/journal", nil),
            ("GET", "/views/lists", nil), ("GET", "/invites", nil), ("DELETE", "/invites/nothing", nil),
        ]
        func call(_ method: String, _ path: String, token: String?, body: Any?, on base: String = base) async throws -> Answer {
            if let body { return try await api.call(method, base, path, token: token, json: body) }
            return try await api.call(method, base, path, token: token)
        }
        for (method, path, body) in routes {
            refused(try await call(method, h + path, token: nil, body: body), 401, "unauthorized", "\(method) \(path) without a token")
            refused(try await call(method, h + path, token: stranger.ownerToken, body: body), 403, "forbidden", "\(method) \(path) with another household's token")
            refused(try await call(method, "/v1/households/\(HouseholdID())" + path, token: owner, body: body), 404, "unknown_household", "\(method) \(path) of no household")
        }

        // Households: bad bodies, then the per-address limit (4 an hour here; two were made above).
        for body in [Array("nope".utf8), Array(#"{"device":5,"actor":"x"}"#.utf8), Array(#"{"device":"","actor":"x"}"#.utf8),
                     Array(#"{"device":"d\u0007","actor":"x"}"#.utf8), Array(#"{"actor":"x"}"#.utf8)] {
            refused(try await api.call("POST", base, "/v1/households", body: body), 400, "bad_request", String(decoding: body, as: UTF8.self))
        }
        refused(try await api.call("POST", base, "/v1/households", body: Array(repeating: 0x20, count: (1 << 20) + 1)), 413, "too_large", "a household body over 1 MiB")
        for _ in 0..<2 { #expect(try await api.call("POST", base, "/v1/households", json: ["device": "d", "actor": "a"]).status == 201) }
        before = files()
        let limited = try await api.call("POST", base, "/v1/households", json: ["device": "d", "actor": "a"])
        #expect(limited.status == 429 && limited.errorCode == "rate_limited")

        // Invites and joins.
        refused(try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "x", "expiresIn": 0]), 400, "bad_request", "an invite that expires at once")
        refused(try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "x", "expiresIn": 31 * 86_400]), 400, "bad_request", "an invite of 31 days")
        refused(try await api.call("POST", base, "\(h)/invites", token: owner, body: Array(repeating: 0x20, count: (1 << 20) + 1)), 413, "too_large", "an invite body over 1 MiB")
        let invite = try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "ben"])
        let code = try #require(invite.json["code"] as? String)
        #expect(code.count == 11 && code.dropFirst(5).first == "-")
        let joined = try await api.call("POST", base, "/v1/join", json: ["code": code.lowercased(), "device": "ben-phone"])
        #expect(joined.status == 201 && joined.json["actor"] as? String == "ben" && joined.json["household"] as? String == household.id.description)
        let ben = try #require(joined.json["token"] as? String)
        #expect(ben.count >= 43 && ben != owner)
        let again = try await api.call("POST", base, "/v1/join", json: ["code": code, "device": "ben-tablet"])
        #expect(again.status == 404 && again.errorCode == "unknown_invite", "a code works once")
        let second = try #require(try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "ben"]).json["code"] as? String)
        let taken = try await api.call("POST", base, "/v1/join", json: ["code": second, "device": "ben-phone"])
        #expect(taken.status == 409 && taken.errorCode == "device_exists")
        let short = try #require(try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "ben", "expiresIn": 1]).json["code"] as? String)
        try await Task.sleep(nanoseconds: 1_200_000_000)
        #expect(try await api.call("POST", base, "/v1/join", json: ["code": short, "device": "late"]).errorCode == "unknown_invite", "an expired code")
        #expect(try await api.call("POST", base, "/v1/join", json: ["code": "00000-00000", "device": "x"]).errorCode == "unknown_invite")
        #expect(try await api.call("POST", base, "/v1/join", json: ["device": "x"]).errorCode == "bad_request")
        #expect(try await api.call("POST", base, "/v1/join", body: Array(repeating: 0x20, count: (1 << 20) + 1)).errorCode == "too_large")
        #expect(try await api.call("POST", base, "\(h)/invites", token: ben, json: ["actor": "x"]).errorCode == "forbidden", "a member is no owner")
        #expect(try await api.call("GET", base, "\(h)/devices", token: ben).errorCode == "forbidden")
        #expect(try await api.call("GET", base, "\(h)/journal", token: ben).errorCode == "forbidden")
        #expect(try await api.call("DELETE", base, "\(h)/devices/nobody", token: owner).errorCode == "unknown_device")
        // The outstanding invites, listed and one cancelled (owners); a body not sent as JSON (another website's form): 415.
        _ = try await api.call("POST", base, "\(h)/invites", token: owner, json: ["actor": "cleo"])
        let outstanding = try await api.call("GET", base, "\(h)/invites", token: owner)
        let inviteID = try #require((outstanding.json["invites"] as? [[String: Any]])?.last?["id"] as? String, "\(outstanding.text)")
        #expect(try await api.call("DELETE", base, "\(h)/invites/\(inviteID)", token: owner).status == 204)
        before = files()
        refused(try await api.call("DELETE", base, "\(h)/invites/\(inviteID)", token: owner), 404, "unknown_invite", "an invite cancelled already")
        refused(try await api.call("GET", base, "\(h)/invites", token: ben), 403, "forbidden", "a member lists the invites")
        for path in ["/v1/households", "/v1/join", "\(h)/invites"] {
            let form = try RawHTTP.post(port: asked.port, path, headers: ["Content-Type": "text/plain", "Authorization": "Bearer \(owner)"],
                                        body: Array(#"{"actor":"x","device":"d","code":"00000-00000"}"#.utf8))
            refused(api.check(form, "POST", path), 415, "unsupported_media_type", "\(path) as text/plain")
        }

        // The routes any member's device may use, and the probes.
        let report = try await api.call("GET", base, "\(h)/report", token: ben)
        #expect(report.status == 200 && report.text.contains("<html") && report.text.contains("Home"))
        #expect(try await api.call("GET", base, "\(h)/devices", token: owner).status == 200)
        // Views: any member's device; 304 for the head it has; an option the view does not take.
        let lists = try await api.call("GET", base, "\(h)/views/lists", token: ben)
        #expect(lists.status == 200 && lists.json["view"] as? String == "lists")
        let notModified = api.check(try RawHTTP.call(port: asked.port, "GET", "\(h)/views/lists",
                                                     headers: ["Authorization": "Bearer \(ben)", "If-None-Match": lists.headers["etag"] ?? "none"]), "GET", "\(h)/views/lists")
        #expect(notModified.status == 304)
        before = files()
        refused(try await api.call("GET", base, "\(h)/views/lists?limit=5", token: ben), 400, "bad_option", "an option the lists view does not take")
        let journal = try await api.call("GET", base, "\(h)/journal", token: owner)
        let sameJournal = try journal.body == hub.journal(household.id)
        #expect(journal.status == 200 && sameJournal)
        #expect(try await api.call("GET", base, "/healthz").status == 200)
        #expect(try await api.call("GET", base, "/readyz").status == 200)
        let metrics = try await api.call("GET", base, "/metrics")
        // Each process counts its own: the commands were pushed through the first.
        let pushedThrough = processes > 1 ? try await api.call("GET", hub.base, "/metrics") : metrics
        #expect(metrics.text.contains("shop_hub_requests_total") && pushedThrough.text.contains("shop_hub_commands_total"))

        // The token's rate and the join rate: the same store served again with low limits.
        for sibling in siblings { #expect(sibling.terminate() == 0) }
        #expect(hub.terminate() == 0)
        let slow = try HubProcess(data: hub.data, backend: backend, port: hub.port, arguments: ["--requests-per-second", "1", "--joins-per-minute", "2"])
        var statuses: [Int] = []
        try await Task.sleep(nanoseconds: 1_100_000_000)   // the bucket full again
        // A burst of at least 10 whatever the rate (a device's sync fits in it).
        // The bucket refills at one a second while the requests are made: on a busy machine a request or
        // two more pass. So: at least the burst of 10, then 429 twice, within the refill of the time taken.
        let started = ContinuousClock.now
        while statuses.count < 40, statuses.suffix(2) != [429, 429] {
            statuses.append(try await api.call("GET", slow.base, "/v1/households/\(stranger.id)/devices", token: stranger.ownerToken).status)
        }
        let refilled = Int(started.duration(to: .now).components.seconds) + 1
        let passed = statuses.prefix { $0 == 200 }.count
        #expect(statuses.suffix(2) == [429, 429] && passed >= 10 && passed <= 10 + refilled && statuses.count - passed <= 2 + refilled, "\(statuses)")
        for (method, path, body) in routes {
            // Each route past the rate: the bucket drained, then eight of the route's requests at once. A token
            // refilled meanwhile (one a second) lets one or two through on a busy machine; eight would take
            // eight seconds.
            var drained = 0
            while drained < 40, try await api.call("GET", slow.base, "/v1/households/\(stranger.id)/devices", token: stranger.ownerToken).status != 429 { drained += 1 }
            // A DELETE that got through would revoke the token's own device (and every later answer
            // would be 401): past the rate, it names a device the household does not have (an invite's, none it has).
            let target = "/v1/households/\(stranger.id)" + (method == "DELETE" && path.hasPrefix("/devices/") ? "/devices/nobody" : path)
            let bytes = try body.map { Array(try JSONSerialization.data(withJSONObject: $0)) }
            let url = slow.base + target, token = stranger.ownerToken
            let started = Date()
            let answers = try await withThrowingTaskGroup(of: Answer.self) { group in
                for _ in 0..<8 { group.addTask { try await HTTP.call(method, url, token: token, body: bytes) } }
                return try await group.reduce(into: [Answer]()) { $0.append($1) }
            }
            // A token a second refills while the eight are answered (a report takes a while on a loaded machine).
            let refilledMeanwhile = Int(Date().timeIntervalSince(started).rounded(.up))
            for answer in answers { api.check(answer, method, target) }
            let statuses = answers.map(\.status).sorted()
            #expect(statuses.filter { $0 == 429 }.count >= 6 - refilledMeanwhile && statuses.contains(429), "\(method) \(path) past the rate: \(statuses)")
            #expect(answers.filter { $0.status == 429 }.allSatisfy { $0.errorCode == "rate_limited" })
        }
        var joins: [Int] = []
        for _ in 0..<3 { joins.append(try await api.call("POST", slow.base, "/v1/join", json: ["code": "00000-00000", "device": "x"]).status) }
        #expect(joins == [404, 404, 429], "join attempts past the address's rate")

        // The storage gone: not ready.
        #expect(try await api.call("DELETE", slow.base, "\(h)/devices/ben-phone", token: ben).status == 204)
        if backend == .files {
            try FileManager.default.removeItem(atPath: hub.data + "/households")
        } else {
            let tool = ToolRunner()
            defer { tool.remove() }
            _ = try tool.run([hub.data, "-c", "DROP TABLE shop_hub_schema"], executable: "/usr/bin/psql")
        }
        let notReady = try await api.call("GET", slow.base, "/readyz")
        #expect(notReady.status == 503 && notReady.errorCode == "unavailable")
        #expect(slow.terminate() == 0)

        // What the file storage cannot be made to fail at in a test: the storage's 503 on the other routes.
        let expectedUnseen = api.unseen.filter { !$0.hasSuffix(" 503") && !$0.hasSuffix("POST /v1/households 409") }
        #expect(expectedUnseen == [], "documented answers no test produced")
    }
}
