import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
@testable import ShopHub
import ShopEvents
import Testing

// How the hub is laid out (docs/HUB.md, "Adding a route"): each resource's routes declared once, by its
// controller; a household's routes behind the authentication middleware, whose device the handlers read
// from the context; the storage's failures answered in one place; answers as types, written in order.

@Suite("the hub's layout: routes declared once, authentication and storage failures as middleware, answers as types")
struct HubLayoutTests {
    @Test("every route the controllers declare is one the OpenAPI document describes, and every route it describes is declared, each once")
    func routesAreTheDocuments() throws {
        let declared = HubRoutes.routes.map { "\($0.method.rawValue) \($0.path)" }
        #expect(declared.count == Set(declared).count, "a route declared twice: \(declared)")
        let documented = try OpenAPIDocument().statuses.keys
        #expect(Set(declared) == Set(documented))
        #expect(declared.count == 14)
    }

    @Test("a route added through the table, directly, by a collection or in a group, is noted once with its whole path; a path's other methods are found by it")
    func tableNotesWhatIsAdded() {
        let table = RouteTable()
        let router = Router(context: HubRequestContext.self)
        let recorder = RouteTable.Recorder(parent: router, table: table)
        let things = RouteCollection(context: HubRequestContext.self)
        things.post { _, _ in HTTPResponse.Status.created }
        things.get(":thing") { _, _ in HTTPResponse.Status.ok }
        recorder.addRoutes(things, atPath: "/v9/things")
        recorder.group("/v9/boxes/:box").delete("lid") { _, _ in HTTPResponse.Status.noContent }
        recorder.get("/v9/ping") { _, _ in HTTPResponse.Status.ok }
        #expect(table.routes.map { "\($0.method.rawValue) \($0.path)" }
                == ["POST /v9/things", "GET /v9/things/{thing}", "DELETE /v9/boxes/{box}/lid", "GET /v9/ping"])
        #expect(table.routes(at: "/v9/boxes/7/lid").map(\.method) == [.delete])
        #expect(table.routes(at: "/v9/things/x").map(\.method) == [.get])
        #expect(table.routes(at: "/v9/things/x/y").isEmpty && table.routes(at: "/v9").isEmpty)
    }

    /// A hub over memory, with two routes of the test's own: one in a household's group behind ``Authentication``,
    /// one outside it, and one whose storage fails.
    static func hub(_ body: @Sendable (any TestClientProtocol, HubRoutes) async throws -> Void) async throws {
        let hub = HubRoutes(storage: MemoryHubStorage())
        let router = hub.router()
        router.group("/v9/households/:household").add(middleware: Authentication(hub: hub))
            .get("whoami") { _, context in
                let device = try context.requireDevice()
                return "\(device.household) \(device.name) \(device.actor)"
            }
        router.get("/v9/whoami") { _, context in try context.requireDevice().actor }
        router.group().add(middleware: StorageFailures())
            .get("/v9/broken") { _, _ -> String in throw Broken() }
            .get("/v9/refused") { _, _ -> String in throw HubError.forbidden("no") }
            .get("/v9/large") { _, _ -> String in throw HTTPError(.contentTooLarge) }
        var quiet = Logger(label: "shop-hub-layout")
        quiet.logLevel = .critical
        try await Application(router: router, logger: quiet).test(.router) { client in try await body(client, hub) }
    }

    struct Broken: Error {}

    @Test("a household's route finds the authenticated device in its context, after the same refusals in the same order; a route outside the group has none")
    func authenticationPutsTheDeviceInTheContext() async throws {
        try await Self.hub { client, _ in
            let made = try await client.execute(uri: "/v1/households", method: .post, headers: [.contentType: "application/json"],
                                                body: ByteBuffer(string: #"{"device":"ana-phone","actor":"ana"}"#))
            let token = try JSONDecoder().decode(DeviceToken.self, from: Data(made.body.readableBytesView))
            let path = "/v9/households/\(token.household)/whoami"
            let asked = try await client.execute(uri: path, method: .get, headers: [.authorization: "Bearer \(token.token)"])
            #expect(asked.status == .ok && String(buffer: asked.body) == "\(token.household) ana-phone ana")
            func refusal(_ uri: String, _ headers: HTTPFields, _ expected: HubError) async throws {
                let answer = try await client.execute(uri: uri, method: .get, headers: headers)
                #expect(answer.status == expected.status && Array(answer.body.readableBytesView) == expected.body, "\(uri): \(String(buffer: answer.body))")
            }
            try await refusal("/v9/households/nope/whoami", [.authorization: "Bearer \(token.token)"], .unknownHousehold("nope"))
            try await refusal(path, [:], .unauthorized("this route takes Authorization: Bearer TOKEN"))
            try await refusal(path, [.authorization: "Bearer she_nope"], .unknownToken)
            let nowhere = HouseholdID()
            try await refusal("/v9/households/\(nowhere)/whoami", [.authorization: "Bearer \(token.token)"], .unknownHousehold(nowhere.description))
            let other = try await client.execute(uri: "/v1/households", method: .post, headers: [.contentType: "application/json"],
                                                 body: ByteBuffer(string: #"{"device":"ben-phone","actor":"ben"}"#))
            let stranger = try JSONDecoder().decode(DeviceToken.self, from: Data(other.body.readableBytesView))
            try await refusal("/v9/households/\(stranger.household)/whoami", [.authorization: "Bearer \(token.token)"],
                              .forbidden("the token is another household's"))
            try await refusal("/v9/whoami", [.authorization: "Bearer \(token.token)"], .unauthorized("this route takes Authorization: Bearer TOKEN"))
        }
    }

    @Test("a failure of the storage is 503 unavailable with Retry-After, in one place; a refusal and a body too large stay themselves")
    func storageFailuresAreAnsweredInOnePlace() async throws {
        try await Self.hub { client, _ in
            let broken = try await client.execute(uri: "/v9/broken", method: .get)
            let expected = HubError.unavailable("storage: \(Broken())")
            #expect(broken.status == .serviceUnavailable && broken.headers[.retryAfter] == "5" && Array(broken.body.readableBytesView) == expected.body)
            let refused = try await client.execute(uri: "/v9/refused", method: .get)
            #expect(refused.status == .forbidden && Array(refused.body.readableBytesView) == HubError.forbidden("no").body)
            let large = try await client.execute(uri: "/v9/large", method: .get)
            #expect(large.status == .contentTooLarge && Array(large.body.readableBytesView) == HubError.tooLarge(SyncWire.maxRequestBytes).body)
        }
    }

    @Test("an answer type is written as one line of JSON, its keys in declared order, its strings as the journal writes them (quotes, backslashes, any Unicode), a missing lastSeen as null")
    func answersAreWrittenInOrder() throws {
        let odd = "Zoë \"the\" \\ 👍 \u{2028} a/b"
        let devices = DeviceList(devices: [.init(device: odd, actor: "ana", created: "2026-11-28T13:00:00.000Z", lastSeen: nil),
                                           .init(device: "b", actor: odd, created: "c", lastSeen: "d")])
        let expected = SyncWire.line(.object([("devices", .array([
            .object([("device", .string(odd)), ("actor", "ana"), ("created", "2026-11-28T13:00:00.000Z"), ("lastSeen", .null)]),
            .object([("device", "b"), ("actor", .string(odd)), ("created", "c"), ("lastSeen", "d")]),
        ]))]))
        // Foundation's JSONEncoder on Linux orders keys differently from one run to the next: a hundred times the same bytes.
        for _ in 0..<100 { #expect(try AnswerEncoder.json(devices) == expected) }
        #expect(try AnswerEncoder.json(DeviceToken(household: "h", actor: odd, token: "t"))
                == SyncWire.line(.object([("household", "h"), ("actor", .string(odd)), ("token", "t")])))
        #expect(try AnswerEncoder.json(InviteList(invites: [.init(id: "i", actor: "a", by: "b", expires: "e")]))
                == SyncWire.line(.object([("invites", .array([.object([("id", "i"), ("actor", "a"), ("by", "b"), ("expires", "e")])]))])))
        #expect(try AnswerEncoder.json(InviteCode(code: "C", expires: "E")) == SyncWire.line(.object([("code", "C"), ("expires", "E")])))
        #expect(try AnswerEncoder.json(HealthStatus(status: "ok")) == Array("{\"status\":\"ok\"}\n".utf8))
        // And read back by a client's decoder.
        let back = try JSONDecoder().decode(DeviceList.self, from: Data(try AnswerEncoder.json(devices)))
        #expect(back.devices.map(\.device) == [odd, "b"] && back.devices.map(\.lastSeen) == [nil, "d"])
    }
}
