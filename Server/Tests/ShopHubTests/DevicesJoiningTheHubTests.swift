import Foundation
import ShopEvents
import ShopTestSupport
import Testing

/// Issue 49, items 30–32, against a real `shop-hub serve` on loopback and
/// `shop-replay` processes (docs/HUB.md, devices):
/// a token's device makes its commands as the actor the hub enrolled the
/// token as (the hub's hello names it), whatever `$USER` is; a token kept off
/// the command line; a new household's `CreateHousehold` that names no
/// household; `--join` given the household's address.
@Suite("devices joining the hosted hub", .serialized)
struct DevicesJoiningTheHubTests {
    /// A hub with ana's household (ben and cleo members), and a token for a device of ben's, enrolled by a join.
    static func household(_ folder: URL) async throws -> (HostedHousehold, benToken: String) {
        try Programs.prepare()
        let hub = try HubProcess(data: folder.appendingPathComponent("data").path, arguments: ["--requests-per-second", "1000"])
        let (household, _, _) = try HostedHousehold.make(on: hub, world: SyncWorld())
        let code = try await household.invite("ben")
        let joined = try await HTTP.call("POST", "\(hub.base)/v1/join", json: ["code": code, "device": "ben-laptop"])
        guard joined.status == 201, let token = joined.json["token"] as? String else { throw HubTestFailure("join: \(joined.status) \(joined.text)") }
        return (household, token)
    }

    /// What `clone` prints for a hosted household, as the replica at `journal` now is.
    static func cloneOutput(_ household: HostedHousehold, journal: String, device: String, actor: String, new: Bool = false) throws -> String {
        let head = try Replica(path: journal, options: .init(actor: actor)).replicaHead
        let events = head.seq == 1 ? "event" : "events"
        return "household \(household.id) on 127.0.0.1, this device \(device) as \(actor) (token in \(journal).token)\n"
            + (new ? "the household is new: its first command is CreateHousehold, which takes \"household\": \"\(household.id)\" when it names none\n" : "")
            + "cloned    \(head.seq) \(events) from the hub\npushed    0 commands, 0 accepted\n"
            + (head.seq == 0 ? "          the hub's journal is empty: a new hub, with no household yet (this device's CreateHousehold starts it)\n" : "")
            + "pending   0\nhead      \(head.seq):\(head.hash.hex)\n"
    }

