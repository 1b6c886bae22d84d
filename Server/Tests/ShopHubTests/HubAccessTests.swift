import Foundation
import ShopEvents
import ShopTestSupport
import Testing
@testable import ShopHub

/// Who may reach a household, and how its answers are kept (docs/MEMBERS.md, docs/HUB.md): a removed
/// member's devices cut off at once, forms of other websites refused, invites listed and cancelled, the
/// report's headers. Real `shop-hub` processes on loopback, on the files and on PostgreSQL (plain and
/// partitioned, and several processes over one database).
@Suite("the hub's access: removed members, cross-site posts, outstanding invites, the report's headers", .serialized)
struct HubAccessTests {
    static let postgres = Comment(rawValue: Backend.noPostgres)

    // MARK: A removed member's devices

    @Test("removing a member ends every device of that member at once: 401 member_removed on every route, a waiting poll answered within seconds; added again, the old tokens stay dead and a new invite joins",
          arguments: [(Backend.files, 1)])
    func removedMember(_ backend: Backend, processes: Int) async throws { try await Self.removedMemberBody(backend, processes) }

    @Test("removing a member ends every device of that member at once — on PostgreSQL, one process and two (the poll on the other)",
          .enabled(if: Backend.postgresAvailable, postgres), arguments: [(Backend.postgres, 1), (.partitioned, 2)])
    func removedMemberOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.removedMemberBody(backend, processes) }

    /// The removal is pushed through the first process; mo's poll waits on the last.
    static func removedMemberBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(backend, processes)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let first = hubs[0], last = hubs[processes - 1]
        let household = try await RuleHousehold.make(on: first)
        try await household.pushAccepted([.addMember(member: "mo", role: .member)], through: first)
        let phone = try await household.join("mo", device: "mo-phone", through: first)
        let tablet = try await household.join("mo", device: "mo-tablet", through: last)
        let waitingCode = try await household.inviteCode("mo", through: first)
        let url = household.url(last)
        #expect(try await HTTP.call("GET", url + "/views/members", token: phone).status == 200)

        // mo's phone waits for lines on the last process; the owner removes mo through the first.
        let head = try await household.head(through: first)
        let poll = Task { try await household.pull(after: head, wait: 30, token: phone, through: last) }
        try await Task.sleep(nanoseconds: 500_000_000)
        let removing = ContinuousClock.now
        try await household.pushAccepted([.removeMember(member: "mo")], through: first)
        let polled = try await poll.value
        let waited = removing.duration(to: .now)
        print("removed member: the waiting poll on \(backend) (\(processes) process(es)) was answered \(waited) after the removal was sent")
        #expect(Whole(polled) == .refusal(.memberRemoved), "the waiting poll: \(polled.status) \(polled.text)")
        #expect(waited < .seconds(3), "the waiting poll was answered \(waited) after the removal, not at its 30 s")

        // Every route, on every process, for both of mo's devices: 401 member_removed.
        let hello = SyncWire.encode(SyncRequest.hello(protocol: 1, device: "mo-phone", actor: "mo"))
        let pull = Array(#"{"pull":{"after":0,"hash":"\#(SHA256Digest.zero.hex)"}}"#.utf8)
        let push = SyncWire.encode(SyncRequest.push(commands: [CommandEnvelope(.createItem(name: "Cake"), id: CommandID())]))
        func everyRoute(_ token: String, _ what: String) async throws {
            for hub in hubs {
                let url = household.url(hub)
                for (method, path, body) in [("GET", "/views/members", nil), ("GET", "/views/lists", nil), ("GET", "/report", nil),
                                             ("POST", "/sync", hello), ("POST", "/sync", pull), ("POST", "/sync", push)] as [(String, String, [UInt8]?)] {
                    let answer = try await HTTP.call(method, url + path, token: token, body: body)
                    #expect(Whole(answer) == .refusal(.memberRemoved), "\(what): \(method) \(path): \(answer.status) \(answer.text)")
                }
            }
        }
        try await everyRoute(phone, "mo's phone")
        try await everyRoute(tablet, "mo's tablet")
        // mo's outstanding invite went with the removal: refused as an unknown code.
        let late = try await HTTP.call("POST", "\(last.base)/v1/join", json: ["code": waitingCode, "device": "mo-laptop"])
        #expect(Whole(late) == .refusal(.unknownInvite), "\(late.status) \(late.text)")

        // Added again: the old tokens stay dead; a new invite joins, and its device works.
        try await household.pushAccepted([.addMember(member: "mo", role: .member)], through: first)
        try await everyRoute(phone, "mo's phone, mo added again")
        let again = try await household.join("mo", device: "mo-phone", through: last)
        #expect(try await HTTP.call("GET", household.url(first) + "/views/members", token: again).status == 200)
        let devices = try await HTTP.call("GET", household.url(last) + "/devices", token: household.token)
        #expect((devices.json["devices"] as? [[String: Any]])?.compactMap { $0["device"] as? String } == ["ana-phone", "mo-phone"], "\(devices.text)")

        // A device revoked by its name is unauthorized, not removed: the code says why.
        #expect(try await household.revoke("mo-phone", through: first) == 204)
        #expect(Whole(try await HTTP.call("GET", household.url(last) + "/views/members", token: again)) == .refusal(.unknownToken))
        // The owner was never cut off.
        #expect(try await HTTP.call("GET", household.url(last) + "/report", token: household.token).status == 200)
    }

    // MARK: Forms of other websites

    @Test("a JSON route refuses a body not sent as application/json with 415 before any work: no quota spent, nothing written; a token's answer is kept by no cache",
          arguments: [Backend.files])
    func formsRefused(_ backend: Backend) async throws { try await Self.formsRefusedBody(backend) }

    @Test("a JSON route refuses a body not sent as application/json with 415 before any work — on PostgreSQL",
          .enabled(if: Backend.postgresAvailable, postgres), arguments: [Backend.postgres])
    func formsRefusedOnPostgres(_ backend: Backend) async throws { try await Self.formsRefusedBody(backend) }

    static func formsRefusedBody(_ backend: Backend) async throws {
        // One household an hour and one join a minute from an address: a refused post that spent either shows.
        let (hubs, folder) = try HubStorageRuleTests.start(backend, 1, arguments: ["--households-per-hour", "2", "--joins-per-minute", "1"])
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let hub = hubs[0]
        let household = try await RuleHousehold.make(on: hub)
        let code = try await household.inviteCode("ben", through: hub)
        let records = try hub.records()

        let create = Array(#"{"device":"d","actor":"eve"}"#.utf8), join = Array(#"{"code":"\#(code)","device":"ben-phone"}"#.utf8)
        let invite = Array(#"{"actor":"eve"}"#.utf8)
        let forms: [String?] = ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonx",
                                "text/json", nil]
        for type in forms {
            var headers = type.map { ["Content-Type": $0] } ?? [:]
            for (path, body) in [("/v1/households", create), ("/v1/join", join)] {
                let answer = try RawHTTP.post(port: hub.port, path, headers: headers, body: body)
                #expect(Whole(answer) == .refusal(.unsupportedMediaType(type)), "\(path) as \(type ?? "none"): \(answer.status) \(answer.text)")
                #expect(answer.headers["x-content-type-options"] == "nosniff")
            }
            headers["Authorization"] = "Bearer \(household.token)"
            let answer = try RawHTTP.post(port: hub.port, "/v1/households/\(household.id)/invites", headers: headers, body: invite)
            #expect(Whole(answer) == .refusal(.unsupportedMediaType(type)), "invites as \(type ?? "none"): \(answer.status) \(answer.text)")
        }
        #expect(try hub.records() == records, "a refused form wrote nothing")

        // The quotas are whole: the household and the join each pass once, sent as JSON (any case, with a charset).
        let created = try RawHTTP.post(port: hub.port, "/v1/households", headers: ["Content-Type": "Application/JSON; charset=utf-8"], body: create)
        #expect(created.status == 201 && created.headers["cache-control"] == "no-store" && created.headers["x-content-type-options"] == "nosniff",
                "\(created.status) \(created.headers) \(created.text)")
        let joined = try RawHTTP.post(port: hub.port, "/v1/join", headers: ["Content-Type": "application/json"], body: join)
        #expect(joined.status == 201 && joined.headers["cache-control"] == "no-store" && joined.headers["x-content-type-options"] == "nosniff",
                "the code was not spent, nor the join's quota: \(joined.status) \(joined.headers) \(joined.text)")
        let made = try RawHTTP.post(port: hub.port, "/v1/households/\(household.id)/invites",
                                    headers: ["Content-Type": "application/json", "Authorization": "Bearer \(household.token)"], body: invite)
        #expect(made.status == 201 && made.headers["cache-control"] == nil, "\(made.status) \(made.text)")

        // Every API answer, whatever its route or status, says its type is meant.
        for (method, path) in [("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics"), ("GET", "/nothing"), ("PUT", "/healthz"),
                               ("GET", "/v1/households/\(household.id)/devices"), ("GET", "/v1/households/\(household.id)/views/lists")] {
            let answer = try RawHTTP.call(port: hub.port, method, path, headers: ["Authorization": "Bearer \(household.token)"])
            #expect(answer.headers["x-content-type-options"] == "nosniff", "\(method) \(path): \(answer.status) \(answer.headers)")
        }
    }

    // MARK: The report's headers

    @Test("the report is answered under the web app's Content-Security-Policy, with nosniff and no-store", arguments: [Backend.files])
    func reportHeaders(_ backend: Backend) async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(backend, 1)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let household = try await RuleHousehold.make(on: hubs[0])
        let report = try await HTTP.call("GET", household.url(hubs[0]) + "/report", token: household.token)
        #expect(report.status == 200 && report.text.contains("<html"))
        #expect(report.headers["content-type"] == "text/html; charset=utf-8")
        #expect(report.headers["content-security-policy"] == WebApp.contentSecurityPolicy)
        #expect(report.headers["x-content-type-options"] == "nosniff")
        #expect(report.headers["cache-control"] == "no-store")
    }

    // MARK: Outstanding invites

    @Test("an owner lists the outstanding invites and cancels one; a cancelled code is refused at join as an unknown one; a member is forbidden both",
          arguments: [(Backend.files, 1)])
    func invites(_ backend: Backend, processes: Int) async throws { try await Self.invitesBody(backend, processes) }

    @Test("an owner lists the outstanding invites and cancels one — on PostgreSQL, one process and two (cancelled on one, joined on the other)",
          .enabled(if: Backend.postgresAvailable, postgres), arguments: [(Backend.postgres, 1), (.partitioned, 2)])
    func invitesOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.invitesBody(backend, processes) }

    static func invitesBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try HubStorageRuleTests.start(backend, processes)
        defer { HubStorageRuleTests.stop(hubs, folder) }
        let first = hubs[0], last = hubs[processes - 1]
        let api = try Conformance()
        let household = try await RuleHousehold.make(on: first)
        try await household.pushAccepted([.addMember(member: "ben", role: .member)], through: first)
        let ben = try await household.join("ben", device: "ben-phone", through: first)
        let h = "/v1/households/\(household.id)"
        #expect(try await api.call("GET", last.base, "\(h)/invites", token: household.token).json["invites"] as? [Any] != nil)
        #expect(try await api.call("GET", last.base, "\(h)/invites", token: household.token).text == #"{"invites":[]}"# + "\n")

        let cleo = try await api.call("POST", first.base, "\(h)/invites", token: household.token, json: ["actor": "cleo", "expiresIn": 3600])
        let dan = try await api.call("POST", first.base, "\(h)/invites", token: household.token, json: ["actor": "dan"])
        let listed = try await api.call("GET", last.base, "\(h)/invites", token: household.token)
        let invites = try #require(listed.json["invites"] as? [[String: String]], "\(listed.text)")
        let ids = invites.compactMap { $0["id"] }
        #expect(ids.count == 2 && Set(ids).count == 2 && ids.allSatisfy { $0.count == 16 })
        #expect(invites == [["id": ids[0], "actor": "cleo", "by": "ana-phone", "expires": cleo.json["expires"] as? String ?? "?"],
                            ["id": ids[1], "actor": "dan", "by": "ana-phone", "expires": dan.json["expires"] as? String ?? "?"]], "\(listed.text)")
        #expect(!listed.text.contains(cleo.json["code"] as? String ?? "?"), "a listed invite does not show its code")

        // A member is no owner: forbidden, and nothing written.
        let records = try first.records()
        let forbidden = HubError.forbidden("only an owner of the household may do this; ben is not one")
        #expect(Whole(try await api.call("GET", last.base, "\(h)/invites", token: ben)) == .refusal(forbidden))
        #expect(Whole(try await api.call("DELETE", last.base, "\(h)/invites/\(ids[0])", token: ben)) == .refusal(forbidden))
        let unknown = HubError(.notFound, "unknown_invite", "household \(household.id) has no outstanding invite nothing")
        #expect(Whole(try await api.call("DELETE", last.base, "\(h)/invites/nothing", token: household.token)) == .refusal(unknown))
        #expect(try first.records() == records, "a refused request wrote nothing")

        // Cancelled on the last process: gone from the list, and its code refused on the first as one never made.
        #expect(try await api.call("DELETE", last.base, "\(h)/invites/\(ids[0])", token: household.token).status == 204)
        let after = try await api.call("GET", first.base, "\(h)/invites", token: household.token)
        #expect(after.json["invites"] as? [[String: String]] == [invites[1]], "\(after.text)")
        let cancelled = try await api.call("POST", first.base, "/v1/join", json: ["code": cleo.json["code"] as? String ?? "?", "device": "cleo-phone"])
        let neverMade = try await api.call("POST", first.base, "/v1/join", json: ["code": "00000-00000", "device": "cleo-phone"])
        #expect(Whole(cancelled) == .refusal(.unknownInvite) && Whole(neverMade) == .refusal(.unknownInvite), "\(cancelled.text) \(neverMade.text)")
        let again = HubError(.notFound, "unknown_invite", "household \(household.id) has no outstanding invite \(ids[0])")
        #expect(Whole(try await api.call("DELETE", first.base, "\(h)/invites/\(ids[0])", token: household.token)) == .refusal(again))

        // The other code still joins, and is then no longer outstanding.
        let joined = try await api.call("POST", last.base, "/v1/join", json: ["code": dan.json["code"] as? String ?? "?", "device": "dan-phone"])
        #expect(joined.status == 201 && joined.json["actor"] as? String == "dan", "\(joined.text)")
        #expect(try await api.call("GET", last.base, "\(h)/invites", token: household.token).text == #"{"invites":[]}"# + "\n")
    }
}

