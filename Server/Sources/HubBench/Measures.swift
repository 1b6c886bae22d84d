import Foundation
import ShopEvents
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The measures of the comparison, over any transport: the hosted hub's HTTP and the stdio hub's pipe.

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
    let enrolled = try await HubEnrolment.createHousehold(hub: server.url, device: "bench", actor: "bench")
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
