import Foundation
import ShopEvents

/// What the bench measured, as text for people and JSON for the record.
struct BenchReport {
    var events: Int
    var runs: Int
    var machine = ""
    var journalEvents = 0
    var journalBytes = 0
    var snapshotBytes = 0
    var append = Samples(values: [])
    var appendPipelined = Samples(values: [])
    var singleLatency = Samples(values: [])
    var replay = Samples(values: [])
    var verify = Samples(values: [])
    var coldOpen = Samples(values: [])
    var decodeLines = 0
    var ourDecode = Samples(values: [])
    var foundationDecode: Samples?
    var orjson: Samples?
    var orjsonVersion: String?
    var eventsourcingEvents = 0
    var eventsourcingWrite: Samples?
    var eventsourcingRead: Samples?
    var eventsourcingVersion: String?
    var rssQuarter = 0
    var rssFull = 0
    var quarterEvents = 0
    var commands: [CommandFigures] = []
    var skipped: [String] = []

    /// One tool command run as a fresh process on a quarter of the history and on all of it.
    struct CommandFigures {
        var name: String
        var quarter = Samples(values: [])
        var full = Samples(values: [])
        var rssQuarter = 0
        var rssFull = 0
    }

    init(events: Int, runs: Int) { self.events = events; self.runs = runs }

    static func machineDescription() -> String {
        let cpu = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
            .split(separator: "\n").first { $0.hasPrefix("model name") }?.split(separator: ":").last?
            .trimmingCharacters(in: .whitespaces) ?? "unknown CPU"
        return "\(cpu), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB"
    }

    var n: Double { Double(journalEvents) }
    func rate(_ count: Double, _ s: Samples) -> Double { s.median > 0 ? count / s.median : 0 }
    var replayRate: Double { rate(n, replay) }
    var verifyRate: Double { rate(n, verify) }
    var appendRate: Double { rate(n, append) }
    var appendPipelinedRate: Double { rate(n, appendPipelined) }
    var ourDecodeRate: Double { rate(Double(decodeLines), ourDecode) }
    var foundationRate: Double? { foundationDecode.map { rate(Double(decodeLines), $0) } }
    var orjsonRate: Double? { orjson.flatMap { $0.values.isEmpty ? nil : rate(n, $0) } }
    var esWriteRate: Double? { eventsourcingWrite.flatMap { $0.values.isEmpty ? nil : rate(Double(eventsourcingEvents), $0) } }
    var esReadRate: Double? { eventsourcingRead.flatMap { $0.values.isEmpty ? nil : rate(Double(eventsourcingEvents), $0) } }

    func command(_ name: String) -> CommandFigures? { commands.first { $0.name == name } }
    func commandRate(_ name: String) -> Double { command(name).map { rate(n, $0.full) } ?? 0 }

    /// The product's promises (issue 13's targets), and whether this run met them.
    var targets: [(String, Bool?)] {
        var targets: [(String, Bool?)] = []
        for name in ["view lists", "view stats"] {
            targets.append(("`\(name)`, a fresh process, no snapshot ≥ 1,000,000 events/s", commandRate(name) >= 1_000_000))
            targets.append(("`\(name)` ≥ 2× orjson parsing the same file line by line", orjsonRate.map { commandRate(name) / $0 >= 2 }))
        }
        targets.append(("`verify`, a fresh process ≥ 300,000 events/s", commandRate("verify") >= 300_000))
        for figures in commands {
            targets.append(("`\(figures.name)` peak RSS ≤ 64 MiB at \(Self.count(n)) events", figures.rssFull <= 64 << 20))
            targets.append(("`\(figures.name)` peak RSS flat from \(Self.count(Double(quarterEvents))) to \(Self.count(n)) events (within 10%)",
                            Double(figures.rssFull) <= 1.1 * Double(figures.rssQuarter)))
        }
        return targets + [
            ("cold open with snapshot ≤ 50 ms", coldOpen.median <= 0.050),
            ("append, group commit pipelined (execute(batches:)) ≥ 500,000 events/s", appendPipelinedRate >= 500_000),
        ]
    }

