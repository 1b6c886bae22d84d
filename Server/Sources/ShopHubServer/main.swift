import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import Logging
import Metrics
import NIOSSL
import Prometheus
import ShopEvents
import ShopHub

// shop-hub: the hosted hub (SPEC section 9). `serve` runs it; `household …`
// are the operator's commands, which read the data folder beside a running hub.

let serveUsage = """
Usage: shop-hub serve [--host 127.0.0.1] [--port 8080] [--data DIR | --postgres URL] [--tls-cert FILE --tls-key FILE]
                      [--households-per-hour N] [--requests-per-second N] [--joins-per-minute N] [--max-wait S]

serve      answers the routes of SPEC section 9 until SIGTERM or SIGINT (it
           finishes the requests it holds, takes no more, exits 0). --data is
           the folder of the embedded storage (default ./shop-hub-data, made
           if missing); --port 0 takes any free port. It prints
           `listening on http://HOST:PORT` on standard output when it is ready,
           and JSON log lines on standard error: its start, one a request, its
           stop. Limits, per client address: 60 new households an hour, 20
           join attempts a minute; per token: 20 requests a second, in bursts
           of a second's worth and at least 10. A pull waits at most
           --max-wait seconds (default 60) however long it asks for (a proxy
           with a shorter read timeout wants less). A database that cannot be
           used stops it within 10 seconds, exit 3, with the database's reason.
"""

let householdUsage = """
Usage: shop-hub household list [--data DIR] [--json]
       shop-hub household show H [--data DIR] [--json]
       shop-hub household export H [--data DIR] [--out FILE]
       shop-hub household verify H [--data DIR]
       shop-hub household import H FILE [--data DIR] [--device NAME --actor A]
       (each household command takes --postgres URL, or $DATABASE_URL, instead of --data)

household  the operator's commands: list the households, show one (devices,
           head), export its journal byte for byte, verify it (the chain and
           every rule, as `shop-replay verify`), import a journal file into a
           household (verified first; from a file hub into PostgreSQL and back),
           enrolling a first device if --device and --actor are given.
"""

let commonUsage = """
--postgres URL  postgres://USER:PASSWORD@HOST:PORT/DATABASE: the PostgreSQL
           storage, its schema made or migrated at start; any number of
           shop-hub processes may serve one database. --postgres-layout
           partitioned hash-partitions every table by household.
--help     this text, for any command (`shop-hub serve --help`).
LOG_LEVEL  the least level logged: trace, debug, info (the default), notice,
           warning, error or critical.

Exit codes: 0 success; 1 verification failed; 2 usage error; 3 the storage could not be used.
"""

let fullUsage = serveUsage + "\n" + householdUsage.replacingOccurrences(of: "Usage: ", with: "       ") + "\n" + commonUsage

/// The usage text a command's `--help` prints.
func usage(of command: String) -> String {
    switch command {
    case "serve": return serveUsage + "\n" + commonUsage
    case "household": return householdUsage + "\n" + commonUsage
    default: return fullUsage
    }
}

struct UsageFailure: Error { let message: String }

/// `LOG_LEVEL`'s level (`info` when it is unset or empty); a usage failure for any other word.
func logLevel(_ environment: [String: String]) throws -> Logger.Level {
    guard let given = environment["LOG_LEVEL"], !given.isEmpty else { return .info }
    guard let level = Logger.Level(rawValue: given.lowercased()) else {
        let levels = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
        throw UsageFailure(message: "LOG_LEVEL is one of \(levels), not \(HubError.bounded(given))")
    }
    return level
}

