import Foundation
import ShopEvents
import ShopTestSupport
import Synchronization
import Testing
@testable import ShopHub
#if canImport(Glibc)
import Glibc
#endif

/// The hub's storage rules (docs/HUB.md): each test runs
/// against real `shop-hub` processes on the files and on PostgreSQL (plain and partitioned, and with
/// several processes over one database), but for the torn record, which is the file storage's own.
@Suite("the hosted hub: the storage's rules", .serialized)
struct HubStorageRuleTests {
    static let postgres = Comment(rawValue: Backend.noPostgres)

    // MARK: Item 1: a token is checked when the answer is given

    @Test("a long poll whose device is revoked while it waits answers 401: woken by a line, or at its time", arguments: [(Backend.files, 1)])
    func revokedPollAnswers401(_ backend: Backend, processes: Int) async throws { try await Self.revokedPollBody(backend, processes) }

    @Test("a long poll whose device is revoked while it waits answers 401 — on PostgreSQL", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [(Backend.postgres, 1), (.partitioned, 2)])
    func revokedPollAnswers401OnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.revokedPollBody(backend, processes) }

    /// The polls go to the last process; the revocations and the push to the first.
    static func revokedPollBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try start(backend, processes)
        defer { stop(hubs, folder) }
        let household = try await RuleHousehold.make(on: hubs[0])
        let ben = try await household.join("ben", through: hubs[0]), cleo = try await household.join("cleo", through: hubs[0])
        let poller = hubs[processes - 1]

        // Revoked while it waits, then a line pushed: 401, not the line.
        let head = try await household.head(through: hubs[0])
        let woken = Task { try await household.pull(after: head, wait: 20, token: ben, through: poller) }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        #expect(try await household.revoke("ben-phone", through: hubs[0]) == 204)
        let pushed = try await household.push([CommandEnvelope(.createItem(name: "Milk"), id: CommandID())], through: hubs[0])
        #expect(pushed.status == 200)
        let answer = try await woken.value
        #expect(answer.status == 401 && answer.body == HubError.unknownToken.body, "\(answer.status) \(answer.text)")

        // Revoked while it waits, and nothing pushed: 401 at its time, not an empty answer.
        let timedOut = Task { try await household.pull(after: try await household.head(through: hubs[0]), wait: 2, token: cleo, through: poller) }
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(try await household.revoke("cleo-phone", through: hubs[0]) == 204)
        let late = try await timedOut.value
        #expect(late.status == 401 && late.body == HubError.unknownToken.body, "\(late.status) \(late.text)")

        // Revoked while it waits a long time, nothing pushed: 401 at once, not at its time — the revoke wakes the
        // household's polls on every process (PostgreSQL: a NOTIFY), and a woken poll checks its token.
        let dan = try await household.join("dan", through: hubs[0])
        let started = ContinuousClock.now
        let long = Task { try await household.pull(after: try await household.head(through: hubs[0]), wait: 30, token: dan, through: poller) }
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(try await household.revoke("dan-phone", through: hubs[0]) == 204)
        let soon = try await long.value
        #expect(soon.status == 401 && soon.body == HubError.unknownToken.body, "\(soon.status) \(soon.text)")
        #expect(started.duration(to: .now) < .seconds(10), "answered when revoked, not after its 30 s")
    }

    // MARK: Item 2: a retried push is answered from its record

    @Test("a retried push is answered from its record with the first seqs, on the process that took it and on others; nothing is appended",
          arguments: [(Backend.files, 1)])
    func retriedPush(_ backend: Backend, processes: Int) async throws { try await Self.retriedPushBody(backend, processes) }

    @Test("a retried push is answered from its record with the first seqs — on PostgreSQL, one and three processes", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [(Backend.postgres, 1), (.postgres, 3), (.partitioned, 3)])
    func retriedPushOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.retriedPushBody(backend, processes) }

    static func retriedPushBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try start(backend, processes)
        defer { stop(hubs, folder) }
        let household = try await RuleHousehold.make(on: hubs[0])
        let seq = try await household.head(through: hubs[0]).seq
        let milk = CommandEnvelope(.createItem(name: "Milk"), id: CommandID())
        let first = try await household.push([milk], through: hubs[0])
        let expected = SyncWire.encode(SyncResponse.results([PushResult(command: milk.id!, seqs: [seq + 1], error: nil)]))
        #expect(first.status == 200 && first.body == expected, "\(first.status) \(first.text)")
        let journal = try hubs[0].journal(household.id)
        // The same process first (the issue's case), then every other.
        for through in hubs + hubs {
            let again = try await household.push([milk], through: through)
            #expect(again.status == 200 && again.body == expected, "retry on \(through.base): \(again.status) \(again.text)")
        }
        #expect(try hubs[0].journal(household.id) == journal, "a retry appends nothing")

        // A retried command with a new one: the first from its record, the second decided after the head.
        let bread = CommandEnvelope(.createItem(name: "Bread"), id: CommandID())
        let both = SyncWire.encode(SyncResponse.results([PushResult(command: milk.id!, seqs: [seq + 1], error: nil),
                                                         PushResult(command: bread.id!, seqs: [seq + 2], error: nil)]))
        for through in [hubs[processes - 1]] + hubs {
            let mixed = try await household.push([milk, bread], through: through)
            #expect(mixed.status == 200 && mixed.body == both, "on \(through.base): \(mixed.status) \(mixed.text)")
        }
        let lines = try hubs[0].journal(household.id).split(separator: 0x0A)
        #expect(lines.count == seq + 2 && Array(lines.dropLast()) == journal.split(separator: 0x0A))
    }

    // MARK: Item 33: a poll answers with lines after `after`, or none at its time

    @Test("a long poll answers only with lines after `after`, or with none at its time: a retried push (no line) wakes none early",
          arguments: [(Backend.files, 1)])
    func pollWakesOnlyForLines(_ backend: Backend, processes: Int) async throws { try await Self.pollWakesOnlyForLinesBody(backend, processes) }

    @Test("a long poll answers only with lines after `after`, or with none at its time — on PostgreSQL", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [(Backend.postgres, 1), (.partitioned, 2)])
    func pollWakesOnlyForLinesOnPostgres(_ backend: Backend, processes: Int) async throws { try await Self.pollWakesOnlyForLinesBody(backend, processes) }

    static func pollWakesOnlyForLinesBody(_ backend: Backend, _ processes: Int) async throws {
        let (hubs, folder) = try start(backend, processes)
        defer { stop(hubs, folder) }
        let household = try await RuleHousehold.make(on: hubs[0])
        let poller = hubs[processes - 1]
        let milk = CommandEnvelope(.createItem(name: "Milk"), id: CommandID())
        #expect(try await household.push([milk], through: hubs[0]).status == 200)

        // A retry wakes the household's polls with no line; the poll waits on, and answers with the next line.
        let head = try await household.head(through: hubs[0])
        let began = ContinuousClock.now
        let poll = Task { () throws -> (Answer, ContinuousClock.Instant) in
            let answer = try await household.pull(after: head, wait: 20, token: household.token, through: poller)
            return (answer, .now)
        }
        try await Task.sleep(nanoseconds: 700_000_000)
        #expect(try await household.push([milk], through: hubs[0]).status == 200)
        try await Task.sleep(nanoseconds: 700_000_000)
        let pushedAt = ContinuousClock.now
        #expect(try await household.push([CommandEnvelope(.createItem(name: "Bread"), id: CommandID())], through: hubs[0]).status == 200)
        let (answer, answeredAt) = try await poll.value
        let line = try #require(try hubs[0].journal(household.id).split(separator: 0x0A).last)
        #expect(answer.status == 200 && answer.body == SyncWire.encode(SyncResponse.lines([Array(line)], more: false)), "\(answer.status) \(answer.text)")
        #expect(answeredAt > pushedAt, "answered \(began.duration(to: answeredAt)) after it began, before the push at \(began.duration(to: pushedAt))")

        // Nothing but a retry: no line, answered at its time.
        let now = try await household.head(through: hubs[0])
        let started = ContinuousClock.now
        let empty = Task { try await household.pull(after: now, wait: 2, token: household.token, through: poller) }
        try await Task.sleep(nanoseconds: 500_000_000)
        #expect(try await household.push([milk], through: hubs[0]).status == 200)
        let quiet = try await empty.value
        let waited = started.duration(to: .now)
        #expect(quiet.status == 200 && quiet.body == SyncWire.encode(SyncResponse.lines([], more: false)), "\(quiet.status) \(quiet.text)")
        #expect(waited >= .milliseconds(1_900), "answered after \(waited), not at its time (2 s)")
    }

    // MARK: Item 22: a refused request writes nothing, not even when its device was seen

    @Test("a refused request (400, 409, 413) writes nothing, not even a device's last-seen time; an answered one notes it",
          arguments: [Backend.files])
    func refusedRequestNotesNoSighting(_ backend: Backend) async throws { try await Self.refusedRequestBody(backend) }

    @Test("a refused request writes nothing, not even a device's last-seen time — on PostgreSQL", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [Backend.postgres, .partitioned])
    func refusedRequestNotesNoSightingOnPostgres(_ backend: Backend) async throws { try await Self.refusedRequestBody(backend) }

    static func refusedRequestBody(_ backend: Backend) async throws {
        let (hubs, folder) = try start(backend, 1)
        defer { stop(hubs, folder) }
        let hub = hubs[0]
        // A new household: its device has never been seen (more than a minute ago, as it were).
        let created = try await HTTP.call("POST", "\(hub.base)/v1/households", json: ["device": "ana-phone", "actor": "ana"])
        let token = try #require(created.json["token"] as? String)
        let household = try #require(HouseholdID(created.json["household"] as? String ?? ""))
        let before = try sightings(hub)
        #expect(before.seen == ["\(TokenHash(of: token).hex) -"])

        let url = "\(hub.base)/v1/households/\(household)"
        let refusals: [(String, String, [UInt8], Int, String)] = [
            ("POST", "/sync", Array(#"{"nope":1}"#.utf8), 400, "bad_request"),
            ("POST", "/sync", Array(#"{"hello":{"protocol":9,"device":"d","actor":"ana"}}"#.utf8), 400, "unsupported_protocol"),
            ("POST", "/sync", Array(#"{"pull":{"after":5,"hash":"\#(String(repeating: "0", count: 64))"}}"#.utf8), 409, "diverged"),
            ("POST", "/sync", [UInt8](repeating: 0x20, count: SyncWire.maxRequestBytes + 1), 413, "too_large"),
            ("POST", "/invites", Array("[]".utf8), 400, "bad_request"),
        ]
        for (method, path, body, status, code) in refusals {
            let answer = try await HTTP.call(method, url + path, token: token, body: body)
            #expect(answer.status == status && answer.errorCode == code, "\(path): \(answer.status) \(answer.text)")
        }
        try await Task.sleep(nanoseconds: 300_000_000)   // the files' sighting is written after the answer
        let after = try sightings(hub)
        #expect(after.raw == before.raw && after.seen == before.seen, "a refusal wrote: \(after.seen)")

        // Answered: the device is noted as seen, at the hub's time.
        let from = Timestamp(Date()).millisecondsSince1970
        let hello = try await HTTP.call("POST", url + "/sync", token: token, body: Array(#"{"hello":{"protocol":1,"device":"ana-phone","actor":"ana"}}"#.utf8))
        #expect(hello.status == 200)
        try await Task.sleep(nanoseconds: 300_000_000)
        let to = Timestamp(Date()).millisecondsSince1970
        let noted = try sightings(hub)
        let parts = try #require(noted.seen.first?.split(separator: " "))
        let at = Int64(parts.last ?? "") ?? 0
        #expect(noted.seen.count == 1 && parts.first.map(String.init) == TokenHash(of: token).hex && at >= from && at <= to, "\(noted.seen)")
        if backend == .files {
            // The records are the same but for one more line: the sighting.
            let line = "{\"type\":\"seen\",\"tokenHash\":\"\(TokenHash(of: token).hex)\",\"at\":\"\(Timestamp(millisecondsSince1970: at))\"}\n"
            #expect(noted.raw == before.raw + Array(line.utf8))
        }
    }

    /// What a device's sighting may change: every device's `TOKENHASH LASTSEEN_MS` (or `-`), and the
    /// raw records (the files' `hub.ndjson`; PostgreSQL's records as ``HubProcess/records()`` reads them).
    static func sightings(_ hub: HubProcess) throws -> (seen: [String], raw: [UInt8]) {
        switch hub.backend {
        case .files:
            let raw = Scratch.bytes(hub.data + "/hub.ndjson")
            var devices: [String] = [], seen: [String: String] = [:]
            for line in raw.split(separator: 0x0A) {
                guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: String], let hash = object["tokenHash"] else { continue }
                if object["type"] == "device" { devices.append(hash) }
                if object["type"] == "seen", let at = object["at"].flatMap(Timestamp.init) { seen[hash] = "\(at.millisecondsSince1970)" }
            }
            return (devices.map { "\($0) \(seen[$0] ?? "-")" }, raw)
        case .postgres, .partitioned:
            let seen = try psql(hub.data, "SELECT token_hash || ' ' || coalesce(last_seen_ms::text, '-') FROM devices ORDER BY created_ms")
            return (seen, Array(try hub.records().joined(separator: "\n").utf8))
        }
    }

    // MARK: Item 29: the hub's alone; addresses kept keyed

    @Test("files: the folders are 0700 and the files 0600; a household's address is kept as an HMAC with the hub's key")
    func filesArePrivateAndAddressesKeyed() async throws {
        let (hubs, folder) = try Self.start(.files, 1)
        defer { Self.stop(hubs, folder) }
        let data = hubs[0].data
        let household = try await RuleHousehold.make(on: hubs[0])
        let journal = "\(data)/households/\(household.id).ndjson"
        #expect(Self.modes([data, data + "/households", data + "/hub.ndjson", data + "/hub.lock", data + "/hub.key", journal, journal + ".lock"])
                == [0o700, 0o700, 0o600, 0o600, 0o600, 0o600, 0o600])
        let key = try #require(AddressKey(hex: String(decoding: Scratch.bytes(data + "/hub.key"), as: UTF8.self).trimmingCharacters(in: .newlines)))
        let record = try #require(String(decoding: Scratch.bytes(data + "/hub.ndjson"), as: UTF8.self).split(separator: "\n").first)
        let created = try #require((try JSONSerialization.jsonObject(with: Data(record.utf8)) as? [String: String])?["created"])
        #expect(record == #"{"type":"household","household":"\#(household.id)","created":"\#(created)","address":"\#(key.hash("127.0.0.1").hex)"}"#)
        #expect(key.hash("127.0.0.1") != TokenHash(of: "127.0.0.1"))
    }

    @Test("files: a folder an older hub made (0755, 0644, plain address hashes) is made the hub's alone and keeps working; its plain hashes count no more")
    func olderFolderIsMadePrivate() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data").path
        let household = HouseholdID(), token = Secrets.token()
        let now = Timestamp(Date())
        try FileManager.default.createDirectory(atPath: data + "/households", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        _ = chmod(data, 0o755)
        let records = [
            #"{"type":"household","household":"\#(household)","created":"\#(now)","address":"\#(TokenHash(of: "127.0.0.1").hex)"}"#,
            #"{"type":"device","household":"\#(household)","device":"ana-phone","actor":"ana","tokenHash":"\#(TokenHash(of: token).hex)","created":"\#(now)"}"#,
        ]
        #expect(FileManager.default.createFile(atPath: data + "/hub.ndjson", contents: Data((records.joined(separator: "\n") + "\n").utf8), attributes: [.posixPermissions: 0o644]))
        let journal = "\(data)/households/\(household).ndjson"
        #expect(FileManager.default.createFile(atPath: journal, contents: Data(), attributes: [.posixPermissions: 0o644]))
        let hub = try HubProcess(data: data, arguments: ["--households-per-hour", "1"])
        defer { #expect(hub.terminate() == 0) }
        #expect(Self.modes([data, data + "/households", data + "/hub.ndjson", data + "/hub.key", journal]) == [0o700, 0o700, 0o600, 0o600, 0o644],
                "at start: the folders and the hub's records; a journal when its household is used")
        let hello = try await HTTP.call("POST", "\(hub.base)/v1/households/\(household)/sync", token: token,
                                        body: Array(#"{"hello":{"protocol":1,"device":"ana-phone","actor":"ana"}}"#.utf8))
        #expect(hello.status == 200 && hello.text == #"{"hello":{"protocol":1,"household":null,"head":{"seq":0,"hash":"\#(String(repeating: "0", count: 64))"},"actor":"ana"}}"# + "\n")
        #expect(Self.modes([journal]) == [0o600])
        // The plain hash of the older hub's household is not counted: one household an hour from here, and then no more.
        let first = try await HTTP.call("POST", "\(hub.base)/v1/households", json: ["device": "d", "actor": "a"])
        #expect(first.status == 201, "\(first.text)")
        let second = try await HTTP.call("POST", "\(hub.base)/v1/households", json: ["device": "d", "actor": "a"])
        #expect(second.status == 429 && second.errorCode == "rate_limited", "\(second.text)")
    }

    @Test("PostgreSQL: a household's address is kept as an HMAC with the database's hub key; plain hashes count no more", .enabled(if: Backend.postgresAvailable, postgres),
          arguments: [Backend.postgres, .partitioned])
    func addressesKeyedOnPostgres(_ backend: Backend) async throws {
        let (hubs, folder) = try Self.start(backend, 1, arguments: ["--households-per-hour", "1"])
        defer { Self.stop(hubs, folder) }
        let data = hubs[0].data
        // An older hub's plain hash of this address, a minute ago.
        let minuteAgo = Timestamp(Date()).millisecondsSince1970 - 60_000
        _ = try Self.psql(data, "INSERT INTO household_creations VALUES ('\(TokenHash(of: "127.0.0.1").hex)', \(minuteAgo), '\(HouseholdID())')")
        let created = try await HTTP.call("POST", "\(hubs[0].base)/v1/households", json: ["device": "ana-phone", "actor": "ana"])
        #expect(created.status == 201, "\(created.text)")
        let household = try #require(created.json["household"] as? String)
        let key = try #require(AddressKey(hex: try Self.psql(data, "SELECT secret FROM shop_hub_secrets WHERE name = 'address'").first ?? ""))
        #expect(try Self.psql(data, "SELECT address_hash FROM household_creations WHERE household = '\(household)'") == [key.hash("127.0.0.1").hex])
        let second = try await HTTP.call("POST", "\(hubs[0].base)/v1/households", json: ["device": "d", "actor": "a"])
        #expect(second.status == 429 && second.errorCode == "rate_limited", "\(second.text)")
        // Another process over the same database keys with the same key.
        let sibling = try hubs[0].sibling(arguments: ["--households-per-hour", "1"])
        defer { #expect(sibling.terminate() == 0) }
        let third = try await HTTP.call("POST", "\(sibling.base)/v1/households", json: ["device": "d", "actor": "a"])
        #expect(third.status == 429 && third.errorCode == "rate_limited", "\(third.text)")
    }

    @Test("HMAC-SHA256 is RFC 4231's (test cases 1, 2 and 6)")
    func hmacIsRFC4231() {
        func hex(_ text: String) -> [UInt8] { Array(text.utf8) }
        #expect(AddressKey.hmac(key: [UInt8](repeating: 0x0B, count: 20), message: hex("Hi There")).hex
                == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        #expect(AddressKey.hmac(key: hex("Jefe"), message: hex("what do ya want for nothing?")).hex
                == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
        #expect(AddressKey.hmac(key: [UInt8](repeating: 0xAA, count: 131), message: hex("Test Using Larger Than Block-Size Key - Hash Key First")).hex
                == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
        let key = AddressKey.random()
        #expect(AddressKey(hex: key.hex) == key && key.hex.count == 64)
    }

    // MARK: Item 34: a torn record is kept durably before the cut

    @Test("files: a torn last record is kept (0600, through the core's durable path) before the records are cut; if it cannot be kept, nothing is cut")
    func tornRecordKeptBeforeTheCut() async throws {
        let folder = Scratch.directory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = URL(fileURLWithPath: folder.appendingPathComponent("data").path).standardizedFileURL.path
        try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
        let household = HouseholdID()
        let whole = Array("{\"type\":\"household\",\"household\":\"\(household)\",\"created\":\"2026-11-26T10:00:00.000Z\"}\n".utf8)
        let torn = Array(#"{"type":"device","household":"#.utf8)
        let records = data + "/hub.ndjson"
        Scratch.write(whole + torn, to: records)
        let at = Timestamp(millisecondsSince1970: 1_800_000_000_000)
        let clock = Clock { at }
        let backup = "\(records).torn-\(at.millisecondsSince1970)"

        // The copy cannot be written (a folder stands where the durable path writes it first): nothing is cut.
        let obstacle = "\(backup).tmp-\(getpid())"
        try FileManager.default.createDirectory(atPath: obstacle, withIntermediateDirectories: false)
        #expect(throws: HubError.unavailable("the torn last line of \(records) could not be kept in \(backup) (create \(obstacle) failed: File exists (errno 17)); nothing was cut")) {
            _ = try FileHubStorage(directory: data, clock: clock)
        }
        #expect(Scratch.bytes(records) == whole + torn)
        try FileManager.default.removeItem(atPath: obstacle)

        // A copy of that name is there already: it is not overwritten, and nothing is cut.
        try FileManager.default.createDirectory(atPath: backup, withIntermediateDirectories: false)
        #expect(throws: HubError.unavailable("the torn last line of \(records) could not be kept in \(backup) (it exists already); nothing was cut")) {
            _ = try FileHubStorage(directory: data, clock: clock)
        }
        #expect(Scratch.bytes(records) == whole + torn)
        try FileManager.default.removeItem(atPath: backup)

        // Kept, then cut.
        let storage = try FileHubStorage(directory: data, clock: clock)
        #expect(Scratch.bytes(records) == whole)
        #expect(Scratch.bytes(backup) == torn && Self.modes([backup]) == [0o600])
        #expect(try await storage.households() == [household])
        #expect(try FileManager.default.contentsOfDirectory(atPath: data).sorted() == ["households", "hub.key", "hub.lock", "hub.ndjson", "hub.ndjson.torn-1800000000000"])
    }

    // MARK: Helpers

    /// `processes` hubs over a new store (each `arguments`, and many requests a second); the folder to remove.
    static func start(_ backend: Backend, _ processes: Int, arguments: [String] = []) throws -> ([HubProcess], URL) {
        try Programs.prepare()
        let folder = Scratch.directory()
        let arguments = ["--requests-per-second", "1000"] + arguments
        let hub = try HubProcess(data: try backend.newStore(in: folder), backend: backend, arguments: arguments)
        var hubs = [hub]
        for _ in 1..<processes { hubs.append(try hub.sibling(arguments: arguments)) }
        return (hubs, folder)
    }

    static func stop(_ hubs: [HubProcess], _ folder: URL) {
        for hub in hubs { #expect(hub.terminate() == 0) }
        try? FileManager.default.removeItem(at: folder)
    }

    static func modes(_ paths: [String]) -> [mode_t] {
        paths.map { path in
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o777 : 0
        }
    }

    /// `query`'s rows, one a line, in the database at `url`.
    @discardableResult
    static func psql(_ url: String, _ query: String) throws -> [String] {
        let tool = ToolRunner()
        defer { tool.remove() }
        let result = try tool.run([url, "-At", "-c", query], executable: "/usr/bin/psql")
        guard result.status == 0 else { throw HubTestFailure("psql: \(result.stderr)") }
        return result.stdout.split(separator: "\n").map(String.init)
    }
}

/// A household made over HTTP alone (no replica): ana's device, `CreateHousehold` and ana an owner pushed.
struct RuleHousehold {
    let id: HouseholdID
    /// Ana's (the owner's) token.
    let token: String

    static func make(on hub: HubProcess) async throws -> RuleHousehold {
        let created = try await HTTP.call("POST", "\(hub.base)/v1/households", json: ["device": "ana-phone", "actor": "ana"])
        guard created.status == 201, let token = created.json["token"] as? String,
              let id = HouseholdID(created.json["household"] as? String ?? "") else { throw HubTestFailure("create: \(created.status) \(created.text)") }
        let household = RuleHousehold(id: id, token: token)
        let pushed = try await household.push([
            CommandEnvelope(.createHousehold(household: id, name: "Home", currency: "EUR", timeZone: "Europe/Berlin"), id: CommandID()),
            CommandEnvelope(.addMember(member: "ana", role: .owner), id: CommandID()),
        ], through: hub)
        guard pushed.status == 200, !pushed.text.contains("\"ok\":false") else { throw HubTestFailure("first push: \(pushed.text)") }
        return household
    }

    func url(_ hub: HubProcess) -> String { "\(hub.base)/v1/households/\(id)" }

    func push(_ commands: [CommandEnvelope], through hub: HubProcess) async throws -> Answer {
        try await HTTP.call("POST", url(hub) + "/sync", token: token, body: SyncWire.encode(SyncRequest.push(commands: commands)))
    }

    /// The hub's head, as `hello` gives it.
    func head(through hub: HubProcess) async throws -> JournalHead {
        let answer = try await HTTP.call("POST", url(hub) + "/sync", token: token, body: SyncWire.encode(SyncRequest.hello(protocol: 1, device: "ana-phone", actor: "ana")))
        guard case let .hello(_, _, head)? = try? SyncResponse(json: JSONValue.parse(answer.body)) else { throw HubTestFailure("hello: \(answer.text)") }
        return head
    }

    /// A long poll: a pull after `head` that waits up to `wait` seconds.
    func pull(after head: JournalHead, wait: Int, token: String, through hub: HubProcess) async throws -> Answer {
        try await HTTP.call("POST", url(hub) + "/sync", token: token,
                            body: Array(#"{"pull":{"after":\#(head.seq),"hash":"\#(head.hash.hex)","wait":\#(wait)}}"#.utf8))
    }

    /// A device of `actor`'s, enrolled by an invite: its token.
    func join(_ actor: String, through hub: HubProcess) async throws -> String {
        let invite = try await HTTP.call("POST", url(hub) + "/invites", token: token, json: ["actor": actor])
        guard invite.status == 201, let code = invite.json["code"] as? String else { throw HubTestFailure("invite: \(invite.text)") }
        let joined = try await HTTP.call("POST", "\(hub.base)/v1/join", json: ["code": code, "device": "\(actor)-phone"])
        guard joined.status == 201, let token = joined.json["token"] as? String else { throw HubTestFailure("join: \(joined.text)") }
        return token
    }

    /// An owner's `DELETE` of a device: the status.
    func revoke(_ device: String, through hub: HubProcess) async throws -> Int {
        try await HTTP.call("DELETE", url(hub) + "/devices/\(device)", token: token).status
    }
}
