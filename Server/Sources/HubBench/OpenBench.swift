import Foundation
import ShopEvents
#if canImport(Glibc)
import Glibc
#endif

// `hub-bench open`: a hub holding thousands of open phones (issue 53). H households of D devices are
// enrolled through the hub's own routes; every device then holds one long poll (`pull` with `wait`) on
// a connection of its own, all at once; pushes, one after another, each to the next household as its
// owner over another connection, and each device of that household is timed from the push's answer
// (and from its request) to its own answer with the new line, then polls again. Beside it in the same
// run: `GET /healthz` over a fresh connection, and a push's own latency, with no poll open and with all
// open (`/healthz` also as the polls arrive); the hub's resident memory, files and threads before and after the polls opened. On files with
// one process, then on PostgreSQL with two processes over one database (devices spread over both, so
// half the wakes cross processes by LISTEN/NOTIFY) when a cluster is given. Not a test.
//
//   Server/.build/release/hub-bench open [--households 400] [--devices 5] [--pushes 500] [--healthz 1000]
//       [--wait 55] [--seconds 120] [--postgres postgres://USER:PASSWORD@HOST:PORT/DB | --no-postgres]
//       [--no-files] [--shop-hub Server/.build/release/shop-hub]

struct OpenBench {
    var shopHub = "Server/.build/release/shop-hub"
    var households = 400
    var devices = 5
    var pushes = 500
    var healthz = 1_000
    var wait = 55
    /// The wakes' bound in time, in seconds (the pushes stop there if not all were made).
    var limit = 120.0
    /// The cluster in which a new database is made (from `--postgres`, or a `pg_virtualenv`'s environment).
    var cluster: String?
    var files = true

    init(_ arguments: [String]) throws {
        var given = BenchArguments(arguments)
        if let v = given.value("--shop-hub") { shopHub = v }
        if let v = given.value("--households").flatMap(Int.init) { households = max(1, v) }
        if let v = given.value("--devices").flatMap(Int.init) { devices = max(2, v) }
        if let v = given.value("--pushes").flatMap(Int.init) { pushes = max(1, v) }
        if let v = given.value("--healthz").flatMap(Int.init) { healthz = max(1, v) }
        if let v = given.value("--wait").flatMap(Int.init) { wait = min(60, max(1, v)) }
        if let v = given.value("--seconds").flatMap(Double.init) { limit = v }
        cluster = given.value("--postgres") ?? Self.virtualCluster()
        if given.flag("--no-postgres") { cluster = nil }
        files = !given.flag("--no-files")
        guard given.words.isEmpty else { throw BenchFailure(description: "hub-bench open: unknown arguments \(given.words)") }
    }

    /// The cluster `pg_virtualenv` made, from its environment (`PGHOST`, `PGPORT`, `PGUSER`, `PGPASSWORD`).
    static func virtualCluster() -> String? {
        let environment = ProcessInfo.processInfo.environment
        guard let host = environment["PGHOST"], let port = environment["PGPORT"], let user = environment["PGUSER"] else { return nil }
        let password = environment["PGPASSWORD"].map { ":" + $0 } ?? ""
        return "postgres://\(user)\(password)@\(host):\(port)/postgres"
    }

    func run() async throws {
        try await onThreadOfItsOwn { try measureAll() }
    }

    private func measureAll() throws {
        Self.raiseFileLimit()
        let folder = try benchFolder("open")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        say("hub-bench open: \(households) households × \(devices) devices = \(households * devices) open polls (wait \(wait) s), "
            + "\(pushes) pushes, \(healthz) × /healthz; load average \(Self.loadAverage())")
        if files {
            let server = try Server(shopHub, data: folder + "/hub-data")
            defer { server.stop() }
            try measure("files, 1 process", [server])
        }
        guard let cluster else {
            say("\nPostgreSQL: skipped (no cluster: give --postgres URL, or run under pg_virtualenv)")
            return
        }
        let database = try createDatabase(in: cluster)
        let servers = [try Server(shopHub, storage: ["--postgres", database]), try Server(shopHub, storage: ["--postgres", database])]
        defer { for server in servers { server.stop() } }
        try measure("PostgreSQL, 2 processes over one database", servers)
    }