struct Options {
    var words: [String]
    mutating func flag(_ name: String) -> Bool {
        guard let i = words.firstIndex(of: name) else { return false }
        words.remove(at: i)
        return true
    }
    mutating func value(_ name: String) throws -> String? {
        guard let i = words.firstIndex(of: name) else { return nil }
        guard i + 1 < words.count else { throw UsageFailure(message: "\(name) needs a value") }
        let value = words[i + 1]
        words.removeSubrange(i...(i + 1))
        return value
    }
    mutating func int(_ name: String) throws -> Int? {
        guard let text = try value(name) else { return nil }
        guard let number = Int(text), number >= 0 else { throw UsageFailure(message: "\(name) takes a whole number ≥ 0, not \(text)") }
        return number
    }
    func finish() throws {
        if let extra = words.first { throw UsageFailure(message: "unknown argument \(extra)") }
    }
}

func fail(_ message: String) {
    FileHandle.standardError.write(Data("shop-hub: \(message)\n".utf8))
}

func serve(_ options: inout Options, level: Logger.Level) async throws -> Int32 {
    let host = try options.value("--host") ?? "127.0.0.1"
    let port = try options.int("--port") ?? 8080
    let data = try options.value("--data")
    let postgres = try options.value("--postgres")
    let layoutName = try options.value("--postgres-layout") ?? "plain"
    guard let layout = PostgresHubStorage.Layout(rawValue: layoutName) else {
        throw UsageFailure(message: "--postgres-layout is plain or partitioned, not \(layoutName)")
    }
    let cert = try options.value("--tls-cert"), key = try options.value("--tls-key")
    var limits = HubLimits()
    if let perHour = try options.int("--households-per-hour") { limits.householdsPerAddressPerHour = perHour }
    if let perSecond = try options.int("--requests-per-second") { limits.requestsPerTokenPerSecond = Double(perSecond) }
    if let perMinute = try options.int("--joins-per-minute") { limits.joinsPerAddressPerMinute = perMinute }
    if let wait = try options.int("--max-wait") {
        guard wait <= 60 else { throw UsageFailure(message: "--max-wait is at most 60 seconds") }
        limits.maxWaitSeconds = wait
    }
    try options.finish()
    guard (cert == nil) == (key == nil) else { throw UsageFailure(message: "--tls-cert and --tls-key go together") }
    LoggingSystem.bootstrap { JSONLogHandler(label: $0, level: level) }
    let registry = PrometheusCollectorRegistry()
    MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
    let logger = Logger(label: "shop-hub")

    let storage: any HubStorage
    let description: String
    // The database's pool runs beside the HTTP server and outlives it: requests in flight at SIGTERM still reach it.
    var pool: Task<Void, Never>?
    if let url = postgres ?? (data == nil ? ProcessInfo.processInfo.environment["DATABASE_URL"] : nil) {
        // One connection first: a database that cannot be used is said so at once, in its own words.
        do { try await PostgresHubStorage.check(url: url, logger: logger) } catch let refusal as HubError {
            fail(refusal.message)
            return 3
        }
        let database = try PostgresHubStorage(url: url, layout: layout, logger: logger)
        pool = Task { await database.run() }
        do { try await database.migrate() } catch {
            pool?.cancel()
            fail("cannot prepare the database: \(String(reflecting: error))")
            return 3
        }
        storage = database
        description = "postgres, \(layout.rawValue) tables"
    } else {
        do {
            let files = try FileHubStorage(directory: data ?? "shop-hub-data")
            storage = files
            description = "data \(files.directory)"
        } catch let error as HubError {
            fail(error.message)
            return 3
        }
    }
    defer { pool?.cancel() }
    let routes = HubRoutes(storage: storage, limits: limits, metricsText: { registry.emitToBuffer() })
    let scheme = cert == nil ? "http" : "https"
    // A request the HTTP parser refuses (a 500 KB URL) is answered in JSON, as every other refusal.
    let http1: HTTPServerBuilder = .http1(configuration: .init(additionalChannelHandlers: [UnreadableRequestHandler(logger: logger)]))
    let server: HTTPServerBuilder
    if let cert, let key {
        let chain = try NIOSSLCertificate.fromPEMFile(cert).map { NIOSSLCertificateSource.certificate($0) }
        let tls = TLSConfiguration.makeServerConfiguration(certificateChain: chain, privateKey: .privateKey(try NIOSSLPrivateKey(file: key, format: .pem)))
        server = try .tls(http1, tlsConfiguration: tls)
    } else {
        server = http1
    }
    let app = Application(
        router: routes.router(),
        server: server,
        configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "shop-hub"),
        onServerRunning: { channel in
            let bound = channel.localAddress?.port ?? port
            // Written at once (no buffering): a test or a supervisor waits for this line.
            FileHandle.standardOutput.write(Data("listening on \(scheme)://\(host):\(bound) (\(description))\n".utf8))
            logger.info("started", metadata: ["address": "\(scheme)://\(host):\(bound)", "storage": "\(description)", "level": "\(level)"])
        },
        logger: logger
    )
    try await app.runService()
    logger.info("stopped")
    return 0
}

