import Foundation
import ShopEvents
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// hub-bench: the hosted hub measured, side by side with the stdio hub in the
// same run. Release builds of both programs; medians and percentiles of
// repeated runs. Not a test: nothing is asserted.
//
//   swift build -c release && swift build -c release --package-path Server
//   Server/.build/release/hub-bench [--shop-replay .build/release/shop-replay] [--shop-hub Server/.build/release/shop-hub]

func comparisonMain() async throws {
    let options = Options()
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("hub-bench-\(UUID().uuidString.prefix(8))").path
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }

    let server = try Server(options.shopHub, data: folder + "/hub-data")
    var hosted = try await measure(options: options, folder: folder) { _ in try await hostedHousehold(server) }
    let enrolled = try await HubEnrolment.createHousehold(hub: server.url, device: "lat", actor: "bench")
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