    /// Every figure on one storage (its hub processes started already).
    private func measure(_ storage: String, _ servers: [Server]) throws {
        let ports = servers.map(\.port), pids = servers.map(\.process.processIdentifier)
        func figures() -> ProcessFigures { ProcessFigures.total(pids.map(ProcessFigures.init(pid:))) }
        var start = ContinuousClock.now
        let enrolling = try HubConnection(port: ports[0])
        var made: [OpenHousehold] = []
        for _ in 0..<households { made.append(try OpenHousehold.enrol(devices: devices, over: enrolling)) }
        enrolling.close()
        progress("\(storage): \(households) households of \(devices) devices enrolled in \(String(format: "%.1f", seconds(since: start))) s")
        let pushers = try ports.map { try HubConnection(port: $0) }
        defer { for pusher in pushers { pusher.close() } }
        let quiet = try pushLatencies(made, pushers)
        let healthQuiet = try healthzLatencies(ports)
        let enrolled = figures()
        start = .now
        let polls = try OpenPolls(made, ports: ports, wait: wait)
        defer { polls.close() }
        let connected = figures()
        try polls.hello()
        let greeted = figures()
        try polls.openPolls()
        progress("\(storage): \(polls.count) devices connected, hello'd and polling in \(String(format: "%.1f", seconds(since: start))) s")
        // Asked as the polls arrive (the hub still taking them), and again after the wakes, every poll waiting.
        let healthArriving = try healthzLatencies(ports)
        let open = figures()
        let (wakes, pushing) = try polls.wake(pushes, pushers: pushers, limit: limit)
        let healthOpen = try healthzLatencies(ports)
        let after = figures()
        let table = OpenTable(storage: storage, devices: polls.count, processes: servers.count)
        table.latencies(quiet: quiet, open: pushing, wakes: wakes, healthz: (quiet: healthQuiet, arriving: healthArriving, open: healthOpen))
        table.memory([("\(households) households made, no device connected", enrolled),
                      ("\(polls.count) devices connected, nothing asked yet", connected),
                      ("\(polls.count) devices after hello (idle keep-alive)", greeted),
                      ("\(polls.count) polls waiting", open), ("after the wakes (polls waiting again)", after)])
    }

    /// Pushes of one command, one after another, each to the next household, with no poll open: ms each.
    private func pushLatencies(_ made: [OpenHousehold], _ pushers: [HubConnection]) throws -> [Double] {
        try (0..<pushes).map { i in
            let household = made[i % made.count]
            let began = ContinuousClock.now
            try OpenHousehold.requireAccepted(pushers[i % pushers.count].exchange(household.pushRequest(createItems(1, prefix: "quiet \(i)"))))
            return seconds(since: began) * 1000
        }
    }

    /// `GET /healthz`, each over a fresh connection (connected, asked, answered, closed): ms each.
    private func healthzLatencies(_ ports: [Int]) throws -> [Double] {
        let request = HubConnection.request("GET", "/healthz")
        return try (0..<healthz).map { i in
            let began = ContinuousClock.now
            let connection = try HubConnection(port: ports[i % ports.count])
            defer { connection.close() }
            let answer = try connection.exchange(request)
            guard answer.status == 200 else { throw BenchFailure(description: "/healthz answered \(answer.status)") }
            return seconds(since: began) * 1000
        }
    }

    /// The soft limit of open files raised to the hard one (each device is a socket; the hub inherits it).
    static func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
    }

    static func loadAverage() -> String {
        (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").prefix(3).joined(separator: " ") ?? "?"
    }
}
