import Foundation
import ShopEvents
import ShopTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Devices of a hosted hub (docs/SYNC.md, "Devices of a hosted hub"), where
/// no real hub is needed: a hosted hub's address read by the library, a new
/// household's replica, a token kept off the command line, and a hub that drops
/// the connection mid-push — `shop-replay` runs as a process; the hub that drops
/// is a tiny loopback server of its own (Python) that accepts and closes.
@Suite("devices of a hosted hub")
struct HostedHubDeviceTests {
    static let zero = String(repeating: "0", count: 64)

    // MARK: The library

    @Test("a hosted hub's address: the hub of any address under its /v1/, the household of a household's")
    func addresses() throws {
        let h = HouseholdID()
        let hubs: [(String, String)] = [
            ("http://127.0.0.1:8080/v1/households/\(h)", "http://127.0.0.1:8080"),
            ("https://hub.example/v1/households/\(h)/", "https://hub.example"),
            ("https://hub.example/v1/households", "https://hub.example"),
            ("https://hub.example/v1/join", "https://hub.example"),
            ("https://hub.example/v1", "https://hub.example"),
            ("https://hub.example/shop/v1/households/\(h)", "https://hub.example/shop"),
            ("https://hub.example", "https://hub.example"),
            ("https://hub.example/shop", "https://hub.example/shop"),
            ("https://hub.example/v1/other", "https://hub.example/v1/other"),
        ]
        #expect(hubs.map { HubEnrolment.hub(of: URL(string: $0.0)!).absoluteString } == hubs.map(\.1))
        let households: [(String, HouseholdID?)] = [
            ("http://127.0.0.1:8080/v1/households/\(h)", h),
            ("https://hub.example/shop/v1/households/\(h)", h),
            ("https://hub.example/v1/households", nil),
            ("https://hub.example/v1/households/not-a-uuid", nil),
            ("https://hub.example/v1/lists/\(h)", nil),
            ("/srv/households/\(h)", nil),
        ]
        #expect(households.map { HubEnrolment.household(of: URL(string: $0.0)!) } == households.map(\.1))
        #expect(SyncSettings(hub: "http://127.0.0.1:8080/v1/households/\(h)", device: "d").household == h)
        #expect(SyncSettings(hub: "ssh home shop-replay hub --journal /srv/households/\(h)", device: "d").household == nil)
    }

    @Test("a hosted hub's hello names the token's actor; a hello without one, or another answer, names none")
    func helloNamesTheActor() throws {
        let h = HouseholdID()
        let head = JournalHead(seq: 3, hash: SHA256Digest(hex: String(repeating: "ab", count: 32))!)
        let hello = SyncWire.encode(.hello(protocol: 1, household: h, head: head), enrolledActor: "ben")
        #expect(String(decoding: hello, as: UTF8.self)
                == #"{"hello":{"protocol":1,"household":"\#(h)","head":{"seq":3,"hash":"\#(String(repeating: "ab", count: 32))"},"actor":"ben"}}"# + "\n")
        #expect(SyncWire.enrolledActor(inHello: Array(hello.dropLast())) == "ben")
        // A reader that does not know the key reads the hello as before.
        #expect(try SyncWire.readResponse { Array(hello.dropLast()) } == .hello(protocol: 1, household: h, head: head))
        #expect(SyncWire.enrolledActor(inHello: Array(SyncWire.encode(SyncResponse.hello(protocol: 1, household: nil, head: .empty)).dropLast())) == nil)
        // Any other answer is as it was.
        let results = SyncResponse.results([PushResult(command: CommandID(), seqs: [4], error: nil)])
        #expect(SyncWire.encode(results, enrolledActor: "ben") == SyncWire.encode(results))
        #expect(SyncWire.encode(SyncResponse.lines([Array("{}".utf8)], more: false), enrolledActor: "ben") == Array("{\"lines\":1,\"more\":false}\n{}\n".utf8))
    }

