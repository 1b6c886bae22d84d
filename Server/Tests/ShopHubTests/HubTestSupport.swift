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

    static let shopHub: String = {
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

/// A `shop-hub serve` process on loopback over a data folder of its own.
final class HubProcess: @unchecked Sendable {
    // @unchecked: one task at a time drives it (a test, or the task that kills and restarts it while devices only send to its port).
    let data: String
    private(set) var port: Int
    private var child: ChildProcess
    let logPath: String
    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts the hub; `port` 0 takes a free one (kept across ``restart()``).
    init(data: String, port: Int = 0, arguments: [String] = []) throws {
        self.data = data
        logPath = data + ".log"
        (child, self.port) = try Self.start(data: data, port: port, arguments: arguments, log: logPath)
        self.arguments = arguments
    }

    private let arguments: [String]

    private static func start(data: String, port: Int, arguments: [String], log: String) throws -> (ChildProcess, Int) {
        let child = try ChildProcess(Programs.shopHub, ["serve", "--port", "\(port)", "--data", data] + arguments,
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

    /// SIGTERM, then the exit status.
    func terminate() -> Int32 {
        child.kill(SIGTERM)
        return child.waitForExit()
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
                (child, port) = try Self.start(data: data, port: port, arguments: arguments, log: logPath)
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
        world.hub = hub.data + "/households/\(id).ndjson"
        return (HostedHousehold(hub: hub, id: id, world: world, ownerToken: token), list, ids)
    }

    /// An owner's join code for `actor`.
    func invite(_ actor: String) async throws -> String {
        let answer = try await HTTP.call("POST", "\(url)/invites", token: ownerToken, json: ["actor": actor])
        guard answer.status == 201, let code = answer.json["code"] as? String else { throw HubTestFailure("invite: \(answer.status) \(answer.text)") }
        return code
    }

    /// `shop-replay clone --join`, a device of its own.
    func join(_ device: String, actor: String) async throws {
        let code = try await invite(actor)
        let result = try world.tool.run(["clone", "--join", code, "--hub", hub.base, "--journal", world.path(device), "--device", "\(device)-phone"])
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
