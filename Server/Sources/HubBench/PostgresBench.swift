import Foundation
import ShopEvents
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A line on standard output at once (a run cut short keeps what it printed).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
/// Progress, on standard error.
func progress(_ line: String) { FileHandle.standardError.write(Data("hub-bench: \(line)\n".utf8)) }

/// `hub-bench postgres --database URL`: commands/s and push latency of the PostgreSQL storage for 1, 10
/// and 100 households, one and two hub processes, pushes of 1 and 10 commands from 32 devices at once;
/// then the Python `eventsourcing` library and pgbench's plain insert on the same cluster.
struct PostgresBench {
    let cluster: String
    let shopHub: String
    let python: String
    let peers: String
    let duration: Double
    let runs: Int
    let devices = 32
    // A part of the matrix (to profile one cell): --processes 1 --households 100 --sizes 1 --no-peers.
    let processCounts: [Int], householdCounts: [Int], sizes: [Int]
    let peersToo: Bool
    /// --ratios: only the targets' cell and the peers, interleaved (``ratios()``).
    let ratiosOnly: Bool

    /// `arguments`: the words after `postgres`.
    init(_ arguments: [String]) throws {
        var given = BenchArguments(arguments)
        guard let cluster = given.value("--database") else { throw BenchFailure(description: "postgres needs --database postgres://USER:PASSWORD@HOST:PORT/DB") }
        self.cluster = cluster
        shopHub = given.value("--shop-hub") ?? "Server/.build/release/shop-hub"
        python = given.value("--python") ?? ".build/venv/bin/python"
        peers = given.value("--peers") ?? "Server/Benchmarks/peers.py"
        duration = Double(given.value("--seconds") ?? "") ?? 5
        runs = max(1, Int(given.value("--runs") ?? "") ?? 3)
        func numbers(_ name: String, _ all: [Int]) -> [Int] { given.value(name).map { $0.split(separator: ",").compactMap { Int($0) } } ?? all }
        processCounts = numbers("--processes", [1, 2])
        householdCounts = numbers("--households", [1, 10, 100])
        sizes = numbers("--sizes", [1, 10])
        peersToo = !given.words.contains("--no-peers")
        ratiosOnly = given.words.contains("--ratios")
    }

    func run() async throws {
        if ratiosOnly {
            try await ratios()
            return
        }
        try await matrix()
        guard peersToo else { return }
        peerTable()
    }

    /// A new database in the cluster: its URL.
    func newDatabase() throws -> String { try createDatabase(in: cluster) }

    /// One run of a peer (`eventsourcing` or `pgbench`) on a fresh database: its events or rows a second.
    func peer(_ kind: String, _ size: Int) -> Result<Double, BenchFailure> {
        let run = Process()
        run.executableURL = URL(fileURLWithPath: kind == "pgbench" ? "/usr/bin/python3" : python)
        do {
            let database = try newDatabase()
            progress("\(kind), \(size) a save")
            run.arguments = [peers, kind, database, "\(Int(duration))", "\(devices)", "\(size)"]
            let out = Pipe()
            run.standardOutput = out
            try run.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            run.waitUntilExit()
            guard let rate = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["perSecond"] as? Double else {
                return .failure(BenchFailure(description: "not run (exit \(run.terminationStatus); is it installed?)"))
            }
            return .success(rate)
        } catch {
            return .failure(BenchFailure(description: "not run: \(error)"))
        }
    }

    /// `count` households on the first of `servers`, each created by its first device: their enrolments.
    func enrol(_ count: Int, on servers: [Server]) async throws -> [HubEnrolment] {
        var owners: [HubEnrolment] = []
        for _ in 0..<count {
            let enrolled = try await HubEnrolment.createHousehold(hub: servers[0].url, device: "bench", actor: "bench")
            let transport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
            try await push(transport, [CommandEnvelope(.createHousehold(household: enrolled.household, name: "Bench", currency: "EUR", timeZone: "UTC"), id: CommandID())])
            owners.append(enrolled)
        }
        return owners
    }

    /// 32 devices (SocketLoad: one keep-alive connection a device, as 32 phones would have), spread over
    /// the households and the processes.
    func phones(_ owners: [HubEnrolment], _ servers: [Server]) throws -> SocketLoad {
        try SocketLoad((0..<devices).map { device in
            SocketLoad.Target(port: servers[device % servers.count].port, household: owners[device % owners.count].household,
                              token: owners[device % owners.count].token)
        })
    }
}
