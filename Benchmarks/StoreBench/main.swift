// Benchmarks of the app API (not tests: nothing here asserts a time).
//
//   StoreBench latency [SAMPLES]   — from one process's acknowledged write to the
//                                    HouseholdModel updated in another process: p50, p99
//   StoreBench open JOURNAL [RUNS] — opening a ShopStore, and a HouseholdModel with and
//                                    without a snapshot, on an existing journal (for example
//                                    the one `shop-replay bench --dir DIR --no-peers` leaves)
//   StoreBench sync PENDING JOURNAL [RUNS] — a sync that pushes PENDING commands made offline
//                                    to a `shop-replay hub` process and pulls them back, and a
//                                    clone of JOURNAL (for example a 100,000-event one that
//                                    `shop-replay bench --events 100000 --dir DIR --no-peers` leaves); medians
//   StoreBench stats JOURNAL [LAST] — the cost of one event in the statistics: folding it,
//                                    updating LiveStats, and rebuilding StatsView, for each of
//                                    the LAST events (default 1,000) of JOURNAL; medians
//   StoreBench memory JOURNAL      — where a replay's memory goes: heap bytes in use (glibc
//                                    mallinfo2) held by the household's state, the purchase
//                                    history, and the id tables `verify` and writers keep
//
// Build with `swift build -c release`; see docs/BENCHMARKS.md.
import Foundation
import Observation
import ShopEvents
import ShopProjections

func realtimeNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func median(_ values: [Double]) -> Double { percentile(values, 0.5) }

func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
}

let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "write":
    // The other process: one command at a time, printing when each is durable.
    let path = arguments[2], count = Int(arguments[3])!, pause = UInt64(arguments[4])!
    let store = try await ShopStore(path: path, options: .init(actor: "writer", device: "bench-writer"))
    for n in 0..<count {
        let started = realtimeNanoseconds()
        let outcome = try await store.execute(.createItem(item: ItemID(), name: "bench item \(n)", location: nil, details: .none))
        print("\(outcome.seqs.last!) \(started) \(realtimeNanoseconds())")
        fflush(nil)
        try await Task.sleep(nanoseconds: pause * 1_000_000)
    }

