import AsyncHTTPClient
import Foundation
import NIOCore
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
        base = "http://127.0.0.1:" + text[range.upperBound...].prefix { $0.isNumber }
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

func createItems(_ count: Int, prefix: String) -> [CommandEnvelope] {
    (0..<count).map { CommandEnvelope(.createItem(name: "\(prefix) \($0)"), id: CommandID()) }
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

/// A device of the load: pushes over AsyncHTTPClient, the body and the answer in the sync protocol's
/// wire form (what ``HTTPSyncTransport`` sends; a device's own client is not what is measured).
struct LoadDevice: Sendable {
    let client: HTTPClient
    let url: String
    let token: String

    func push(_ commands: [CommandEnvelope]) async throws {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/x-ndjson")
        request.body = .bytes(ByteBuffer(bytes: SyncWire.encode(.push(commands: commands))))
        let response = try await client.execute(request, timeout: .seconds(60))
        let body = try await response.body.collect(upTo: 1 << 24)
        var lines = Array(body.readableBytesView).split(separator: 0x0A, omittingEmptySubsequences: false).map(Array.init).makeIterator()
        let answer = try SyncWire.readResponse({ lines.next() })
        guard response.status == .ok, case let .results(results) = answer, results.allSatisfy(\.ok) else {
            throw BenchFailure(description: "a push was refused: HTTP \(response.status.code): \(answer)")
        }
    }
}

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

    // One connection a device, kept alive, as 32 phones would have.
    var configuration = HTTPClient.Configuration()
    configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: devices)
    let loadClient = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    say("| hub processes | households | commands a push | commands/s | push p50 ms | push p99 ms |")
    say("|---:|---:|---:|---:|---:|---:|")
    for processes in processCounts {
        let database = try newDatabase()
        var servers: [Server] = []
        for _ in 0..<processes { servers.append(try Server(shopHub, storage: ["--postgres", database])) }
        for households in householdCounts {
            var owners: [HubEnrolment] = []
            for _ in 0..<households {
                let enrolled = try await HubEnrolment.createHousehold(hub: URL(string: servers[0].base)!, device: "bench", actor: "bench")
                let transport = HTTPSyncTransport(household: enrolled.url, token: enrolled.token)
                try await push(transport, [CommandEnvelope(.createHousehold(household: enrolled.household, name: "Bench", currency: "EUR", timeZone: "UTC"), id: CommandID())])
                owners.append(enrolled)
            }
            progress("\(processes) process(es), \(households) household(s) enrolled")
            for size in sizes {
                // 32 devices pushing for `seconds`: every push's latency, and the commands/s of the whole.
                func load(_ span: Double, run: String) async throws -> (rate: Double, latencies: [Double]) {
                    let start = ContinuousClock.now
                    let deadline = Date().addingTimeInterval(span)
                    let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
                        for device in 0..<devices {
                            let owner = owners[device % households]
                            let base = servers[device % processes].base
                            let phone = LoadDevice(client: loadClient, url: "\(base)/v1/households/\(owner.household)/sync", token: owner.token)
                            group.addTask {
                                var times: [Double] = []
                                var n = 0
                                while Date() < deadline {
                                    let began = ContinuousClock.now
                                    try await phone.push(createItems(size, prefix: "d\(device) \(size) \(run) \(n)"))
                                    times.append(seconds(since: began) * 1000)
                                    n += 1
                                }
                                return times
                            }
                        }
                        var all: [Double] = []
                        for try await times in group { all += times }
                        return all
                    }
                    return (Double(latencies.count * size) / seconds(since: start), latencies)
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
    try await loadClient.shutdown()
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
                let database = try newDatabase()
                progress("\(kind), \(size) a save")
                let run = Process()
                run.executableURL = URL(fileURLWithPath: kind == "pgbench" ? "/usr/bin/python3" : python)
                run.arguments = [peers, kind, database, "\(Int(duration))", "\(devices)", "\(size)"]
                let out = Pipe()
                run.standardOutput = out
                do { try run.run() } catch {
                    failure = "not run: \(error)"
                    continue
                }
                let data = out.fileHandleForReading.readDataToEndOfFile()
                run.waitUntilExit()
                if let rate = (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["perSecond"] as? Double {
                    rates.append(rate)
                } else {
                    failure = "not run (exit \(run.terminationStatus); is it installed?)"
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
