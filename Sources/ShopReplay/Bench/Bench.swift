import Foundation
import ShopEvents
import ShopProjections
#if canImport(Glibc)
import Glibc
#endif

/// Median, min and max of repeated measurements.
struct Samples {
    var values: [Double]
    var median: Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
    }
    var min: Double { values.min() ?? 0 }
    var max: Double { values.max() ?? 0 }
    func percentile(_ p: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[Swift.min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }
}

func seconds(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    let elapsed = clock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

struct Bench: ToolCommand {
    static let name = "bench"
    static let summary = "measure replay, verify, append and cold open against Foundation, orjson and eventsourcing"
    static let help = """
    Usage: shop-replay bench [--events N] [--runs R] [--dir PATH] [--no-peers] [--json]
           shop-replay bench --suggestions [--items N] [--runs R] [--json]

    Generates a synthetic journal of N events (a household with hundreds of
    items and locations, several lists, years of purchases, renames, deletes,
    reverts) and measures, each as the median of R runs with min and max:
      replay       read the journal and bring every view up to date
      verify       the full verify: hash chain and every rule
      append       commands through the deciders into the journal, 1000 per fsync:
                   batch after batch (execute(batch:)), and pipelined, a batch's
                   fsync running while the next is decided (execute(batches:));
                   and one command per fsync, p50 and p99
      cold open    every view but the audit ready from a valid snapshot (state and totals)
      memory       peak resident memory of a replay, at N/4 and N events
      commands     `view lists`, `view stats` (no snapshot) and `verify`, each
                   run as its own process on the first N/4 events and on all N:
                   wall time and peak resident memory
    and, on the same machine, data and run, its peers: Foundation's JSONDecoder
    decoding the same lines into the same event types, Python orjson parsing the
    same file line by line, and the Python eventsourcing library (SQLite)
    storing and reading back events. The Python peers are installed into a
    virtual environment under .build/; a peer that cannot be had is skipped with
    a message. Build with `swift build -c release` for figures that mean anything.

    Options:
      --events N       events in the synthetic journal (default 1000000)
      --runs R         runs of each measurement (default 5)
      --dir PATH       where to write the journals (default: a new temporary folder, removed afterwards)
      --no-peers       measure ShopEvents only
      --peer-events N  events for the slow peers, JSONDecoder and eventsourcing (default 100000)
      --json           the figures as JSON
    \(SuggestionsBench.help)
    """

    var events: Int
    var runs: Int
    var dir: String?
    var peers: Bool
    var peerEvents: Int
    var json: Bool
    var childReplay: String?
    var childRun: String?
    /// `--suggestions`: measure the suggestions view on a household of `items` items instead.
    var suggestions: Bool
    var items: Int

    init(_ arguments: inout Arguments) throws(UsageError) {
        events = try arguments.number("--events", "N", in: 100...50_000_000) ?? 1_000_000
        runs = try arguments.number("--runs", "R", in: 1...100) ?? 5
        dir = try arguments.option("--dir", "PATH")
        peers = !arguments.flag("--no-peers")
        peerEvents = try arguments.number("--peer-events", "N", in: 10...10_000_000) ?? 100_000
        json = arguments.flag("--json")
        suggestions = arguments.flag("--suggestions")
        items = try arguments.number("--items", "N", in: 10...1_000_000) ?? 5000
        childReplay = try arguments.option("--child-replay", "PATH")   // internal: the memory measurement's child
        childRun = try arguments.option("--child-run", "WORDS")         // internal: a tool command run as a measured child
    }

    func run() throws -> Int32 {
        if let childReplay {
            let replayer = Replayer<HouseholdViews>(path: childReplay, verifyChain: false)
            try replayer.catchUp()
            print(Self.peakRSS())
            return 0
        }
        if let childRun {
            // The command's own output goes nowhere; the figures go to the parent on the saved standard output.
            let saved = dup(1)
            let null = open("/dev/null", O_WRONLY)
            dup2(null, 1)
            close(null)
            let status = Tool.main(childRun.split(separator: "\u{1F}").map(String.init))
            fflush(nil)
            let answer = Array("\(Self.peakRSS()) \(status)\n".utf8)
            _ = answer.withUnsafeBytes { write(saved, $0.baseAddress, $0.count) }
            return 0
        }
        #if DEBUG
        Tool.fail("warning: this is a debug build; build with -c release for meaningful figures")
        #endif
        if suggestions {
            print(SuggestionsBench.run(items: items, runs: runs, json: json))
            return 0
        }
        let folder = dir ?? NSTemporaryDirectory() + "shop-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { if dir == nil { try? FileManager.default.removeItem(atPath: folder) } }
        let report = try measure(in: folder)
        if json {
            Output(json: true).emit(report.json)
        } else {
            print(report.text)
        }
        return 0
    }

    /// This process's own high-water mark, in bytes: ru_maxrss would include
    /// the parent's memory shared before exec.
    static func peakRSS() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let hwm = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) } ?? 0
        return hwm * 1024
    }

    func progress(_ text: String) {
        if !json { FileHandle.standardError.write(Data("bench: \(text)\n".utf8)) }
    }

    func measure(in folder: String) throws -> BenchReport {
        var report = BenchReport(events: events, runs: runs)
        report.machine = BenchReport.machineDescription()
        progress("generating \(events) events…")
        var workload = BenchWorkload()
        workload.generate(events: events)
        let commands = workload.commands
        let journalPath = folder + "/bench.ndjson"
        // The writer's clock at the workload's last command: each command gives its own `at`, and none may be ahead of the clock.
        let clock = Clock.stepping(from: commands.last?.at ?? Timestamp("2022-01-01T00:00:00.000Z")!, by: 0)   // a literal in the journal's spelling
        let head = try measureAppend(commands, clock: clock, journal: journalPath, in: folder, into: &report)
        try measurePipelinedAppend(commands, clock: clock, endingAt: head, in: folder, into: &report)
        report.journalBytes = (try FileManager.default.attributesOfItem(atPath: journalPath)[.size] as? Int) ?? 0
        try measureSingleCommands(in: folder, into: &report)
        try measureReplay(journalPath, into: &report)
        let (all, quarter) = try measureCommands(journalPath, in: folder, into: &report)
        try measureDecoding(Array(all.prefix(peerEvents)), into: &report)
        try measureVerify(journalPath, into: &report)
        try measureColdOpen(journalPath, into: &report)

        // Peak memory of a replay in a child process, at a quarter and all of the history.
        report.rssQuarter = try childPeakRSS(quarter)
        report.rssFull = try childPeakRSS(journalPath)

        if peers {
            measurePeers(journalPath, into: &report)
        } else {
            report.skipped = ["peers: not measured (--no-peers)"]
        }
        return report
    }

    /// Append: the same commands, through the deciders, 1000 per write and fsync; the head the first run wrote.
    /// The first run's journal, at `journal`, is the one the other measurements read.
    private func measureAppend(_ commands: [CommandEnvelope], clock: Clock, journal journalPath: String, in folder: String,
                               into report: inout BenchReport) throws -> JournalHead {
        var appendTimes: [Double] = []
        var head = JournalHead(seq: 0, hash: .zero)
        for run in 0..<runs {
            let path = run == 0 ? journalPath : folder + "/append-\(run).ndjson"
            unlink(path)
            if run == 0 { unlink(path + ".snapshot") }   // a folder of an earlier run (`--dir`): its snapshot is of another journal
            let journal = try Journal.open(path: path, options: .init(clock: clock,
                                                                      ids: .sequential(prefix: 0xBE4D_0000), actor: "bench"))
            var written = 0
            let elapsed = try seconds {
                var start = 0
                while start < commands.count {
                    let batch = Array(commands[start..<Swift.min(start + 1000, commands.count)])
                    written += try journal.execute(batch: batch).reduce(0) { $0 + ((try? $1.get())?.events.count ?? 0) }
                    start += batch.count
                }
            }
            appendTimes.append(elapsed)
            head = journal.head
            journal.close()
            report.journalEvents = written
            if run > 0 { unlink(path); unlink(path + ".lock") }
            progress("append run \(run + 1): \(Int(Double(written) / elapsed)) events/s")
        }
        report.append = Samples(values: appendTimes)
        return head
    }

    /// The same, pipelined (`execute(batches:)`): a batch's fsync runs while the next is decided.
    /// Each run must end at the head the first run wrote: the same bytes.
    private func measurePipelinedAppend(_ commands: [CommandEnvelope], clock: Clock, endingAt head: JournalHead, in folder: String,
                                        into report: inout BenchReport) throws {
        var pipelinedTimes: [Double] = []
        for run in 0..<runs {
            let path = folder + "/append-pipelined-\(run).ndjson"
            unlink(path)
            let journal = try Journal.open(path: path, options: .init(clock: clock,
                                                                      ids: .sequential(prefix: 0xBE4D_0000), actor: "bench"))
            var written = 0
            let batches = stride(from: 0, to: commands.count, by: 1000).lazy.map { Array(commands[$0..<Swift.min($0 + 1000, commands.count)]) }
            let elapsed = try seconds {
                try journal.execute(batches: batches) { results in
                    written += results.reduce(0) { $0 + ((try? $1.get())?.events.count ?? 0) }
                }
            }
            pipelinedTimes.append(elapsed)
            let end = journal.head
            journal.close()
            unlink(path); unlink(path + ".lock")
            guard end == head, written == report.journalEvents else {
                throw ToolFailure(message: "bench: the pipelined append wrote \(written) events ending at \(end), not \(report.journalEvents) ending at \(head)", exitCode: 3)
            }
            progress("append pipelined run \(run + 1): \(Int(Double(written) / elapsed)) events/s")
        }
        report.appendPipelined = Samples(values: pipelinedTimes)
    }

    /// One command, one fsync.
    private func measureSingleCommands(in folder: String, into report: inout BenchReport) throws {
        let single = folder + "/single.ndjson"
        unlink(single)   // the bench's own, from an earlier run in the same folder (`--dir`)
        let journal = try Journal.open(path: single, options: .init(ids: .sequential(prefix: 0xBE4E_0000), actor: "bench"))
        try journal.execute(.createHousehold(household: HouseholdID(), name: "Latency", currency: "EUR", timeZone: "UTC"))
        var latencies: [Double] = []
        for index in 0..<200 {
            latencies.append(try seconds { try journal.execute(.createItem(item: ItemID(), name: "Item \(index)", location: nil, details: .none)) })
        }
        journal.close()
        report.singleLatency = Samples(values: latencies)
    }

    /// Replay: every view up to date, from the file.
    private func measureReplay(_ journalPath: String, into report: inout BenchReport) throws {
        var replayTimes: [Double] = []
        for _ in 0..<runs {
            replayTimes.append(try seconds {
                let replayer = Replayer<HouseholdViews>(path: journalPath, verifyChain: false)
                try replayer.catchUp()
            })
        }
        report.replay = Samples(values: replayTimes)
        progress("replay: \(Int(Double(report.journalEvents) / report.replay.median)) events/s")
    }

    /// The tool's commands, each a fresh process, on a quarter of the history and on all of it,
    /// before any snapshot exists (the views replay the whole journal, as the first open on a phone would).
    /// Gives the journal's lines and the path of its first quarter.
    private func measureCommands(_ journalPath: String, in folder: String,
                                 into report: inout BenchReport) throws -> (lines: [[UInt8]], quarter: String) {
        let quarter = folder + "/quarter.ndjson"
        let all = Scratch.lines(journalPath)
        var cut = all.count / 4
        func command(_ line: [UInt8]) -> CommandID? { try? EventLineCodec.decode(line).command }
        while cut > 0, cut < all.count, command(all[cut]) == command(all[cut - 1]) { cut += 1 }   // whole commands only
        Scratch.writeLines(Array(all.prefix(cut)), to: quarter)
        report.quarterEvents = cut
        for (name, words) in Self.measuredCommands {
            var figures = BenchReport.CommandFigures(name: name)
            for _ in 0..<runs {
                let small = try freshProcess(words + ["--journal", quarter])
                let whole = try freshProcess(words + ["--journal", journalPath])
                figures.quarter.values.append(small.seconds)
                figures.full.values.append(whole.seconds)
                figures.rssQuarter = Swift.max(figures.rssQuarter, small.peakRSS)
                figures.rssFull = Swift.max(figures.rssFull, whole.peakRSS)
            }
            report.commands.append(figures)
            progress("\(name): \(Int(Double(report.journalEvents) / figures.full.median)) events/s, peak RSS \(figures.rssFull >> 20) MiB")
        }
        return (all, quarter)
    }

    /// Our codec alone, and Foundation's JSONDecoder, on the same lines.
    private func measureDecoding(_ lines: [[UInt8]], into report: inout BenchReport) throws {
        report.decodeLines = lines.count
        report.ourDecode = Samples(values: try (0..<runs).map { _ in
            try seconds { for line in lines { _ = try EventLineCodec.decode(line) } }
        })
        if peers {
            let decoder = JSONDecoder()
            let datas = lines.map { Data($0) }
            let foundationDecode = Samples(values: try (0..<Swift.max(1, runs / 2)).map { _ in
                try seconds { for data in datas { _ = try decoder.decode(FoundationLine.self, from: data) } }
            })
            report.foundationDecode = foundationDecode
            progress("Foundation JSONDecoder: \(Int(Double(lines.count) / foundationDecode.median)) lines/s")
        }
    }

    /// Verify: hash chain and every rule.
    private func measureVerify(_ journalPath: String, into report: inout BenchReport) throws {
        report.verify = Samples(values: try (0..<runs).map { _ in
            try seconds {
                let result = try JournalVerifier.verify(path: journalPath)
                if let failure = result.failure { throw ToolFailure(message: "the bench journal does not verify: \(failure.message)", exitCode: 3) }
            }
        })
        progress("verify: \(Int(Double(report.journalEvents) / report.verify.median)) events/s")
    }

    /// Cold open from a valid snapshot: the state and the statistics projection, as `shop-replay snapshot` saves them (the audit streams).
    private func measureColdOpen(_ journalPath: String, into report: inout BenchReport) throws {
        let engine = ViewFolding<StatisticsViews>(journalPath: journalPath, verifyChain: false)
        try engine.refresh()
        try engine.saveSnapshot()
        report.snapshotBytes = (try FileManager.default.attributesOfItem(atPath: journalPath + ".snapshot")[.size] as? Int) ?? 0
        report.coldOpen = Samples(values: try (0..<runs).map { _ in
            try seconds {
                let cold = ViewFolding<StatisticsViews>(journalPath: journalPath, verifyChain: false)
                try cold.refresh()
                guard cold.snapshotSeq != nil else { throw ToolFailure(message: "the snapshot was not used: \(cold.warnings)", exitCode: 3) }
            }
        })
        progress("cold open: \(String(format: "%.1f", report.coldOpen.median * 1000)) ms")
    }

    /// The Python peers, orjson and eventsourcing, each skipped with a message where it cannot be had.
    private func measurePeers(_ journalPath: String, into report: inout BenchReport) {
        var python = PythonPeers()
        if python.ensure(module: "orjson", packages: ["orjson"]),
           let output = python.run(python.python, ["-c", PythonPeers.orjsonScript, journalPath, "\(runs)"], what: "orjson"),
           let result = try? JSONValue.parse(Array(output.utf8)) {
            report.orjson = Samples(values: result["seconds"]?.arrayValue?.compactMap(\.doubleValue) ?? [])
            report.orjsonVersion = result["version"]?.stringValue
        }
        if python.ensure(module: "eventsourcing", packages: ["eventsourcing>=9.5,<9.6"]),
           let output = python.run(python.python, ["-c", PythonPeers.eventsourcingScript, journalPath, "\(peerEvents)",
                                                  "\(Swift.max(1, runs / 2))", "1000"], what: "eventsourcing"),
           let result = try? JSONValue.parse(Array(output.utf8)) {
            report.eventsourcingEvents = result["events"]?.intValue ?? 0
            report.eventsourcingWrite = Samples(values: result["write"]?.arrayValue?.compactMap(\.doubleValue) ?? [])
            report.eventsourcingRead = Samples(values: result["read"]?.arrayValue?.compactMap(\.doubleValue) ?? [])
            report.eventsourcingVersion = result["version"]?.stringValue
        }
        report.skipped = python.problems
    }

    /// The tool's commands measured as fresh processes.
    static let measuredCommands: [(String, [String])] = [
        ("view lists", ["view", "lists", "--no-snapshot", "--json"]),
        ("view stats", ["view", "stats", "--no-snapshot", "--json"]),
        ("verify", ["verify"]),
    ]

    /// Runs `shop-replay WORDS…` as its own process (this binary, its output
    /// thrown away) and returns its wall time and its peak resident memory.
    func freshProcess(_ words: [String]) throws -> (seconds: Double, peakRSS: Int) {
        let (elapsed, text, status) = try runSelf(["bench", "--child-run", words.joined(separator: "\u{1F}")])
        let figures = text.split(separator: " ").compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard status == 0, figures.count == 2, figures[1] == 0 else {
            throw ToolFailure(message: "`shop-replay \(words.joined(separator: " "))` failed in the bench (\(text.isEmpty ? "status \(status)" : "exit \(figures.last ?? -1)"))", exitCode: 3)
        }
        return (elapsed, figures[0])
    }

    /// Runs this binary with `arguments`: its wall time, standard output and exit status.
    ///
    /// Started with `posix_spawn` and waited for with `waitpid`, its time taken
    /// from just before the one to just after the other: Foundation's
    /// `Process.waitUntilExit()` polls its run loop every 50 ms, and in the
    /// bench's runs often added up to that much to a command's time.
    func runSelf(_ arguments: [String]) throws -> (seconds: Double, output: String, status: Int32) {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        var pipe: [Int32] = [0, 0]
        guard Glibc.pipe(&pipe) == 0 else { throw ToolFailure(message: "bench: cannot make a pipe", exitCode: 3) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipe[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipe[0])
        posix_spawn_file_actions_addclose(&actions, pipe[1])
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0, status: Int32 = 0
        var output: [UInt8] = []
        let elapsed = try seconds {
            let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
            close(pipe[1])
            defer { close(pipe[0]) }
            guard spawned == 0 else { throw ToolFailure(message: "bench: cannot start \(executable) (error \(spawned))", exitCode: 3) }
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(pipe[0], $0.baseAddress, $0.count) }
                if n < 0, errno == EINTR { continue }
                guard n > 0 else { break }
                output += buffer[0..<n]
            }
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        // The exit status as the shell gives it; a signal's number plus 128.
        let exit = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        return (elapsed, String(decoding: output, as: UTF8.self), exit)
    }

    /// Runs this binary's replay in a child process and returns its peak resident memory in bytes.
    func childPeakRSS(_ path: String) throws -> Int {
        let (_, text, status) = try runSelf(["bench", "--child-replay", path])
        guard status == 0, let bytes = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw ToolFailure(message: "the memory measurement's replay failed (status \(status))", exitCode: 3)
        }
        return bytes
    }
}

/// Whole-file helpers for the bench's journals.
enum Scratch {
    /// The lines of a file without their newlines.
    static func lines(_ path: String) -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: path) else { return [] }
        return data.split(separator: 0x0A).map { Array($0) }
    }

    static func writeLines(_ lines: [[UInt8]], to path: String) {
        var bytes: [UInt8] = []
        for line in lines { bytes += line; bytes.append(0x0A) }
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
    }
}