    @Test("the hub's hello names the actor the token was enrolled as")
    func helloNamesTheActor() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, benToken) = try await Self.household(folder)
        // ana's replica is at the hub's head: her first device made and synced the household.
        let head = try Replica(path: household.world.path("ana"), options: .init(actor: "ana")).replicaHead
        for (token, actor) in [(benToken, "ben"), (household.ownerToken, "ana")] {
            let answer = try await HTTP.call("POST", "\(household.url)/sync", token: token, json: ["hello": ["protocol": 1, "device": "x", "actor": ""]])
            #expect(answer.status == 200)
            #expect(answer.text == #"{"hello":{"protocol":1,"household":"\#(household.id)","head":{"seq":\#(head.seq),"hash":"\#(head.hash.hex)"},"actor":"\#(actor)"}}"# + "\n")
        }
        #expect(household.hub.terminate() == 0)
    }

    @Test("clone --token with USER=root and no --actor: the replica is the token's actor's (ben), its commands go through; the same with --token-file and $SHOP_HUB_TOKEN, the token in no output and not in J.sync")
    func cloneTakesTheTokensActor() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, benToken) = try await Self.household(folder)
        let world = household.world
        let tokenFile = world.tool.path("ben-token")
        Scratch.write(Array("  \(benToken)  \nsomething else\n".utf8), to: tokenFile)
        let ways: [(name: String, options: [String], environment: [String: String])] = [
            ("given", ["--token", benToken], ["USER": "root"]),
            ("file", ["--token-file", tokenFile], ["USER": "root", "SHOP_HUB_TOKEN": "not-this-one"]),
            ("environment", [], ["USER": "root", "SHOP_HUB_TOKEN": benToken]),
        ]
        for (number, way) in ways.enumerated() {
            let journal = world.path("ben-\(way.name)")
            let cloned = try world.tool.run(["clone", "--hub", household.url, "--journal", journal, "--device", "ben-laptop"] + way.options,
                                            environment: way.environment)
            #expect(cloned.status == 0 && cloned.stderr == "", "\(way.name): \(cloned.stderr)")
            #expect(cloned.stdout == (try Self.cloneOutput(household, journal: journal, device: "ben-laptop", actor: "ben")), "\(way.name)")
            #expect(String(decoding: Scratch.bytes(journal + ".sync"), as: UTF8.self)
                    == #"{"hub":"\#(household.url)","device":"ben-laptop","actor":"ben"}"# + "\n", "\(way.name)")
            #expect(try HubToken.load(journal: journal) == benToken)
            #expect(try FileManager.default.attributesOfItem(atPath: journal + ".token")[.posixPermissions] as? Int == 0o600)

            // Commands made as root's shell, with no --actor: ben's, and the hub takes them.
            let applied = try world.tool.run(["apply", "--journal", journal, "--json"],
                                             stdin: #"{"type":"CreateItem","data":{"name":"Eggs \#(number)"}}"# + "\n", environment: way.environment)
            #expect(applied.status == 0, "\(way.name): \(applied.stdout) \(applied.stderr)")
            let synced = try world.tool.run(["sync", "--journal", journal], environment: way.environment)
            let head = try Replica(path: journal, options: .init(actor: "ben")).replicaHead
            #expect(synced.status == 0 && synced.stderr == "", "\(way.name): \(synced.stderr)")
            #expect(synced.stdout == "pulled    1 event from the hub\npushed    1 command, 1 accepted\npending   0\nhead      \(head.seq):\(head.hash.hex)\n", "\(way.name)")
            try household.refresh()
            let last = try #require(try world.hubEvents().last)
            #expect(last.actor == "ben" && last.device == "ben-laptop", "\(way.name)")
            for output in [cloned.stdout, cloned.stderr, applied.stdout, synced.stdout, String(decoding: Scratch.bytes(journal + ".sync"), as: UTF8.self)] {
                #expect(!output.contains(benToken), "\(way.name)")
            }
        }
        #expect(household.hub.terminate() == 0)
    }

    @Test("clone --token refusals: an --actor the token is not (actor_mismatch, exit 2), an unknown token (unauthorized, exit 3): nothing is made, the hub unchanged; the token's own actor as --actor is taken")
    func cloneTokenRefusals() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, benToken) = try await Self.household(folder)
        let world = household.world, hub = household.hub
        let records = try hub.records(), journal = try hub.journal(household.id)
        let path = world.path("refused")
        let refusals: [([String], Int32, String)] = [
            (["--token", benToken, "--actor", "cleo"], 2,
             "shop-replay clone: actor_mismatch: --actor cleo, but the hub enrolled this token as ben and takes its commands as ben's alone: leave out --actor; nothing was made\n"),
            (["--token", "no-such-token"], 3,
             "shop-replay clone: unauthorized: the hub refused this device: the token is unknown or revoked; nothing was changed\n"),
        ]
        for (options, status, stderr) in refusals {
            let result = try world.tool.run(["clone", "--hub", household.url, "--journal", path, "--device", "ben-laptop"] + options, environment: ["USER": "root"])
            #expect(result.status == status && result.stdout == "" && result.stderr == stderr, "\(options): \(result.stderr)")
            for file in [path, path + ".sync", path + ".token", path + ".outbox"] { #expect(!FileManager.default.fileExists(atPath: file), "\(options): \(file)") }
            #expect(!result.stderr.contains(benToken))
        }
        #expect(try hub.records() == records)
        #expect(try hub.journal(household.id) == journal)

        let same = try world.tool.run(["clone", "--hub", household.url, "--journal", path, "--device", "ben-laptop", "--token", benToken, "--actor", "ben"],
                                      environment: ["USER": "root"])
        let expected = try Self.cloneOutput(household, journal: path, device: "ben-laptop", actor: "ben")
        #expect(same.status == 0 && same.stdout == expected, "\(same.stderr)")
        #expect(hub.terminate() == 0)
    }

    @Test("clone --join given the household's address (https://HOST/v1/households/H) joins through the hub's /v1/join")
    func joinTakesTheHouseholdsAddress() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let (household, _) = try await Self.household(folder)
        let world = household.world
        let code = try await household.invite("cleo")
        let journal = world.path("cleo")
        let joined = try world.tool.run(["clone", "--join", code, "--hub", household.url, "--journal", journal, "--device", "cleo-phone"],
                                        environment: ["USER": "root"])
        #expect(joined.status == 0 && joined.stderr == "", "\(joined.stderr)")
        #expect(joined.stdout == (try Self.cloneOutput(household, journal: journal, device: "cleo-phone", actor: "cleo")))
        #expect(String(decoding: Scratch.bytes(journal + ".sync"), as: UTF8.self)
                == #"{"hub":"\#(household.url)","device":"cleo-phone","actor":"cleo"}"# + "\n")
        #expect(household.hub.terminate() == 0)
    }

    @Test("a new household: CreateHousehold without a household takes the replica's id, and the hub takes it and what follows")
    func newHouseholdsCreateHouseholdTakesItsID() throws {
        try Programs.prepare()
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let hub = try HubProcess(data: folder.appendingPathComponent("data").path)
        let world = SyncWorld()
        let journal = world.path("ana")
        let cloned = try world.tool.run(["clone", "--new-household", "--hub", hub.base, "--journal", journal, "--device", "ana-phone", "--actor", "ana"])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        let household = try #require(try SyncSettings.load(journal: journal).household)
        let hosted = HostedHousehold(hub: hub, id: household, world: world, ownerToken: try HubToken.load(journal: journal))
        #expect(cloned.stdout == (try Self.cloneOutput(hosted, journal: journal, device: "ana-phone", actor: "ana", new: true)))

        let answers = try world.apply("ana", actor: "ana", [
            #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#,
            #"{"type":"AddMember","data":{"member":"ana","role":"owner"}}"#,
        ])
        #expect(answers.count == 2 && answers.allSatisfy { $0["ok"] as? Bool == true }, "\(answers)")
        #expect((answers.first?["created"] as? [String: String]) == ["household": household.description])
        let synced = try world.tool.run(["sync", "--journal", journal, "--actor", "ana"])
        let head = try Replica(path: journal, options: .init(actor: "ana")).replicaHead
        #expect(synced.status == 0 && synced.stderr == "", "\(synced.stderr)")
        #expect(synced.stdout == "pulled    2 events from the hub\npushed    2 commands, 2 accepted\npending   0\nhead      \(head.seq):\(head.hash.hex)\n")
        world.hub = hub.data + "/households/\(household).ndjson"
        let events = try world.hubEvents()
        #expect(events.count == 2)
        #expect(events.first.map { $0.event } == .householdCreated(household: household, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        #expect(Scratch.bytes(journal) == Scratch.bytes(world.hub))
        #expect(!FileManager.default.fileExists(atPath: journal + ".rejected"))
        #expect(hub.terminate() == 0)
    }
}