    /// The aims of the plan written at issue 5 (docs/BENCHMARKS.md, "Targets
    /// at issue 5"), kept beside the targets so that the way from there
    /// stays in view: in-process replay of every view (the audit's records
    /// included, so its memory grows with the history by design), append
    /// batch after batch, the ratios that plan set against the peers.
    var earlierAims: [(String, Bool?)] {
        [
            ("replay, every view, ≥ 1,000,000 events/s", replayRate >= 1_000_000),
            ("replay ≥ 25× Foundation JSONDecoder", foundationRate.map { replayRate / $0 >= 25 }),
            ("replay ≥ 4× orjson parse-only", orjsonRate.map { replayRate / $0 >= 4 }),
            ("replay peak RSS ≤ 64 MiB (every view, the audit's records too)", rssFull <= 64 << 20),
            ("verify, in process, ≥ 300,000 events/s", verifyRate >= 300_000),
            ("append, group commit batch after batch (execute(batch:)) ≥ 500,000 events/s", appendRate >= 500_000),
            ("append ≥ 20× eventsourcing", esWriteRate.map { appendRate / $0 >= 20 }),
        ]
    }

    static func count(_ value: Double) -> String {
        let formatter = NumberFormatter()
        formatter.numberStyle = .decimal
        formatter.maximumFractionDigits = 0
        return formatter.string(from: NSNumber(value: value.rounded())) ?? "\(Int(value))"
    }

    func spread(_ s: Samples, scale: Double = 1, unit: String) -> String {
        String(format: "%.1f %@ (min %.1f, max %.1f)", s.median * scale, unit, s.min * scale, s.max * scale)
    }

    var text: String {
        var rows: [[String]] = []
        func row(_ what: String, _ figure: String, _ detail: String) { rows.append([what, figure, detail]) }
        for figures in commands {
            let full = rate(n, figures.full), small = rate(Double(quarterEvents), figures.quarter)
            row("`\(figures.name)`, own process", "\(Self.count(full)) events/s",
                "peak RSS \(figures.rssFull >> 20) MiB; \(spread(figures.full, unit: "s"))\(orjsonRate.map { String(format: "; %.2f× orjson", full / $0) } ?? "")")
            row("  at \(Self.count(Double(quarterEvents))) events", "\(Self.count(small)) events/s",
                "peak RSS \(figures.rssQuarter >> 20) MiB; \(spread(figures.quarter, unit: "s"))")
        }
        row("replay, every view", "\(Self.count(replayRate)) events/s",
            "\(String(format: "%.0f", Double(journalBytes) / replay.median / 1e6)) MB/s; \(spread(replay, unit: "s"))")
        row("verify, chain and rules", "\(Self.count(verifyRate)) events/s", spread(verify, unit: "s"))
        row("append, 1000 per fsync", "\(Self.count(appendRate)) events/s", spread(append, unit: "s"))
        row("  pipelined", "\(Self.count(appendPipelinedRate)) events/s", spread(appendPipelined, unit: "s"))
        row("append, 1 per fsync", String(format: "p50 %.2f ms", singleLatency.median * 1000),
            String(format: "p99 %.2f ms over %d commands", singleLatency.percentile(0.99) * 1000, singleLatency.values.count))
        row("cold open with snapshot", spread(coldOpen, scale: 1000, unit: "ms"), "snapshot \(snapshotBytes >> 10) KiB")
        row("replay peak RSS", "\(rssFull >> 20) MiB", "\(rssQuarter >> 20) MiB at a quarter of the history")
        row("our line decoder", "\(Self.count(ourDecodeRate)) lines/s", "\(decodeLines) lines")
        if let foundationRate {
            row("Foundation JSONDecoder", "\(Self.count(foundationRate)) lines/s",
                String(format: "replay %.0f×, our decoder %.0f× faster", replayRate / foundationRate, ourDecodeRate / foundationRate))
        }
        if let orjsonRate {
            row("Python orjson \(orjsonVersion ?? ""), parse only", "\(Self.count(orjsonRate)) lines/s",
                String(format: "replay %.1f× faster", replayRate / orjsonRate))
        }
        if let esWriteRate, let esReadRate {
            row("eventsourcing \(eventsourcingVersion ?? "") SQLite, store", "\(Self.count(esWriteRate)) events/s",
                String(format: "read back %@ events/s; our append %.0f× faster", Self.count(esReadRate), appendRate / esWriteRate))
        }
        var table = Table(["measure", "median", ""])
        for r in rows { table.add(r) }
        var out = ["ShopEvents bench: \(Self.count(n)) events (\(journalBytes >> 20) MiB), median of \(runs) runs", machine, "", table.render(), "", "Targets"]
        func verdict(_ met: Bool?) -> String { met.map { $0 ? "met    " : "NOT met" } ?? "n/a    " }
        for (target, met) in targets { out.append("  \(verdict(met))  \(target)") }
        out += ["", "Aims of the plan at issue 5 (history, not targets)"]
        for (aim, met) in earlierAims { out.append("  \(verdict(met))  \(aim)") }
        if !skipped.isEmpty { out += ["", "Skipped:"] + skipped.map { "  \($0)" } }
        return out.joined(separator: "\n")
    }