extension Whole {
    /// A process's answer as the in-process tests compare theirs.
    init(_ answer: Answer) {
        self.init(answer.status, answer.headers["content-type"], answer.body, retryAfter: answer.headers["retry-after"],
                  challenge: answer.headers["www-authenticate"], allow: answer.headers["allow"])
    }
}

extension RuleHousehold {
    /// Pushes `commands` as the owner; every one accepted, or the test fails.
    func pushAccepted(_ commands: [Command], through hub: HubProcess, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let pushed = try await push(commands.map { CommandEnvelope($0, id: CommandID()) }, through: hub)
        #expect(pushed.status == 200 && !pushed.text.contains("\"ok\":false"), "\(pushed.status) \(pushed.text)", sourceLocation: sourceLocation)
    }

    /// An owner's join code for `actor`.
    func inviteCode(_ actor: String, through hub: HubProcess) async throws -> String {
        let invite = try await HTTP.call("POST", url(hub) + "/invites", token: token, json: ["actor": actor])
        guard invite.status == 201, let code = invite.json["code"] as? String else { throw HubTestFailure("invite: \(invite.text)") }
        return code
    }

    /// A device named `device` of `actor`'s, enrolled by a new invite: its token.
    func join(_ actor: String, device: String, through hub: HubProcess) async throws -> String {
        let code = try await inviteCode(actor, through: hub)
        let joined = try await HTTP.call("POST", "\(hub.base)/v1/join", json: ["code": code, "device": device])
        guard joined.status == 201, let token = joined.json["token"] as? String else { throw HubTestFailure("join: \(joined.text)") }
        return token
    }
}