    @Test("CommandCodec: a CreateHousehold that names no household takes the one given; one that names its own keeps it")
    func codecTakesTheHousehold() throws {
        let given = HouseholdID(), named = HouseholdID(), made = UUID()
        let ids = IDGenerator { made }
        let bare = Array(#"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#.utf8)
        let own = Array(#"{"type":"CreateHousehold","data":{"household":"\#(named)","name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#.utf8)
        #expect(try CommandCodec.decode(bare, ids: ids, household: given).command
                == .createHousehold(household: given, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        #expect(try CommandCodec.decode(own, ids: ids, household: given).command
                == .createHousehold(household: named, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        #expect(try CommandCodec.decode(bare, ids: ids).command
                == .createHousehold(household: HouseholdID(made), name: "Home", currency: "EUR", timeZone: "Europe/Berlin"))
        // Only a household is taken: a new list's id is still a new one.
        #expect(try CommandCodec.decode(Array(#"{"type":"CreateList","data":{"name":"Weekly"}}"#.utf8), ids: ids, household: given).command
                == .createList(list: ListID(made), name: "Weekly"))
    }

    // MARK: A new household's replica (item 31)

    /// A replica of a hosted household, as `clone --new-household` leaves it before its first sync, at a hub address of `port`.
    static func hostedReplica(_ tool: ToolRunner, household: HouseholdID, port: Int, name: String = "phone") -> String {
        let journal = tool.path("\(name).ndjson")
        Scratch.write(Array(#"{"hub":"http://127.0.0.1:\#(port)/v1/households/\#(household)","device":"ana-phone","actor":"ana"}"#.utf8) + [0x0A],
                      to: journal + ".sync")
        Scratch.write(Array("not-a-real-token\n".utf8), to: journal + ".token")
        return journal
    }

    @Test("on a new household's replica, apply's CreateHousehold without a household takes the replica's id; with one, keeps it; a command hub's replica makes a new one")
    func newHouseholdsReplicaTakesItsID() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let household = HouseholdID(), other = HouseholdID(), command = CommandID()
        let journal = Self.hostedReplica(tool, household: household, port: 9)
        let create = #"{"type":"CreateHousehold","id":"\#(command)","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#
        let applied = try tool.run(["apply", "--journal", journal], stdin: create + "\n")
        #expect(applied.status == 0 && applied.stderr == "")
        #expect(applied.stdout == "pending   \(command)  household \(household.uuid.uuidString)  (in the outbox: `shop-replay sync` sends it)\n")
        let outbox = try JSONValue.parse(Scratch.bytes(journal + ".outbox").dropLast().map { $0 })
        #expect(outbox["data"] == .object([("household", .string(household.description)), ("name", "Home"), ("currency", "EUR"), ("timeZone", "Europe/Berlin")]))
        #expect(try Replica(path: journal, options: .init(actor: "ana")).state.household?.id == household)

        // One that names a household keeps it (the hub judges it).
        let named = ToolRunner()
        defer { named.remove() }
        let second = Self.hostedReplica(named, household: household, port: 9)
        let own = try named.run(["apply", "--journal", second, "--json"],
                                stdin: #"{"type":"CreateHousehold","id":"\#(command)","data":{"household":"\#(other)","name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"# + "\n")
        #expect(own.stdout == #"{"ok":true,"command":"\#(command)","seqs":[],"created":{"household":"\#(other.uuid.uuidString)"},"pending":true}"# + "\n")

        // A replica of a hub reached by a command knows no household before its first: a new id, as on a journal.
        let world = SyncWorld()
        let cloned = try world.tool.run(["clone", "--hub", world.hub, "--new-hub", "--journal", world.path("ana"), "--device", "ana", "--actor", "ana"])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        let answers = try world.apply("ana", actor: "ana", [#"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"#])
        let made = ((answers.first?["created"] as? [String: Any])?["household"] as? String).flatMap(HouseholdID.init)
        #expect(answers.count == 1 && made != nil && made != household)
    }

    // MARK: A token kept off the command line: its refusals (item 30)

    @Test("clone --token-file: a file that is not there or whose first line is empty is refused (exit 2), nothing made; --token and --token-file together, or for a command hub, are usage errors")
    func tokenFileRefusals() throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let household = HouseholdID()
        let hub = "http://127.0.0.1:9/v1/households/\(household)", journal = tool.path("phone.ndjson")
        let missing = tool.path("no-such-token"), empty = tool.path("empty-token")
        Scratch.write(Array("  \nsecret-on-line-two\n".utf8), to: empty)
        let cases: [([String], String)] = [
            (["--token-file", missing],
             "shop-replay clone: bad_token_file: --token-file \(missing) cannot be read (no such file, or not readable); nothing was made\n"),
            (["--token-file", empty],
             "shop-replay clone: bad_token_file: the first line of --token-file \(empty) is empty; it is to hold this device's token; nothing was made\n"),
        ]
        for (options, stderr) in cases {
            let result = try tool.run(["clone", "--hub", hub, "--journal", journal] + options)
            #expect(result.status == 2 && result.stdout == "" && result.stderr == stderr, "\(options)")
            #expect(!result.stderr.contains("secret"))
            for file in [journal, journal + ".sync", journal + ".token"] { #expect(!FileManager.default.fileExists(atPath: file), "\(file)") }
        }
        let both = try tool.run(["clone", "--hub", hub, "--journal", journal, "--token", "t", "--token-file", empty])
        #expect(both.status == 2 && both.stderr == "shop-replay clone: a hosted hub takes one of --token T, --token-file FILE (or $SHOP_HUB_TOKEN), --join CODE or --new-household\nSee shop-replay clone --help\n")
        let command = try tool.run(["clone", "--hub", tool.path("hub.ndjson"), "--journal", journal, "--token-file", empty])
        #expect(command.status == 2 && command.stderr == "shop-replay clone: --token, --token-file, --join and --new-household are for a hosted hub (--hub https://HOST…)\nSee shop-replay clone --help\n")
        // $SHOP_HUB_TOKEN is a token only where one is asked for: with --new-household it is not a second enrolment.
        let none = try tool.run(["clone", "--hub", hub, "--journal", journal], environment: ["SHOP_HUB_TOKEN": ""])
        #expect(none.status == 2 && none.stderr == both.stderr)
    }

    // MARK: A connection dropped mid-push (item 32)

    /// A loopback "hub" in Python that answers hello and pull as an empty
    /// household's and closes the connection on a push without answering:
    /// `drop` closes each connection after each answer and keeps listening;
    /// `vanish` keeps one connection alive and, on the push, closes it and
    /// stops listening (a hub killed mid-push: the client's retry finds no one).
    static let droppingHub = #"""
    import json, socket, sys
    mode = sys.argv[1]
    server = socket.socket()
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(16)
    print(server.getsockname()[1], flush=True)
    zero = "0" * 64
    while True:
        connection, _ = server.accept()
        pending = b""
        while True:
            while b"\r\n\r\n" not in pending:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                pending += chunk
            if b"\r\n\r\n" not in pending:
                connection.close()
                break
            head, rest = pending.split(b"\r\n\r\n", 1)
            length = 0
            for line in head.split(b"\r\n")[1:]:
                key, _, value = line.partition(b":")
                if key.strip().lower() == b"content-length":
                    length = int(value)
            while len(rest) < length:
                chunk = connection.recv(65536)
                if not chunk:
                    break
                rest += chunk
            body, pending = rest[:length], rest[length:]
            request = json.loads(body)
            if "push" in request:
                connection.close()
                if mode == "vanish":
                    server.close()
                    sys.exit(0)
                break
            if "hello" in request:
                answer = {"hello": {"protocol": 1, "household": None, "head": {"seq": 0, "hash": zero}}}
            else:
                answer = {"lines": 0, "more": False}
            line = (json.dumps(answer) + "\n").encode()
            close = b"Connection: close\r\n" if mode == "drop" else b""
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-ndjson\r\n" + close
                               + b"Content-Length: %d\r\n\r\n" % len(line) + line)
            if mode == "drop":
                connection.close()
                break
    """#

    @Test("a hub that drops the connection mid-push: sync says the connection dropped (not 'failed to connect'), exit 3, the outbox and the replica unchanged, nothing rejected", arguments: ["drop", "vanish"])
    func droppedMidPush(_ mode: String) throws {
        let tool = ToolRunner()
        defer { tool.remove() }
        let script = tool.path("dropping-hub.py")
        Scratch.write(Array(Self.droppingHub.utf8), to: script)
        let server = try ChildProcess("/usr/bin/env", ["python3", script, mode], stdout: .pipe, stderr: .file(tool.path("hub.err")))
        defer {
            if server.isRunning { server.kill(SIGKILL) }
            _ = server.waitForExit()
        }
        let port = try #require(server.readLine(timeout: 30).flatMap { Int($0) }, "the loopback hub did not start: \(String(decoding: Scratch.bytes(tool.path("hub.err")), as: UTF8.self))")
        let household = HouseholdID()
        let journal = Self.hostedReplica(tool, household: household, port: port)
        let applied = try tool.run(["apply", "--journal", journal],
                                   stdin: #"{"type":"CreateHousehold","data":{"name":"Home","currency":"EUR","timeZone":"Europe/Berlin"}}"# + "\n")
        #expect(applied.status == 0, "\(applied.stderr)")
        let outbox = Scratch.bytes(journal + ".outbox"), replica = Scratch.bytes(journal)

        let synced = try tool.run(["sync", "--journal", journal])
        #expect(synced.status == 3)
        #expect(synced.stdout == "")
        #expect(synced.stderr == "shop-replay sync: hub_unreachable: the connection to http://127.0.0.1:\(port)/v1/households/\(household) dropped before the hub answered the push — nothing was lost: run sync again\n")
        #expect(Scratch.bytes(journal + ".outbox") == outbox)
        #expect(Scratch.bytes(journal) == replica)
        #expect(!FileManager.default.fileExists(atPath: journal + ".rejected"))
    }
}