    var json: JSONValue {
        func samples(_ s: Samples?) -> JSONValue {
            guard let s, !s.values.isEmpty else { return .null }
            return .object([("median", .double(s.median)), ("min", .double(s.min)), ("max", .double(s.max)), ("runs", .int(s.values.count))])
        }
        func rate(_ r: Double?) -> JSONValue { r.map { .double($0.rounded()) } ?? .null }
        return .object([
            ("machine", .string(machine)), ("events", .int(journalEvents)), ("journalBytes", .int(journalBytes)), ("runs", .int(runs)),
            ("replay", .object([("seconds", samples(replay)), ("eventsPerSecond", rate(replayRate)),
                                ("megabytesPerSecond", .double((Double(journalBytes) / replay.median / 1e6).rounded()))])),
            ("verify", .object([("seconds", samples(verify)), ("eventsPerSecond", rate(verifyRate))])),
            ("append", .object([("seconds", samples(append)), ("eventsPerSecond", rate(appendRate)),
                                ("pipelined", .object([("seconds", samples(appendPipelined)), ("eventsPerSecond", rate(appendPipelinedRate))])),
                                ("singleP50Milliseconds", .double(singleLatency.median * 1000)),
                                ("singleP99Milliseconds", .double(singleLatency.percentile(0.99) * 1000))])),
            ("coldOpen", .object([("seconds", samples(coldOpen)), ("snapshotBytes", .int(snapshotBytes))])),
            ("peakRSSBytes", .object([("quarter", .int(rssQuarter)), ("full", .int(rssFull))])),
            ("quarterEvents", .int(quarterEvents)),
            ("commands", .array(commands.map { c in
                .object([("command", .string(c.name)),
                         ("full", .object([("seconds", samples(c.full)), ("eventsPerSecond", rate(self.rate(n, c.full))), ("peakRSSBytes", .int(c.rssFull))])),
                         ("quarter", .object([("seconds", samples(c.quarter)), ("eventsPerSecond", rate(self.rate(Double(quarterEvents), c.quarter))),
                                              ("peakRSSBytes", .int(c.rssQuarter))]))])
            })),
            ("decode", .object([("lines", .int(decodeLines)), ("ours", samples(ourDecode)), ("oursPerSecond", rate(ourDecodeRate)),
                                ("foundation", samples(foundationDecode)), ("foundationPerSecond", rate(foundationRate))])),
            ("orjson", .object([("version", .optional(orjsonVersion)), ("seconds", samples(orjson)), ("linesPerSecond", rate(orjsonRate))])),
            ("eventsourcing", .object([("version", .optional(eventsourcingVersion)), ("events", .int(eventsourcingEvents)),
                                       ("write", samples(eventsourcingWrite)), ("read", samples(eventsourcingRead)),
                                       ("writePerSecond", rate(esWriteRate)), ("readPerSecond", rate(esReadRate))])),
            ("targets", .array(targets.map { .object([("target", .string($0.0)), ("met", $0.1.map(JSONValue.bool) ?? .null)]) })),
            ("earlierAims", .array(earlierAims.map { .object([("aim", .string($0.0)), ("met", $0.1.map(JSONValue.bool) ?? .null)]) })),
            ("skipped", .array(skipped.map(JSONValue.string))),
        ])
    }
}