case "latency":
    let samples = arguments.count > 2 ? Int(arguments[2])! : 300
    let folder = NSTemporaryDirectory() + "store-bench-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    let path = folder + "/latency.ndjson"
    let store = try await ShopStore(path: path, options: .init(actor: "ana"))
    try await store.execute(.createHousehold(household: HouseholdID(), name: "Bench", currency: "EUR", timeZone: "UTC"))
    let model = try await HouseholdModel(store: store)
    // When the model reached each seq, observed (not polled) on the main actor.
    var reached: [Int: UInt64] = [:]
    let last = 1 + samples
    let output = Pipe()
    let writer = Process()
    writer.executableURL = URL(fileURLWithPath: arguments[0])
    writer.arguments = ["write", path, "\(samples)", "15"]
    writer.standardOutput = output
    try writer.run()
    while model.views.asOf < last {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            withObservationTracking { _ = model.views } onChange: { continuation.resume() }
        }
        await Task.yield()
        reached[model.views.asOf] = realtimeNanoseconds()
    }
    writer.waitUntilExit()
    let acknowledged = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        .split(separator: "\n").compactMap { line -> (seq: Int, started: UInt64, acknowledged: UInt64)? in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let seq = Int(parts[0]), let started = UInt64(parts[1]), let ack = UInt64(parts[2]) else { return nil }
            return (seq, started, ack)
        }
    // A seq the model skipped over arrived with a later one: its time is that one's.
    let seqs = reached.keys.sorted()
    var fromAck: [Double] = [], fromStart: [Double] = []
    for write in acknowledged {
        guard let at = seqs.first(where: { $0 >= write.seq }).flatMap({ reached[$0] }) else { continue }
        fromAck.append(Double(Int64(at) - Int64(write.acknowledged)) / 1e6)
        fromStart.append(Double(Int64(at) - Int64(write.started)) / 1e6)
    }
    print(String(format: "write in one process → HouseholdModel updated in another, %d samples:", fromAck.count))
    print(String(format: "  from the writer's acknowledgement (after its fsync): p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                 percentile(fromAck, 0.5), percentile(fromAck, 0.99), fromAck.max() ?? .nan))
    print(String(format: "  from the start of the writer's execute:               p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                 percentile(fromStart, 0.5), percentile(fromStart, 0.99), fromStart.max() ?? .nan))
    print("  (negative: the model saw the event before the writer's fsync returned — the line is readable once written)")

case "open":
    let path = arguments[2]
    let runs = arguments.count > 3 ? Int(arguments[3])! : 5
    let events = try JournalReader(path: path, verifyChain: false)
    var count = 0
    while try events.next() != nil { count += 1 }
    var store: [Double] = [], storeFromSnapshot: [Double] = [], withSnapshot: [Double] = [], without: [Double] = []
    let chain = path + ".chain"
    try? FileManager.default.removeItem(atPath: chain)
    for _ in 0..<runs {
        store.append(try await seconds { _ = try await ShopStore(path: path) })
    }
    try await ShopStore(path: path).saveSnapshot()
    for _ in 0..<runs {
        storeFromSnapshot.append(try await seconds { _ = try await ShopStore(path: path) })
    }
    let chainBytes = (try? FileManager.default.attributesOfItem(atPath: chain)[.size] as? Int) ?? 0
    let snapshot = ViewSnapshot.path(forJournal: path)
    // Every projection, as HouseholdModel folds (and `shop-replay snapshot --with-records` saves).
    let engine = ViewEngine(journalPath: path, useSnapshot: false)
    try engine.refresh()
    try engine.saveSnapshot()
    for _ in 0..<runs {
        let store = try await ShopStore(path: path)
        withSnapshot.append(try await seconds { _ = try await HouseholdModel(store: store) })
    }
    try FileManager.default.moveItem(atPath: snapshot, toPath: snapshot + ".aside")
    defer { try? FileManager.default.moveItem(atPath: snapshot + ".aside", toPath: snapshot) }
    for _ in 0..<min(runs, 3) {
        let store = try await ShopStore(path: path)
        without.append(try await seconds { _ = try await HouseholdModel(store: store) })
    }
    print(String(format: "%d events: ShopStore open %.1f ms, from its chain snapshot (%d KiB) %.1f ms; HouseholdModel with a snapshot %.1f ms, without %.1f ms (medians of %d, %d, %d, %d runs)",
                 count, median(store) * 1000, chainBytes / 1024, median(storeFromSnapshot) * 1000, median(withSnapshot) * 1000, median(without) * 1000,
                 store.count, storeFromSnapshot.count, withSnapshot.count, without.count))

case "sync":
    guard arguments.count > 3, let pendingCount = Int(arguments[2]) else {
        print("usage: StoreBench sync PENDING JOURNAL [RUNS]")
        exit(2)
    }
    let source = arguments[3]
    let runs = arguments.count > 4 ? Int(arguments[4])! : 3
    let tool = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("shop-replay").path
    guard FileManager.default.isExecutableFile(atPath: tool) else {
        print("StoreBench sync needs shop-replay next to it: swift build -c release")
        exit(2)
    }
    let folder = NSTemporaryDirectory() + "store-bench-sync-\(getpid())"
    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: folder) }
    func hubCommand(_ journal: String) -> String { "'\(tool)' hub --journal '\(journal)'" }
    var outboxTimes: [Double] = [], pushTimes: [Double] = [], pullTimes: [Double] = []
    var pulledEvents = 0
    for run in 0..<runs {
        // Push: a household of 200 items on one list; offline, each is added, its quantity changed,
        // bought, and the bought ones cleared every 200 purchases — PENDING commands, then one sync.
        let hub = "\(folder)/push-hub-\(run).ndjson", device = "\(folder)/push-device-\(run).ndjson"
        let list = ListID()
        var items: [ItemID] = []
        do {
            let journal = try Journal.create(path: hub, options: .init(actor: "ana"), existing: .refuse)
            var setup = [CommandEnvelope(.createHousehold(household: HouseholdID(), name: "Bench", currency: "EUR", timeZone: "UTC")),
                         CommandEnvelope(.createList(list: list, name: "Weekly", priority: nil))]
            for n in 0..<200 {
                items.append(ItemID())
                setup.append(CommandEnvelope(.createItem(item: items[n], name: "item \(n)", location: nil, details: ItemDetails(unitPrice: 100 + n))))
            }
            _ = try journal.execute(allOrNothing: setup)
            journal.close()
        }
        let cloned = try ProcessTransport(command: hubCommand(hub))
        _ = try await SyncClient.clone(journal: device, settings: SyncSettings(hub: hub, device: "bench"), options: .init(actor: "ana"), over: cloned)
        cloned.close()
        let replica = try Replica(path: device, options: .init(actor: "ana"))
        var made = 0
        outboxTimes.append(try await seconds {
            var round = 0
            while made < pendingCount {
                for item in items where made < pendingCount {
                    let command: Command
                    switch round % 3 {
                    case 0: command = .addItemToList(list: list, item: item, quantity: 1)
                    case 1: command = .changeQuantity(list: list, item: item, quantity: 2)
                    default: command = .purchaseItem(purchase: PurchaseID(), item: item, list: list, quantity: nil, unitPrice: nil, location: nil, purchasedAt: nil)
                    }
                    try replica.execute(command)
                    made += 1
                }
                if round % 3 == 2, made < pendingCount {
                    try replica.execute(.clearBought(list: list))
                    made += 1
                }
                round += 1
            }
        })
        let transport = try ProcessTransport(command: hubCommand(hub))
        var report = SyncReport()
        pushTimes.append(try await seconds {
            report = try await SyncClient(journal: device, options: .init(actor: "ana")).sync(over: transport)
        })
        transport.close()
        precondition(report.accepted == pendingCount && report.pending == 0, "the sync did not take every command: \(report)")
        // Pull: a fresh clone of JOURNAL.
        let fresh = "\(folder)/pull-device-\(run).ndjson"
        let pulling = try ProcessTransport(command: hubCommand(source))
        var pulled = SyncReport()
        pullTimes.append(try await seconds {
            pulled = try await SyncClient.clone(journal: fresh, settings: SyncSettings(hub: source, device: "bench"), options: .init(actor: "ana"), over: pulling)
        })
        pulling.close()
        pulledEvents = pulled.pulled
        precondition(FileManager.default.contents(atPath: fresh) == FileManager.default.contents(atPath: source), "the clone differs from its hub")
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) { try? FileManager.default.removeItem(atPath: "\(folder)/\(file)") }
        print(String(format: "run %d: outbox %.2f s, sync of %d pending %.2f s, clone of %d events %.2f s",
                     run + 1, outboxTimes.last!, pendingCount, pushTimes.last!, pulled.pulled, pullTimes.last!))
    }
    print(String(format: "%d commands into the outbox (each decided and fsync'd): median %.2f s, %.0f commands/s", pendingCount, median(outboxTimes), Double(pendingCount) / median(outboxTimes)))
    print(String(format: "sync of %d pending commands (push in chunks of 1,000, pull them back): median %.2f s, %.0f commands/s", pendingCount, median(pushTimes), Double(pendingCount) / median(pushTimes)))
    print(String(format: "pull of %d events (a clone, every line's chain checked): median %.2f s, %.0f events/s", pulledEvents, median(pullTimes), Double(pulledEvents) / median(pullTimes)))

case "stats":
    guard arguments.count >= 3 else { print("usage: StoreBench stats JOURNAL [LAST]"); exit(2) }
    let events = try JournalReader.readAll(path: arguments[2])
    let last = min(arguments.count >= 4 ? Int(arguments[3]) ?? 1_000 : 1_000, events.count)
    var views = HouseholdViews()
    for recorded in events.dropLast(last) { views.apply(recorded) }
    var live = LiveStats(views)
    var fold: [Double] = [], update: [Double] = [], rebuild: [Double] = [], updatePurchase: [Double] = []
    let clock = ContinuousClock()
    func time(_ body: () -> Void) -> Double {
        let start = clock.now
        body()
        let elapsed = clock.now - start
        return Double(elapsed.components.attoseconds) / 1e18 + Double(elapsed.components.seconds)
    }
    for recorded in events.suffix(last) {
        fold.append(time { views.apply(recorded) })
        update.append(time { live.update(after: recorded, in: views) })
        if case .itemPurchased = recorded.event { updatePurchase.append(update.last!) }
        var rebuilt: StatsView?
        rebuild.append(time { rebuilt = StatsView(views) })
        precondition(rebuilt == live.view, "LiveStats differs from StatsView after seq \(recorded.seq)")
    }
    print("\(events.count) events; the last \(last), each: \(StatsView(views).items.count) item rows, \(StatsView(views).locations.count) place rows")
    for (what, values) in [("fold the event into the views", fold), ("update LiveStats", update),
                          ("  for a purchase (\(updatePurchase.count) of them)", updatePurchase), ("rebuild StatsView", rebuild)] {
        print(String(format: "%@ median %.1f µs, p99 %.1f µs", what.padding(toLength: 32, withPad: " ", startingAt: 0), median(values) * 1e6, percentile(values, 0.99) * 1e6))
    }

case "memory":
    // Each fold in its own process (this one, again): its peak resident memory, less that of reading alone.
    guard arguments.count >= 3 else { print("usage: StoreBench memory JOURNAL"); exit(2) }
    let path = arguments[2]
    func peakRSS() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?
            .split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }.map { $0 * 1024 } ?? 0
    }
    func each(_ apply: (RecordedEvent) -> Void) throws {
        _ = try JournalReader(path: path, verifyChain: false).readToEnd(prefetching: false, apply)
    }
    if arguments.count >= 4 {
        switch arguments[3] {
        case "read": try each { _ in }
        case "state":
            var state = ShopState.initial
            try each { state.apply($0) }
            withExtendedLifetime(state) {}
        case "state-without-purchases":
            var state = ShopState.initial
            try each {
                switch $0.event {
                case .itemPurchased, .purchaseReverted: break
                default: state.apply($0)
                }
            }
            withExtendedLifetime(state) {}
        case "views":
            var views = HouseholdViews()
            try each { views.apply($0) }
            withExtendedLifetime(views) {}
        case "views-totals":
            var views = StatisticsViews()
            try each { views.apply($0) }
            withExtendedLifetime(views) {}
        case "event-ids":
            var ids = IDIndex<EventKind>()
            try each { ids.insert($0.id) }
            withExtendedLifetime(ids) {}
        case "command-ids":
            var commands = CommandTable()
            try each { commands[$0.command] = CommandRecord(firstSeq: $0.seq, count: 1, offset: 0) }
            withExtendedLifetime(commands) {}
        default: exit(2)
        }
        print(peakRSS())
        exit(0)
    }
    func measured(_ fold: String) throws -> Int {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["memory", path, fold]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
    let base = try measured("read")
    func padded(_ text: String) -> String { text.padding(toLength: 64, withPad: " ", startingAt: 0) }
    print(padded("reading and decoding alone") + String(format: "%6.1f MiB peak RSS", Double(base) / 1_048_576))
    for (fold, what) in [("state", "household state (ShopState: items, lists, trips, purchases)"),
                         ("state-without-purchases", "  the same without purchase events (no purchases table)"),
                         ("views", "every view's fold, history with records (audit rows)"),
                         ("views-totals", "every view's fold, history as totals (as the tool folds)"),
                         ("event-ids", "event ids (an IDIndex, as the chain check keeps)"),
                         ("command-ids", "command ids (a CommandTable, as it keeps)")] {
        print(padded(what) + String(format: "%+6.1f MiB", Double(try measured(fold) - base) / 1_048_576))
    }

default:
    print("usage: StoreBench latency [SAMPLES] | StoreBench open JOURNAL [RUNS] | StoreBench sync PENDING JOURNAL [RUNS] | StoreBench stats JOURNAL [LAST] | StoreBench memory JOURNAL")
    exit(2)
}
