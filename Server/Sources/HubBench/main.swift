import Foundation
import ShopEvents
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

// hub-bench: the hosted hub measured, side by side with the stdio hub in the
// same run. Release builds of both programs; medians and percentiles of
// repeated runs. Not a test: nothing is asserted.
//
//   swift build -c release && swift build -c release --package-path Server
//   Server/.build/release/hub-bench [--shop-replay .build/release/shop-replay] [--shop-hub Server/.build/release/shop-hub]

struct Options {
    var shopHub = "Server/.build/release/shop-hub"
    var shopReplay = ".build/release/shop-replay"
    var pushes = 2_000
    var households = 100
    var pullLines = 50_000
    var syncs = 300

    init() {
        var words = Array(CommandLine.arguments.dropFirst())
        func value(_ name: String) -> String? {
            guard let i = words.firstIndex(of: name), i + 1 < words.count else { return nil }
            defer { words.removeSubrange(i...(i + 1)) }
            return words[i + 1]
        }
        if let v = value("--shop-hub") { shopHub = v }
        if let v = value("--shop-replay") { shopReplay = v }
        if let v = value("--pushes").flatMap(Int.init) { pushes = v }
        if let v = value("--households").flatMap(Int.init) { households = v }
        if let v = value("--pull-lines").flatMap(Int.init) { pullLines = v }
        if let v = value("--syncs").flatMap(Int.init) { syncs = v }
    }
}

struct BenchFailure: Error, CustomStringConvertible { let description: String }

/// `shop-hub serve` on a free port over a fresh folder.
final class Server: @unchecked Sendable {
    // @unchecked: started and stopped by the main task only.
    let process = Process()
    let base: String
    let port: Int
    convenience init(_ binary: String, data: String) throws { try self.init(binary, storage: ["--data", data]) }

    init(_ binary: String, storage: [String]) throws {
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = ["serve", "--port", "0", "--requests-per-second", "100000",
                             "--households-per-hour", "100000", "--joins-per-minute", "100000"] + storage
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = out.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw BenchFailure(description: "shop-hub did not start") }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "http://127.0.0.1:") else { throw BenchFailure(description: text) }
        port = Int(text[range.upperBound...].prefix { $0.isNumber }) ?? 0
        base = "http://127.0.0.1:\(port)"
    }
    /// Peak resident memory (VmHWM), in MiB.
    var peakRSS: Double {
        guard let status = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kb = Double(line.split(separator: " ").dropFirst().first ?? "") else { return 0 }
        return kb / 1024
    }
    func stop() {
        process.terminate()
        process.waitUntilExit()
    }
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = start.duration(to: .now)
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

/// `count` new items, each a command with a new id (from the ids every writer uses: Foundation's
/// `UUID()` makes three system calls an id on Linux, which the load generator would take from the
/// cores it shares with what it measures).
func createItems(_ count: Int, prefix: String) -> [CommandEnvelope] {
    (0..<count).map { CommandEnvelope(.createItem(name: "\(prefix) \($0)"), id: IDGenerator.random.make()) }
}

func push(_ transport: some SyncTransport, _ commands: [CommandEnvelope]) async throws {
    guard case let .results(results) = try await transport.send(.push(commands: commands)), results.allSatisfy(\.ok) else {
        throw BenchFailure(description: "a push was refused")
    }
}

/// A new household on the hosted hub, created by its first push.
func hostedHousehold(_ server: Server) async throws -> HTTPSyncTransport {
    let enrolled = try await HubEnrolment.createHousehold(hub: URL(string: server.base)!, device: "bench", actor: "bench")
    let transport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
    try await push(transport, [CommandEnvelope(.createHousehold(household: enrolled.household, name: "Bench", currency: "EUR", timeZone: "UTC"), id: CommandID())])
    return transport
}

/// A new household's journal served by `shop-replay hub --journal J --create` on stdio.
func stdioHousehold(_ shopReplay: String, folder: String, name: String) async throws -> ProcessTransport {
    let transport = try ProcessTransport(command: "USER=bench '\(shopReplay)' hub --journal '\(folder)/\(name).ndjson' --create --as bench")
    try await push(transport, [CommandEnvelope(.createHousehold(household: HouseholdID(), name: "Bench", currency: "EUR", timeZone: "UTC"), id: CommandID())])
    return transport
}