func household(_ options: inout Options, level: Logger.Level?) async throws -> Int32 {
    guard !options.words.isEmpty else { throw UsageFailure(message: "household takes list, show, export, verify or import") }
    let verb = options.words.removeFirst()
    let data = try options.value("--data")
    let postgres = try options.value("--postgres") ?? (data == nil ? ProcessInfo.processInfo.environment["DATABASE_URL"] : nil)
    let layout = PostgresHubStorage.Layout(rawValue: try options.value("--postgres-layout") ?? "plain") ?? .plain
    let json = options.flag("--json")
    let out = try options.value("--out")
    let device = try options.value("--device"), actor = try options.value("--actor")
    var household: HouseholdID?
    if verb != "list" {
        guard !options.words.isEmpty, let id = HouseholdID(options.words.removeFirst()) else {
            throw UsageFailure(message: "household \(verb) takes a household id")
        }
        household = id
    }
    let file = verb == "import" ? options.words.isEmpty ? nil : options.words.removeFirst() : nil
    try options.finish()
    var pool: Task<Void, Never>?
    defer { pool?.cancel() }
    let storage: any HubStorage
    if let postgres {
        var quiet = Logger(label: "shop-hub")
        quiet.logLevel = level ?? .error
        try await PostgresHubStorage.check(url: postgres, logger: quiet)
        let database = try PostgresHubStorage(url: postgres, layout: layout, logger: quiet)
        pool = Task { await database.run() }
        try await database.migrate()
        storage = database
    } else if verb == "import" {
        storage = try FileHubStorage(directory: data ?? "shop-hub-data")   // takes the folder's lock: not beside a running hub
    } else {
        storage = try FileHubStorage(readingOnly: data ?? "shop-hub-data")
    }
    func emit(_ value: JSONValue) { FileHandle.standardOutput.write(Data(SyncWire.line(value))) }
    switch verb {
    case "list":
        let all = try await storage.households()
        var rows: [JSONValue] = []
        for id in all {
            let devices = try await storage.devices(of: id)
            let head = try await headOf(id, storage)
            rows.append(.object([("household", .string(id.description)), ("devices", .int(devices.count)), ("events", .int(head.seq))]))
            if !json { print("\(id)  \(devices.count) device\(devices.count == 1 ? "" : "s")  \(head.seq) event\(head.seq == 1 ? "" : "s")") }
        }
        if json { emit(.object([("households", .array(rows))])) } else if all.isEmpty { print("no households yet") }
        return 0
    case "show":
        guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
        let devices = try await storage.devices(of: household)
        let head = try await headOf(household, storage)
        if json {
            emit(.object([("household", .string(household.description)), ("head", .string(head.description)),
                          ("devices", .array(devices.map { .object([("device", .string($0.name)), ("actor", .string($0.actor)),
                                                                   ("created", .string($0.created.description)),
                                                                   ("lastSeen", $0.lastSeen.map { .string($0.description) } ?? .null)]) }))]))
        } else {
            print("household \(household)\nhead      \(head)")
            if let path = storage.journalFile(household) { print("journal   \(path)") }
            for d in devices { print("device    \(d.name) (\(d.actor)), enrolled \(d.created), last seen \(d.lastSeen?.description ?? "never")") }
        }
        return 0
    case "export":
        guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
        let bytes = try await storage.journal(household)
        if let out {
            guard FileManager.default.createFile(atPath: out, contents: Data(bytes)) else { throw HubError.unavailable("cannot write \(out)") }
        } else {
            FileHandle.standardOutput.write(Data(bytes))
        }
        return 0
    case "verify":
        guard let household, try await storage.householdExists(household) else { throw HubError.unknownHousehold(household?.description ?? "") }
        // The journal as it is exported, checked as `shop-replay verify` checks a file: every line, the chain, every rule.
        let bytes = try await storage.journal(household)
        guard !bytes.isEmpty else {
            print("household \(household) has no events yet")
            return 0
        }
        let copy = FileManager.default.temporaryDirectory.appendingPathComponent("shop-hub-verify-\(UUID().uuidString).ndjson").path
        defer { try? FileManager.default.removeItem(atPath: copy) }
        guard FileManager.default.createFile(atPath: copy, contents: Data(bytes)) else { throw HubError.unavailable("cannot write \(copy)") }
        let report = try JournalVerifier.verify(path: copy)
        if let failure = report.failure {
            print("FAILED: \(failure.message)")
            return 1
        }
        print("ok: \(report.events) events, head \(report.head)")
        return 0
    case "import":
        guard let household, let file else { throw UsageFailure(message: "household import takes a household id and a journal file") }
        guard let contents = FileManager.default.contents(atPath: file) else { throw HubError.unavailable("cannot read \(file)") }
        let report = try JournalVerifier.verify(path: file)
        if let failure = report.failure { throw HubError.badRequest("\(file) does not verify: \(failure.message); nothing was imported") }
        let lines = Array(contents).split(separator: 0x0A).map(Array.init)
        let now = Clock.system.now()
        try await storage.importJournal(household, journal: Array(contents), created: now)
        print("imported \(lines.count) events into household \(household) (head \(report.head))")
        if let device, let actor {
            let token = Secrets.token()
            try await storage.addDevice(DeviceRecord(household: household, name: device, actor: actor, tokenHash: TokenHash(of: token), created: now))
            print("device \(device) enrolled as \(actor); its token, shown once: \(token)")
        }
        return 0
    default:
        throw UsageFailure(message: "household takes list, show, export, verify or import, not \(verb)")
    }
}

