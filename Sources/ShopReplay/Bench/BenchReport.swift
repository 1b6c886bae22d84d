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
    var skipped: [String] = []

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
    var ourDecodeRate: Double { rate(Double(decodeLines), ourDecode) }
    var foundationRate: Double? { foundationDecode.map { rate(Double(decodeLines), $0) } }
    var orjsonRate: Double? { orjson.flatMap { $0.values.isEmpty ? nil : rate(n, $0) } }
    var esWriteRate: Double? { eventsourcingWrite.flatMap { $0.values.isEmpty ? nil : rate(Double(eventsourcingEvents), $0) } }
    var esReadRate: Double? { eventsourcingRead.flatMap { $0.values.isEmpty ? nil : rate(Double(eventsourcingEvents), $0) } }

    /// The product's promises, and whether this run met them.
    var targets: [(String, Bool?)] {
        [
            ("replay ≥ 1,000,000 events/s", replayRate >= 1_000_000),
            ("replay ≥ 25× Foundation JSONDecoder", foundationRate.map { replayRate / $0 >= 25 }),
            ("replay ≥ 4× orjson parse-only", orjsonRate.map { replayRate / $0 >= 4 }),
            ("append (group commit) ≥ 500,000 events/s", appendRate >= 500_000),
            ("append ≥ 20× eventsourcing", esWriteRate.map { appendRate / $0 >= 20 }),
            ("verify ≥ 300,000 events/s", verifyRate >= 300_000),
            ("cold open with snapshot ≤ 50 ms", coldOpen.median <= 0.050),
            ("replay peak RSS ≤ 64 MiB", rssFull <= 64 << 20),
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
        row("replay, every view", "\(Self.count(replayRate)) events/s",
            "\(String(format: "%.0f", Double(journalBytes) / replay.median / 1e6)) MB/s; \(spread(replay, unit: "s"))")
        row("verify, chain and rules", "\(Self.count(verifyRate)) events/s", spread(verify, unit: "s"))
        row("append, 1000 per fsync", "\(Self.count(appendRate)) events/s", spread(append, unit: "s"))
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
        for (target, met) in targets { out.append("  \(met.map { $0 ? "met    " : "NOT met" } ?? "n/a    ")  \(target)") }
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
                                ("singleP50Milliseconds", .double(singleLatency.median * 1000)),
                                ("singleP99Milliseconds", .double(singleLatency.percentile(0.99) * 1000))])),
            ("coldOpen", .object([("seconds", samples(coldOpen)), ("snapshotBytes", .int(snapshotBytes))])),
            ("peakRSSBytes", .object([("quarter", .int(rssQuarter)), ("full", .int(rssFull))])),
            ("decode", .object([("lines", .int(decodeLines)), ("ours", samples(ourDecode)), ("oursPerSecond", rate(ourDecodeRate)),
                                ("foundation", samples(foundationDecode)), ("foundationPerSecond", rate(foundationRate))])),
            ("orjson", .object([("version", .optional(orjsonVersion)), ("seconds", samples(orjson)), ("linesPerSecond", rate(orjsonRate))])),
            ("eventsourcing", .object([("version", .optional(eventsourcingVersion)), ("events", .int(eventsourcingEvents)),
                                       ("write", samples(eventsourcingWrite)), ("read", samples(eventsourcingRead)),
                                       ("writePerSecond", rate(esWriteRate)), ("readPerSecond", rate(esReadRate))])),
            ("targets", .array(targets.map { .object([("target", .string($0.0)), ("met", $0.1.map(JSONValue.bool) ?? .null)]) })),
            ("skipped", .array(skipped.map(JSONValue.string))),
        ])
    }
}