struct Figures {
    var pushesPerSecond = 0.0
    var commandsPerSecond = 0.0
    var manyPushesPerSecond = 0.0
    var manyCommandsPerSecond = 0.0
    var pullLinesPerSecond = 0.0
    var syncP50 = 0.0, syncP99 = 0.0
}

/// The same measures over any transport; `household` makes a new household's transport.
func measure(options: Options, folder: String, household: @escaping @Sendable (String) async throws -> any SyncTransport) async throws -> Figures {
    var figures = Figures()
    // One household: pushes of one command, one after another.
    let one = try await household("one")
    var start = ContinuousClock.now
    for i in 0..<options.pushes { try await push(one, createItems(1, prefix: "single \(i)")) }
    figures.pushesPerSecond = Double(options.pushes) / seconds(since: start)
    // One household: pushes of 100 commands.
    let batches = max(1, options.pushes / 20)
    start = .now
    for i in 0..<batches { try await push(one, createItems(100, prefix: "batch \(i)")) }
    figures.commandsPerSecond = Double(batches * 100) / seconds(since: start)
    // Many households at once: each pushes one-command pushes.
    var transports: [any SyncTransport] = []
    for h in 0..<options.households { transports.append(try await household("many-\(h)")) }
    let each = max(1, options.pushes / options.households)
    start = .now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (h, transport) in transports.enumerated() {
            group.addTask { for i in 0..<each { try await push(transport, createItems(1, prefix: "h\(h) \(i)")) } }
        }
        try await group.waitForAll()
    }
    figures.manyPushesPerSecond = Double(each * transports.count) / seconds(since: start)
    start = .now
    try await withThrowingTaskGroup(of: Void.self) { group in
        for (h, transport) in transports.enumerated() {
            group.addTask { try await push(transport, createItems(50, prefix: "h\(h) batch")) }
        }
        try await group.waitForAll()
    }
    figures.manyCommandsPerSecond = Double(50 * transports.count) / seconds(since: start)
    // Pull throughput: a household of `pullLines` lines, pulled from the start.
    let big = try await household("big")
    var made = 1
    while made < options.pullLines {
        try await push(big, createItems(min(1_000, options.pullLines - made), prefix: "pull \(made)"))
        made += 1_000
    }
    var rates: [Double] = []
    for _ in 0..<5 {
        start = .now
        var head = JournalHead.empty, lines = 0
        while true {
            guard case let .lines(batch, more) = try await big.send(.pull(after: head.seq, hash: head.hash)), let last = batch.last else { break }
            lines += batch.count
            guard case let .event(recorded) = try EventLineCodec.decodeLine(last) else { break }
            head = JournalHead(seq: recorded.seq, hash: SHA256.hash(last))
            if !more { break }
        }
        rates.append(Double(lines) / seconds(since: start))
    }
    figures.pullLinesPerSecond = percentile(rates, 0.5)
    return figures
}

/// p50/p99 of a one-command sync of a replica (hello, pull, push, pull), over `transport`.
func syncLatency(journal: String, settings: SyncSettings, syncs: Int, over transport: some SyncTransport) async throws -> (Double, Double) {
    _ = try await SyncClient.clone(journal: journal, settings: settings, options: .init(actor: "bench"), over: transport)
    let replica = try Replica(path: journal, options: .init(actor: "bench"))
    var times: [Double] = []
    for i in 0..<syncs {
        _ = try replica.execute(.createItem(name: "sync \(i)"))
        let start = ContinuousClock.now
        _ = try await SyncClient(journal: journal, options: .init(actor: "bench")).sync(over: transport)
        times.append(seconds(since: start) * 1000)
        try replica.refresh()
    }
    return (percentile(times, 0.5), percentile(times, 0.99))
}

