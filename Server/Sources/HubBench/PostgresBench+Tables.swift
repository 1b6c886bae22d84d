import Foundation
import ShopEvents

// `hub-bench postgres`'s tables: the matrix, the peers, and the targets' ratios.
extension PostgresBench {
    /// The targets' cell — 100 households, one hub process, 32 devices — and the peers, interleaved
    /// round by round (hub, pgbench, eventsourcing for one command, then for ten), so that each
    /// ratio compares runs a few seconds apart: this machine's speed drifts by half within minutes.
    func ratios() async throws {
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

    /// Every cell of hub processes × households × commands a push: commands/s and push latency.
    func matrix() async throws {
        say("| hub processes | households | commands a push | commands/s | push p50 ms | push p99 ms |")
        say("|---:|---:|---:|---:|---:|---:|")
        for processes in processCounts {
            let database = try newDatabase()
            var servers: [Server] = []
            for _ in 0..<processes { servers.append(try Server(shopHub, storage: ["--postgres", database])) }
            for households in householdCounts {
                let owners = try await enrol(households, on: servers)
                progress("\(processes) process(es), \(households) household(s) enrolled")
                for size in sizes { try await cell(processes: processes, owners: owners, servers: servers, size: size) }
            }
            for server in servers { server.stop() }
        }
    }

    /// One cell: 32 devices pushing `size` commands at a time for `duration` seconds, `runs` times.
    private func cell(processes: Int, owners: [HubEnrolment], servers: [Server], size: Int) async throws {
        let households = owners.count
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

    /// The peers on the same cluster: the Python `eventsourcing` library and pgbench's plain insert.
    func peerTable() {
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
}
