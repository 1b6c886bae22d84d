import Foundation
import ShopEvents
import ShopTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The sync laws of docs/SYNC.md over HTTP: `shop-hub serve` as a process, two
/// devices as `shop-replay` processes and a third as an app in this process
/// through ``HTTPSyncTransport``, conflicting offline changes, every order of sync.
@Suite("hosted hub: devices sync over HTTP", .serialized)
struct HostedSyncTests {
    @Test("three devices — two shop-replay processes and an app — create, invite, join, change offline and sync in every order: the laws hold", arguments: [Backend.files])
    func lawsHoldInEveryOrder(_ backend: Backend) async throws { try await Self.lawsHoldInEveryOrderBody(backend) }

    @Test("three devices — two shop-replay processes and an app — create, invite, join, change offline and sync in every order: the laws hold — on PostgreSQL", .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [(Backend.postgres, 1), (.partitioned, 1), (.postgres, 2), (.partitioned, 3)])
    func lawsHoldInEveryOrderOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.lawsHoldInEveryOrderBody(backend, processes: processes) }

    /// With several `processes` over one database, behind no balancer: ana's device syncs with the
    /// first, ben's with the second, cleo's with the third (or the first again, with two).
    static func lawsHoldInEveryOrderBody(_ backend: Backend, processes: Int = 1) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend)
        var hubs = [hub]
        for _ in 1..<processes { hubs.append(try hub.sibling()) }
        defer { for sibling in hubs.dropFirst() { #expect(sibling.terminate() == 0) } }
        for order in every(["ana", "ben", "cleo"]) {
            let world = SyncWorld()
            let (household, list, items) = try HostedHousehold.make(on: hub, world: world)
            let (milk, bread) = (items[0], items[1])
            try await household.join("ben", actor: "ben", through: hubs[1 % processes])
            // cleo: an app, through the library.
            let code = try await household.invite("cleo")
            let enrolled = try await HubEnrolment.join(hub: URL(string: hubs[2 % processes].base)!, code: code, device: "cleo-app")
            #expect(enrolled.household == household.id && enrolled.actor == "cleo")
            let transport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
            let cloned = try await SyncClient.clone(journal: world.path("cleo"), settings: SyncSettings(hub: enrolled.url.absoluteString, device: "cleo-app"),
                                                    options: .init(actor: "cleo"), over: transport)
            #expect(cloned.pulled == Scratch.bytes(world.hub).split(separator: 0x0A).count)

            // Offline, all three: two buy the same milk on the list; ana takes the bread off as ben buys it; two rename the milk.
            try world.apply("ben", actor: "ben", [
                #"{"type":"PurchaseItem","data":{"item":"\#(milk)","list":"\#(list)"}}"#,
                #"{"type":"PurchaseItem","data":{"item":"\#(bread)","list":"\#(list)"}}"#,
            ]).forEach { #expect($0["ok"] as? Bool == true, "\($0)") }
            try world.apply("ana", actor: "ana", [
                #"{"type":"RemoveItemFromList","data":{"list":"\#(list)","item":"\#(bread)"}}"#,
                #"{"type":"RenameItem","data":{"item":"\#(milk)","name":"Oat milk"}}"#,
            ]).forEach { #expect($0["ok"] as? Bool == true, "\($0)") }
            let replica = try Replica(path: world.path("cleo"), options: .init(actor: "cleo"))
            world.recordAccepted("cleo", try replica.execute(.purchaseItem(item: milk, list: list)))
            world.recordAccepted("cleo", try replica.execute(.renameItem(item: milk, name: "Whole milk")))

            for device in order + ["ana", "ben", "cleo"] {
                if device == "cleo" {
                    _ = try await SyncClient(journal: world.path("cleo"), options: .init(actor: "cleo")).sync(over: transport)
                } else {
                    let synced = try world.sync(device, actor: device)
                    #expect(synced.status == 0, "\(device): \(synced.stderr)")
                }
            }
            try household.refresh()
            #expect(try world.brokenLaws(devices: ["ana", "ben", "cleo"]) == [], "order \(order)")
            // Both purchases of the milk and ben's bread are in the hub: one on the list, the others retried off it.
            let purchases = try world.hubEvents().compactMap { recorded -> (ItemID, ListID?)? in
                if case let .itemPurchased(_, item, list, _, _, _, _, _) = recorded.event { return (item, list) }
                return nil
            }
            #expect(purchases.filter { $0.0 == milk }.count == 2 && purchases.filter { $0.0 == milk && $0.1 == list }.count == 1, "order \(order)")
            #expect(purchases.filter { $0.0 == bread }.count == 1, "order \(order)")
            // The hub's journal, as the owner reads it over HTTP, is the replicas' bytes.
            let journal = try await HTTP.call("GET", "\(household.url)/journal", token: household.ownerToken)
            #expect(journal.status == 200 && journal.body == Scratch.bytes(world.path("ana")))
        }
        #expect(hub.terminate() == 0)
    }

    @Test("isolation: another household's token is forbidden on every route; a revoked token is refused at once; roles and actors are the rules'", arguments: [Backend.files])
    func isolation(_ backend: Backend) async throws { try await Self.isolationBody(backend) }

    @Test("isolation: another household's token is forbidden on every route; a revoked token is refused at once; roles and actors are the rules' — on PostgreSQL", .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [(Backend.postgres, 1), (.partitioned, 1), (.postgres, 2), (.partitioned, 3)])
    func isolationOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.isolationBody(backend, processes: processes) }

    /// With several `processes` over one database, household B lives on the last: A's token is refused
    /// there and on every other, and B's revoked token on every process.
    static func isolationBody(_ backend: Backend, processes: Int = 1) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        // The token rate limit is tested on its own (BadInputTests); here, many requests a second.
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: ["--requests-per-second", "1000"])
        var hubs = [hub]
        for _ in 1..<processes { hubs.append(try hub.sibling(arguments: ["--requests-per-second", "1000"])) }
        let other = hubs[processes - 1]
        defer { for sibling in hubs.dropFirst() { #expect(sibling.terminate() == 0) } }
        let (a, _, _) = try HostedHousehold.make(on: hub, world: SyncWorld())
        let worldB = SyncWorld()
        let (b, listB, itemsB) = try HostedHousehold.make(on: other, world: worldB, members: [("vic", .viewer)])
        let before = try hub.journal(b.id)
        let routes: [(String, String, Any?)] = [
            ("POST", "/invites", ["actor": "eve"]), ("GET", "/devices", nil), ("DELETE", "/devices/ana-phone", nil),
            ("POST", "/sync", ["hello": ["protocol": 1, "device": "x", "actor": "ana"]]),
            ("POST", "/sync", ["pull": ["after": 0, "hash": String(repeating: "0", count: 64)]]),
            ("POST", "/sync", ["push": ["commands": [["type": "CreateItem", "id": UUID().uuidString, "data": ["name": "Evil"]]]]]),
            ("GET", "/report", nil), ("GET", "/journal", nil),
        ]
        for through in hubs {
            let urlB = "\(through.base)/v1/households/\(b.id)"
            for (method, path, body) in routes {
                let answer: Answer
                if let body { answer = try await HTTP.call(method, urlB + path, token: a.ownerToken, json: body) } else {
                    answer = try await HTTP.call(method, urlB + path, token: a.ownerToken)
                }
                #expect(answer.status == 403 && answer.errorCode == "forbidden", "\(method) \(path) on \(through.base): \(answer.status) \(answer.text)")
                let none = try await HTTP.call(method, urlB + path)
                #expect(none.status == 401 && none.errorCode == "unauthorized", "\(method) \(path) without a token")
                let unknown = try await HTTP.call(method, "\(through.base)/v1/households/\(HouseholdID())\(path)", token: a.ownerToken)
                #expect(unknown.status == 404 && unknown.errorCode == "unknown_household", "\(method) \(path) of an unknown household")
            }
        }
        let unchangedB = try hub.journal(b.id) == before
        #expect(unchangedB, "nothing of B was written")

        // A viewer's command and a non-member's are refused by the roles; a command naming another actor is forbidden.
        let vicCode = try await b.invite("vic"), eveCode = try await b.invite("eve")
        let vic = try await HubEnrolment.join(hub: URL(string: hub.base)!, code: vicCode, device: "vic-phone")
        let eve = try await HubEnrolment.join(hub: URL(string: hub.base)!, code: eveCode, device: "eve-phone")
        func push(_ token: String, actor: String?, _ command: Command) async throws -> PushResult {
            let envelope = CommandEnvelope(command, id: CommandID(), actor: actor)
            let transport = HTTPSyncTransport(household: URL(string: b.url)!, token: token)
            guard case let .results(results) = try await transport.send(.push(commands: [envelope])), let result = results.first else {
                throw HubTestFailure("no results")
            }
            return result
        }
        let buy = Command.purchaseItem(item: itemsB[0], list: listB)
        #expect(try await push(vic.token, actor: nil, buy).error?.code == "forbidden")
        #expect(try await push(eve.token, actor: nil, buy).error?.code == "not_a_member")
        #expect(try await push(b.ownerToken, actor: "vic", buy).error?.code == "forbidden")
        let unchangedAfter = try hub.journal(b.id) == before
        #expect(unchangedAfter, "nothing of B was written")
        // A pull by a non-member works: it may read until an owner adds it.
        let pulled = try await HTTPSyncTransport(household: URL(string: b.url)!, token: eve.token).send(.pull(after: 0, hash: .zero))
        guard case let .lines(lines, _) = pulled else { Issue.record("\(pulled)"); return }
        #expect(lines.count == before.split(separator: 0x0A).count)

        // Revocation: by the device itself, then refused at once, on every route.
        let revoked = try await HTTP.call("DELETE", "\(b.url)/devices/eve-phone", token: eve.token)
        #expect(revoked.status == 204)
        for through in hubs {
            let after = try await HTTP.call("POST", "\(through.base)/v1/households/\(b.id)/sync", token: eve.token,
                                            json: ["pull": ["after": 0, "hash": String(repeating: "0", count: 64)]])
            #expect(after.status == 401 && after.errorCode == "unauthorized", "refused on \(through.base)")
        }
        // An owner revokes another device; a member may not.
        let benCode = try await b.invite("ben")
        let ben = try await HubEnrolment.join(hub: URL(string: hub.base)!, code: benCode, device: "ben-phone")
        #expect(try await HTTP.call("DELETE", "\(b.url)/devices/vic-phone", token: ben.token).errorCode == "forbidden")
        #expect(try await HTTP.call("DELETE", "\(b.url)/devices/vic-phone", token: b.ownerToken).status == 204)
        #expect(try await HTTP.call("GET", "\(b.url)/report", token: vic.token).status == 401)
        let devices = try await HTTP.call("GET", "\(b.url)/devices", token: b.ownerToken)
        #expect((devices.json["devices"] as? [[String: Any]])?.compactMap { $0["device"] as? String } == ["ana-phone", "ben-phone"])
        #expect(hub.terminate() == 0)
    }

    @Test("sync over HTTP exits 3 and loses nothing when the hub rate-limits (429) or cannot be reached; run again, it syncs; a joined replica's commands are by its actor", arguments: [Backend.files])
    func unreachableHubExitsThree(_ backend: Backend) async throws { try await Self.unreachableHubExitsThreeBody(backend) }

    @Test("sync over HTTP exits 3 and loses nothing when the hub rate-limits (429) or cannot be reached; run again, it syncs; a joined replica's commands are by its actor — on PostgreSQL", .enabled(if: Backend.postgresAvailable, Comment(rawValue: Backend.noPostgres)),
          arguments: [Backend.postgres, .partitioned])
    func unreachableHubExitsThreeOnPostgres(_ backend: Backend) async throws { try await Self.unreachableHubExitsThreeBody(backend) }

    static func unreachableHubExitsThreeBody(_ backend: Backend) async throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = try backend.newStore(in: folder)
        var hub = try HubProcess(data: data, backend: backend)
        let world = SyncWorld()
        let (household, list, items) = try HostedHousehold.make(on: hub, world: world)
        try await household.join("ben", actor: "ben")
        // No --actor: the replica ben joined with takes ben, the hub's actor for its token.
        let applied = try world.tool.run(["apply", "--journal", world.path("ben"), "--json"],
                                         stdin: #"{"type":"PurchaseItem","data":{"item":"\#(items[0])","list":"\#(list)"}}"# + "\n",
                                         environment: ["USER": "someone-else"])
        #expect(applied.status == 0 && applied.stdout.contains("\"ok\":true"), "\(applied.stdout) \(applied.stderr)")
        let port = hub.port
        #expect(hub.terminate() == 0)
        let outbox = Scratch.bytes(world.path("ben") + ".outbox")
        #expect(!outbox.isEmpty)

        // Down: exit 3, nothing lost.
        let down = try world.tool.run(["sync", "--journal", world.path("ben")])
        #expect(down.status == 3 && down.stderr.contains("hub_unreachable") && down.stderr.contains("nothing was lost"), "\(down.stderr)")
        #expect(Scratch.bytes(world.path("ben") + ".outbox") == outbox)

        // Rate limiting: 429 is an unreachable hub too.
        hub = try HubProcess(data: data, backend: backend, port: port, arguments: ["--requests-per-second", "1"])
        // A sync fits in the burst at any rate (at least 10 requests): the device spends it first.
        let benToken = try HubToken.load(journal: world.path("ben"))
        let pull = Array(#"{"pull":{"after":0,"hash":"\#(String(repeating: "0", count: 64))"}}"#.utf8)
        for _ in 0..<10 { _ = try await HTTP.call("POST", household.url + "/sync", token: benToken, body: pull) }
        let limited = try world.tool.run(["sync", "--journal", world.path("ben")])
        #expect(limited.status == 3 && limited.stderr.contains("rate limiting"), "\(limited.stderr)")
        #expect(hub.terminate() == 0)

        // Up again (its token's bucket refilled: with PostgreSQL the rate outlives the process): it syncs, and the purchase is ben's.
        hub = try HubProcess(data: data, backend: backend, port: port)
        try await Task.sleep(nanoseconds: 1_100_000_000)
        let synced = try world.tool.run(["sync", "--journal", world.path("ben"), "--json"])
        #expect(synced.status == 0, "\(synced.stderr)")
        try household.refresh()
        let purchase = try world.hubEvents().last
        #expect(purchase?.actor == "ben" && purchase?.event.typeName == "ItemPurchased")
        let ana = try world.sync("ana", actor: "ana")
        #expect(ana.status == 0)
        try household.refresh()
        #expect(Scratch.bytes(world.path("ana")) == Scratch.bytes(world.hub) && Scratch.bytes(world.path("ben")) == Scratch.bytes(world.hub))
        #expect(hub.terminate() == 0)
    }
}