func headOf(_ household: HouseholdID, _ storage: any HubStorage) async throws -> JournalHead {
    guard case let .hello(_, _, head) = try await storage.sync(household, .hello(protocol: SyncWire.protocolVersion, device: "operator", actor: "operator"),
                                                               as: "operator") else { return .empty }
    return head
}

func main() async -> Int32 {
    var options = Options(words: Array(CommandLine.arguments.dropFirst()))
    let command = options.words.isEmpty ? "" : options.words.removeFirst()
    let code: Int32
    do {
        // Every command answers --help (`shop-hub household show --help` too).
        if ["--help", "-h", "help"].contains(command) || options.words.contains("--help") || options.words.contains("-h") {
            print(usage(of: command))
            return 0
        }
        let environment = ProcessInfo.processInfo.environment
        let level = try logLevel(environment)
        let given = environment["LOG_LEVEL"]?.isEmpty == false ? level : nil
        switch command {
        case "serve": code = try await serve(&options, level: level)
        case "household": code = try await household(&options, level: given)
        default: throw UsageFailure(message: command.isEmpty ? "a command is needed" : "unknown command \(command)")
        }
    } catch let usageError as UsageFailure {
        fail("\(usageError.message)\n\(usage(of: command))")
        code = 2
    } catch let error as HubError {
        fail("\(error.code): \(error.message)")
        code = 3
    } catch let error as any ShopError {
        fail("\(error.code): \(error.message)")
        code = 3
    } catch {
        fail("\(error)")
        code = 3
    }
    return code
}

exit(await main())