func main() async throws {
    let options = Options()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hub-bench-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let server = try Server(options.shopHub, data: folder + "/hub-data")
    var hosted = try await measure(options: options, folder: folder) { _ in try await hostedHousehold(server) }
    let enrolled = try await HubEnrolment.createHousehold(hub: URL(string: server.base)!, device: "lat", actor: "bench")
    let latencyTransport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
    try await push(latencyTransport, [CommandEnvelope(.createHousehold(household: enrolled.household, name: "L", currency: "EUR", timeZone: "UTC"), id: CommandID())])
    (hosted.syncP50, hosted.syncP99) = try await syncLatency(journal: folder + "/http-replica.ndjson",
                                                             settings: SyncSettings(hub: enrolled.url.absoluteString, device: "lat"),
                                                             syncs: options.syncs, over: latencyTransport)
    // Long poll: how soon a waiting pull answers after another device's push lands.
    var wakes: [Double] = []
    for i in 0..<50 {
        let head: JournalHead
        guard case let .hello(_, _, current) = try await latencyTransport.send(.hello(protocol: 1, device: "lat", actor: "bench")) else { break }
        head = current
        let poll = Task { () -> ContinuousClock.Instant in
            _ = try await latencyTransport.pull(after: head.seq, hash: head.hash, waiting: 30)
            return ContinuousClock.now
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        try await push(latencyTransport, createItems(1, prefix: "wake \(i)"))
        let pushed = ContinuousClock.now
        let woke = try await poll.value
        let d = pushed.duration(to: woke)
        wakes.append(max(0, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15))
    }
    let rss = server.peakRSS
    server.stop()

    // Each stdio hub process ends when its transport is let go (its deinit closes the pipe and waits).
    var stdio = try await measure(options: options, folder: folder) { name in
        try await stdioHousehold(options.shopReplay, folder: folder, name: name)
    }
    let stdioLatency = try ProcessTransport(command: "USER=bench '\(options.shopReplay)' hub --journal '\(folder)/lat.ndjson' --create --as bench")
    try await push(stdioLatency, [CommandEnvelope(.createHousehold(household: HouseholdID(), name: "L", currency: "EUR", timeZone: "UTC"), id: CommandID())])
    (stdio.syncP50, stdio.syncP99) = try await syncLatency(journal: folder + "/stdio-replica.ndjson",
                                                           settings: SyncSettings(hub: "\(folder)/lat.ndjson", device: "lat"),
                                                           syncs: options.syncs, over: stdioLatency)
    stdioLatency.close()

    func row(_ name: String, _ a: Double, _ b: Double, _ unit: String) -> String {
        "| \(name) | \(String(format: "%.0f", a)) | \(String(format: "%.0f", b)) | \(String(format: "%.2f", a / max(b, 1e-9)))× | \(unit) |"
    }
    func rowMs(_ name: String, _ a: Double, _ b: Double) -> String {
        "| \(name) | \(String(format: "%.2f", a)) | \(String(format: "%.2f", b)) | \(String(format: "%.2f", a / max(b, 1e-9)))× | ms |"
    }
    print("| measure | shop-hub (HTTP) | shop-replay hub (stdio) | ratio | unit |")
    print("|---|---:|---:|---:|---|")
    print(row("pushes of 1 command, one household", hosted.pushesPerSecond, stdio.pushesPerSecond, "pushes/s"))
    print(row("commands in pushes of 100, one household", hosted.commandsPerSecond, stdio.commandsPerSecond, "commands/s"))
    print(row("pushes of 1 command, \(options.households) households at once", hosted.manyPushesPerSecond, stdio.manyPushesPerSecond, "pushes/s"))
    print(row("commands in pushes of 50, \(options.households) households at once", hosted.manyCommandsPerSecond, stdio.manyCommandsPerSecond, "commands/s"))
    print(row("pull from the start (\(options.pullLines) lines), median of 5", hosted.pullLinesPerSecond, stdio.pullLinesPerSecond, "lines/s"))
    print(rowMs("one-command sync, p50 of \(options.syncs)", hosted.syncP50, stdio.syncP50))
    print(rowMs("one-command sync, p99 of \(options.syncs)", hosted.syncP99, stdio.syncP99))
    print("")
    print("long poll: answered \(String(format: "%.2f", percentile(wakes, 0.5))) ms (p50), \(String(format: "%.2f", percentile(wakes, 0.99))) ms (p99) after another device's push was acknowledged (\(wakes.count) polls)")
    print("shop-hub peak RSS: \(String(format: "%.1f", rss)) MiB (VmHWM, the whole run: \(options.households + 4) households)")
}

// MARK: PostgreSQL

/// A line on standard output at once (a run cut short keeps what it printed).
func say(_ line: String) { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
/// Progress, on standard error.
func progress(_ line: String) { FileHandle.standardError.write(Data("hub-bench: \(line)\n".utf8)) }

/// `hub-bench postgres --database URL`: commands/s and push latency of the PostgreSQL storage for 1, 10
/// and 100 households, one and two hub processes, pushes of 1 and 10 commands from 32 devices at once;
/// then the Python `eventsourcing` library and pgbench's plain insert on the same cluster.
func postgresMain() async throws {
    var words = Array(CommandLine.arguments.dropFirst(2))
    func value(_ name: String) -> String? {
        guard let i = words.firstIndex(of: name), i + 1 < words.count else { return nil }
        defer { words.removeSubrange(i...(i + 1)) }
        return words[i + 1]
    }
    guard let cluster = value("--database") else { throw BenchFailure(description: "postgres needs --database postgres://USER:PASSWORD@HOST:PORT/DB") }
    let shopHub = value("--shop-hub") ?? "Server/.build/release/shop-hub"
    let python = value("--python") ?? ".build/venv/bin/python"
    let peers = value("--peers") ?? "Server/Benchmarks/peers.py"
    let duration = Double(value("--seconds") ?? "") ?? 5
    let runs = max(1, Int(value("--runs") ?? "") ?? 3)
    let devices = 32
    // A part of the matrix (to profile one cell): --processes 1 --households 100 --sizes 1 --no-peers.
    func numbers(_ name: String, _ all: [Int]) -> [Int] { value(name).map { $0.split(separator: ",").compactMap { Int($0) } } ?? all }
    let processCounts = numbers("--processes", [1, 2]), householdCounts = numbers("--households", [1, 10, 100]), sizes = numbers("--sizes", [1, 10])
    let peersToo = !words.contains("--no-peers")
    // --ratios: only the targets' cell and the peers, interleaved (ratioMain).
    let ratios = words.contains("--ratios")

    func newDatabase() throws -> String {
        let name = "hub_bench_\(UUID().uuidString.prefix(8).lowercased())"
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        psql.arguments = [cluster, "-q", "-c", "CREATE DATABASE \(name)"]
        try psql.run()
        psql.waitUntilExit()
        guard var parts = URLComponents(string: cluster) else { throw BenchFailure(description: "bad URL") }
        parts.path = "/" + name
        return parts.string ?? cluster
    }

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
            let enrolled = try await HubEnrolment.createHousehold(hub: URL(string: servers[0].base)!, device: "bench", actor: "bench")
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

    if ratios {
        try await ratioMain()
        return
    }

    /// The targets' cell — 100 households, one hub process, 32 devices — and the peers, interleaved
    /// round by round (hub, pgbench, eventsourcing for one command, then for ten), so that each
    /// ratio compares runs a few seconds apart: this machine's speed drifts by half within minutes.
    func ratioMain() async throws {
        let households = 100
        let servers = [try Server(shopHub, storage: ["--postgres", try newDatabase()])]
        defer { for server in servers { server.stop() } }
        let owners = try await enrol(households, on: servers)
        let load = try phones(owners, servers)
        defer { load.close() }
        var hub: [Int: [Double]] = [:], pgbench: [Int: [Double]] = [:], eventsourcing: [Int: [Double]] = [:]
        var failures: [String: String] = [:]
        for round in 0..<runs {
            for size in [1, 10] {
                _ = try await load.run(1, size: size, run: "warm \(round)")
                let rate = try await load.run(duration, size: size, run: "\(round)").rate
                hub[size, default: []].append(rate)
                progress("round \(round + 1): hub, 100 households, \(size) a push: \(String(format: "%.0f", rate)) commands/s")
                for kind in ["pgbench", "eventsourcing"] where failures[kind] == nil {
                    switch peer(kind, size) {
                    case let .success(rate) where kind == "pgbench": pgbench[size, default: []].append(rate)
                    case let .success(rate): eventsourcing[size, default: []].append(rate)
                    case let .failure(why): failures[kind] = why.description
                    }
                }
            }
        }
        func f(_ value: Double) -> String { String(format: "%.0f", value) }
        func ratio(_ value: Double) -> String { String(format: "%.1f×", value) }
        say("| commands a push | hub commands/s, each round | pgbench rows/s | eventsourcing events/s | pgbench ÷ hub, median of rounds (target ≤ 4) | hub ÷ eventsourcing, median of rounds (target ≥ 3) |")
        say("|---:|---|---|---|---:|---:|")
        for size in [1, 10] {
            let h = hub[size] ?? [], p = pgbench[size] ?? [], e = eventsourcing[size] ?? []
            let toPgbench = p.count == h.count ? ratio(percentile(zip(p, h).map { $0 / $1 }, 0.5)) : failures["pgbench"] ?? "—"
            let overEventsourcing = e.count == h.count ? ratio(percentile(zip(h, e).map { $0 / $1 }, 0.5)) : failures["eventsourcing"] ?? "—"
            say("| \(size) | \(h.map(f).joined(separator: " · ")) | \(p.map(f).joined(separator: " · ")) | \(e.map(f).joined(separator: " · ")) | \(toPgbench) | \(overEventsourcing) |")
        }
    }

    say("| hub processes | households | commands a push | commands/s | push p50 ms | push p99 ms |")
    say("|---:|---:|---:|---:|---:|---:|")
    for processes in processCounts {
        let database = try newDatabase()
        var servers: [Server] = []
        for _ in 0..<processes { servers.append(try Server(shopHub, storage: ["--postgres", database])) }
        for households in householdCounts {
            let owners = try await enrol(households, on: servers)
            progress("\(processes) process(es), \(households) household(s) enrolled")
            for size in sizes {
                // 32 devices pushing for `seconds`: every push's latency, and the commands/s of the whole.
                let devices = try phones(owners, servers)
                defer { devices.close() }
                func load(_ span: Double, run: String) async throws -> (rate: Double, latencies: [Double]) {
                    try await devices.run(span, size: size, run: run)
                }
                // A second to warm up (connections opened, tokens and households in the hub's memory), not counted;
                // then `runs` runs: the median rate, the percentiles of every push of them.
                _ = try await load(1, run: "warm")
                var rates: [Double] = [], latencies: [Double] = []
                for run in 0..<runs {
                    let (rate, times) = try await load(duration, run: "\(run)")
                    rates.append(rate)
                    latencies += times
                }
                let rate = percentile(rates, 0.5)
                progress("\(processes) process(es), \(households) household(s), \(size) a push: \(rates.map { String(format: "%.0f", $0) }.joined(separator: " · ")) commands/s")
                say("| \(processes) | \(households) | \(size) | \(String(format: "%.0f", rate)) | \(String(format: "%.1f", percentile(latencies, 0.5))) | \(String(format: "%.1f", percentile(latencies, 0.99))) |")
            }
        }
        for server in servers { server.stop() }
    }
    guard peersToo else { return }
    say("")
    say("| peer, same cluster, 32 writers | per save / transaction | events or rows/s |")
    say("|---|---:|---:|")
    for (kind, label) in [("eventsourcing", "eventsourcing (Python, postgres module)"), ("pgbench", "pgbench plain INSERT")] {
        for size in [1, 10] {
            // The same number of runs as the hub's cells, each on a fresh database: the median.
            var rates: [Double] = []
            var failure: String?
            for _ in 0..<runs where failure == nil {
                switch peer(kind, size) {
                case let .success(rate): rates.append(rate)
                case let .failure(why): failure = why.description
                }
            }
            say("| \(label) | \(size) | \(failure ?? String(format: "%.0f", percentile(rates, 0.5))) |")
        }
    }
}

do {
    if CommandLine.arguments.dropFirst().first == "postgres" { try await postgresMain() } else { try await main() }
} catch {
    FileHandle.standardError.write(Data("hub-bench: \(error)\n".utf8))
    exit(3)
}
